// The node's disks from a sysfs tree of the test's own: every field Talos reads, which devices
// count, SI sizes, kernel uevents parsed, and the controller following a device that comes and
// goes through injected uevents — on the harness, no threads, no sleeps.
#include <catch2/catch.hpp>

#include <filesystem>
#include <unistd.h>

#include "controllers/block/disks_controller.h"
#include "runtime/testing/harness.h"
#include "test/support/fake_sysfs.h"

namespace cosi::controllers {
namespace {

using namespace cosi::resources;
using cosi::testing::FakeSysfs;
using cosi::testing::Harness;

struct TempDir {
  TempDir() : path(std::filesystem::temp_directory_path() / ("cosi-sysfs-" + std::to_string(getpid()) + "-" + std::to_string(++n))) {
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::filesystem::path path;
  static inline int n = 0;
};

// The seed's disk: a 69 GB virtio disk.
cosi::testing::FakeBlockDevice seed_vda() {
  return {.name = "vda", .bus = "pci0000:00/0000:00:06.0/virtio2", .major_minor = "254:0", .sectors = 134765625,
          .rotational = true, .modalias = "virtio:d00000002v00001AF4"};
}

// A string literal with its NUL bytes.
template <std::size_t N>
std::string raw(const char (&s)[N]) {
  return std::string(s, N - 1);
}

TEST_CASE("sizes print as Go's humanize.Bytes does") {
  CHECK(si_bytes(0) == "0 B");
  CHECK(si_bytes(9) == "9 B");
  CHECK(si_bytes(512) == "512 B");
  CHECK(si_bytes(1000) == "1.0 kB");
  CHECK(si_bytes(7500000) == "7.5 MB");
  CHECK(si_bytes(75000000) == "75 MB");
  CHECK(si_bytes(69000000000ULL) == "69 GB");
  CHECK(si_bytes(274877906944ULL) == "275 GB");
}

TEST_CASE("a disk's fields are read from sysfs and udev as Talos reads them") {
  TempDir dir;
  FakeSysfs sys(dir.path);
  sys.add(seed_vda());
  sys.add({.name = "sdb", .bus = "pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0", .major_minor = "8:16",
           .sectors = 2000000, .model = "SAMSUNG SSD", .wwid = "naa.5002538", .udev_serial = "S3Z9NB0K"});
  sys.add({.name = "loop0", .major_minor = "7:0", .sectors = 146484, .readonly = true});
  sys.add({.name = "loop1", .major_minor = "7:1", .sectors = 0});   // not attached: no disk
  sys.add({.name = "ram0", .major_minor = "1:0", .sectors = 8192});  // RAM disks never are
  std::filesystem::create_directories(dir.path / "sys/class/scsi_host/host0");
  std::ofstream(dir.path / "sys/class/scsi_host/host0/proc_name") << "ahci\n";

  auto disks = read_sysfs_disks({.sys = sys.root(), .udev_data = sys.udev()});
  REQUIRE(disks.ok());
  REQUIRE(disks->size() == 3);
  CHECK((*disks)[0].id == "loop0");
  CHECK((*disks)[1].id == "sdb");
  CHECK((*disks)[2].id == "vda");

  const auto& vda = (*disks)[2].spec;
  CHECK(vda.dev_path() == "/dev/vda");
  CHECK(vda.size() == 69000000000ULL);
  CHECK(vda.pretty_size() == "69 GB");
  CHECK(vda.io_size() == 512);
  CHECK(vda.sector_size() == 512);
  CHECK_FALSE(vda.readonly());
  CHECK_FALSE(vda.cdrom());
  CHECK(vda.modalias() == "virtio:d00000002v00001AF4");
  CHECK(vda.bus_path() == "/pci0000:00/0000:00:06.0/virtio2");
  CHECK(vda.sub_system() == "/sys/class/block");
  CHECK(vda.transport() == "virtio");
  CHECK(vda.rotational());

  const auto& sdb = (*disks)[1].spec;
  CHECK(sdb.model() == "SAMSUNG SSD");
  CHECK(sdb.serial() == "S3Z9NB0K");  // from udev's database
  CHECK(sdb.wwid() == "naa.5002538");
  CHECK(sdb.transport() == "sata");   // an ahci SCSI host
  CHECK_FALSE(sdb.rotational());

  const auto& loop0 = (*disks)[0].spec;
  CHECK(loop0.readonly());
  CHECK(loop0.bus_path() == "/virtual");
  CHECK(loop0.pretty_size() == "75 MB");
}

TEST_CASE("a missing sysfs is an error naming it") {
  auto disks = read_sysfs_disks({.sys = "/nonexistent/sys"});
  REQUIRE_FALSE(disks.ok());
  CHECK(disks.error().message().find("/nonexistent/sys/block") != std::string::npos);
}

TEST_CASE("kernel uevents are parsed, and udev's own messages are not") {
  const std::string bytes = raw("change@/devices/virtual/block/loop0\0ACTION=change\0DEVPATH=/devices/virtual/block/loop0\0"
                                "SUBSYSTEM=block\0DEVNAME=loop0\0DEVTYPE=disk\0SEQNUM=4242\0");
  auto e = parse_uevent(bytes);
  REQUIRE(e);
  CHECK(e->action == "change");
  CHECK(e->devpath == "/devices/virtual/block/loop0");
  CHECK(e->env.at("SUBSYSTEM") == "block");
  CHECK(e->env.at("DEVNAME") == "loop0");
  CHECK(e->env.at("SEQNUM") == "4242");
  CHECK_FALSE(parse_uevent(raw("libudev\0\xfe\xed")));
  CHECK_FALSE(parse_uevent("no at sign"));
}

TEST_CASE("DisksController: disks follow the uevents, devices that go are destroyed") {
  TempDir dir;
  FakeSysfs sys(dir.path);
  sys.add(seed_vda());
  SysfsBlockDevices devices({.sys = sys.root(), .udev_data = sys.udev()});
  Harness h;
  REQUIRE(h.add(std::make_unique<DisksController>(devices)).ok());
  REQUIRE(h.start().ok());
  const Kind disks{kRuntimeNamespace, kDiskType};
  CHECK(h.expect(disks.at("vda"), [](const ResourcePtr& r) { return resource_cast<DiskSpec>(r)->spec().pretty_size() == "69 GB"; }).ok());
  CHECK(h.expect_count(disks, 1).ok());

  // A device attached: nothing is read until its uevent says so.
  sys.add({.name = "loop3", .major_minor = "7:3", .sectors = 2048});
  h.run_until_idle();
  CHECK(h.expect_absent(disks.at("loop3")).ok());
  auto add = parse_uevent(raw("add@/devices/virtual/block/loop3\0ACTION=add\0SUBSYSTEM=block\0DEVNAME=loop3\0"));
  REQUIRE(add);
  devices.uevent(*add);
  h.run_until_idle();
  CHECK(h.expect(disks.at("loop3"), [](const ResourcePtr& r) { return resource_cast<DiskSpec>(r)->spec().size() == 1048576; }).ok());

  sys.remove("loop3");
  devices.uevent({"remove", "/devices/virtual/block/loop3", {{"SUBSYSTEM", "block"}}});
  h.run_until_idle();
  CHECK(h.expect_absent(disks.at("loop3")).ok());
  CHECK(h.expect_count(disks, 1).ok());
}

}  // namespace
}  // namespace cosi::controllers
