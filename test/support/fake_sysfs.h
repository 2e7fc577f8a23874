// A sysfs tree of a test's own for the disk reader (controllers/block/sysfs_disks.h): the
// devices it names, laid out as the kernel lays them out — /sys/block/<name> a symlink into
// /sys/devices, the device's attributes there, `device` and `subsystem` links, udev's database
// beside it.
//
//   FakeSysfs sys(dir);
//   sys.add({.name = "vda", .bus = "pci0000:00/0000:00:06.0/virtio2", .sectors = 134765625,
//            .modalias = "virtio:d00000002v00001AF4", .rotational = true});
//   read_sysfs_disks({.sys = sys.root(), .udev_data = sys.udev()});
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace cosi::testing {

struct FakeBlockDevice {
  std::string name;               // vda
  std::string bus = "virtual";    // the path under /sys/devices of its parent device
  std::string major_minor = "254:0";
  uint64_t sectors = 0;           // of 512 bytes
  bool rotational = false;
  bool readonly = false;
  std::string model, serial, modalias, wwid;
  std::string udev_serial;        // E:ID_SERIAL in udev's database
};

class FakeSysfs {
 public:
  explicit FakeSysfs(std::filesystem::path dir) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_ / "sys/block");
    std::filesystem::create_directories(dir_ / "sys/class/block");
    std::filesystem::create_directories(dir_ / "udev");
  }
  std::string root() const { return (dir_ / "sys").string(); }
  std::string udev() const { return (dir_ / "udev").string(); }

  void add(const FakeBlockDevice& d) {
    namespace fs = std::filesystem;
    const fs::path sys = dir_ / "sys";
    const fs::path parent = sys / "devices" / d.bus;
    const fs::path node = parent / "block" / d.name;
    fs::create_directories(node / "queue");
    write(node / "dev", d.major_minor);
    write(node / "size", std::to_string(d.sectors));
    write(node / "ro", d.readonly ? "1" : "0");
    write(node / "queue/rotational", d.rotational ? "1" : "0");
    write(node / "queue/logical_block_size", "512");
    write(node / "queue/minimum_io_size", "512");
    write(node / "queue/optimal_io_size", "0");
    if (!d.wwid.empty()) write(node / "wwid", d.wwid);
    if (!d.model.empty()) write(parent / "model", d.model);
    if (!d.serial.empty()) write(parent / "serial", d.serial);
    if (!d.modalias.empty()) write(parent / "modalias", d.modalias);
    if (d.bus != "virtual") fs::create_directory_symlink("../..", node / "device");
    fs::create_directory_symlink(fs::relative(sys / "class/block", node), node / "subsystem");
    fs::create_directory_symlink(fs::relative(node, sys / "block"), sys / "block" / d.name);
    fs::create_directory_symlink(fs::relative(node, sys / "class/block"), sys / "class/block" / d.name);
    if (!d.udev_serial.empty()) write(dir_ / "udev" / ("b" + d.major_minor), "E:ID_SERIAL=" + d.udev_serial + "\n");
  }

  void remove(const std::string& name) {
    namespace fs = std::filesystem;
    const fs::path link = dir_ / "sys/block" / name;
    const fs::path node = fs::canonical(link);
    fs::remove(link);
    fs::remove(dir_ / "sys/class/block" / name);
    fs::remove_all(node);
  }

 private:
  static void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text << "\n"; }
  std::filesystem::path dir_;
};

}  // namespace cosi::testing
