#include "controllers/block/sysfs_disks.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

namespace cosi::controllers {
namespace {

namespace fs = std::filesystem;

// A sysfs attribute without its trailing whitespace; nullopt when absent.
std::optional<std::string> attribute(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(text.begin());
  return text;
}

std::string first_of(std::initializer_list<fs::path> paths) {
  for (const auto& p : paths) {
    if (auto v = attribute(p); v && !v->empty()) return *v;
  }
  return "";
}

uint64_t number(const fs::path& path, uint64_t fallback = 0) {
  auto v = attribute(path);
  if (!v || v->empty()) return fallback;
  try {
    return std::stoull(*v);
  } catch (...) {
    return fallback;
  }
}

// udev's database entry of the device: its E:KEY=VALUE properties.
std::map<std::string, std::string> udev_properties(const std::string& udev_data, const std::string& major_minor) {
  std::map<std::string, std::string> out;
  std::ifstream in(fs::path(udev_data) / ("b" + major_minor));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("E:", 0) != 0) continue;
    auto eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(2, eq - 2)] = line.substr(eq + 1);
  }
  return out;
}

// readlink of the device's sysfs node, without "../devices" and the last two steps
// ("block/vda"): /pci0000:00/0000:00:06.0/virtio2.
std::string bus_path(const fs::path& node) {
  std::error_code ec;
  std::string link = fs::read_symlink(node, ec).string();
  if (ec) return "";
  auto at = link.find("/devices/");
  if (at == std::string::npos) return "";
  fs::path p(link.substr(at + std::string("/devices").size()));
  return p.parent_path().parent_path().string();
}

// The subsystem's directory as a path under /sys, whatever root the tree is read from.
std::string sub_system(const fs::path& node, const fs::path& sys) {
  std::error_code ec;
  auto resolved = fs::canonical(node / "subsystem", ec);
  if (ec) return "";
  auto root = fs::canonical(sys, ec);
  if (ec) return "";
  auto rel = resolved.lexically_relative(root);
  if (rel.empty() || rel.native().rfind("..", 0) == 0) return resolved.string();
  return (fs::path("/sys") / rel).string();
}

// How the disk is attached, as Talos's getTransport tells it: by name, then by the SCSI host
// it hangs off.
std::string transport(const std::string& id, const fs::path& node, const fs::path& sys) {
  if (id.rfind("nvme", 0) == 0) return "nvme";
  if (id.rfind("vd", 0) == 0) return "virtio";
  if (id.rfind("mmcblk", 0) == 0) return "mmc";
  std::error_code ec;
  const fs::path device = fs::canonical(node / "device", ec);
  if (ec) return "";
  std::string host;
  for (const auto& part : device) {
    const std::string s = part.string();
    if (s.rfind("host", 0) == 0 && s.size() > 4 && std::all_of(s.begin() + 4, s.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) host = s;
  }
  if (host.empty()) return device.string().find("usb") != std::string::npos ? "usb" : "";
  auto exists = [&](const fs::path& p) { return fs::exists(p, ec); };
  if (exists(sys / "class/sas_host" / host)) return "sas";
  if (exists(sys / "class/fc_host" / host)) return "fc";
  if (exists(device / "ieee1394_id")) return "ibp";
  if (exists(sys / "class/iscsi_host" / host)) return "iscsi";
  if (device.string().find("usb") != std::string::npos) return "usb";
  const std::string proc = attribute(sys / "class/scsi_host" / host / "proc_name").value_or("");
  if (proc == "ahci" || proc == "sata") return "sata";
  if (proc.find("ata") != std::string::npos) return "ata";
  if (proc == "virtio_scsi") return "virtio";
  return "";
}

// A holder's slaves as the disks they are on (a partition vda5 counts as vda).
std::vector<std::string> secondary_disks(const fs::path& node, const fs::path& sys) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(node / "slaves", ec)) {
    const std::string name = entry.path().filename().string();
    std::string disk = name;
    if (fs::exists(sys / "class/block" / name / "partition", ec)) {
      auto resolved = fs::canonical(sys / "class/block" / name, ec);
      if (!ec) disk = resolved.parent_path().filename().string();
    }
    if (std::find(out.begin(), out.end(), disk) == out.end()) out.push_back(disk);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The first power of two among the queue's optimal and minimum I/O sizes; 512 when none is.
uint64_t io_size(const fs::path& queue) {
  for (const char* name : {"optimal_io_size", "minimum_io_size", "logical_block_size"}) {
    const uint64_t v = number(queue / name);
    if (v > 0 && (v & (v - 1)) == 0) return v;
  }
  return 512;
}

}  // namespace

std::string si_bytes(uint64_t bytes) {
  if (bytes < 10) return std::to_string(bytes) + " B";
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  const double s = static_cast<double>(bytes);
  int e = static_cast<int>(std::floor(std::log(s) / std::log(1000.0)));
  e = std::clamp(e, 0, 6);
  const double value = std::floor(s / std::pow(1000.0, e) * 10 + 0.5) / 10;
  char buf[32];
  std::snprintf(buf, sizeof buf, value < 10 ? "%.1f %s" : "%.0f %s", value, kUnits[e]);
  return buf;
}

Result<std::vector<SysfsDisk>> read_sysfs_disks(const SysfsRoots& roots) {
  const fs::path sys(roots.sys);
  std::error_code ec;
  fs::directory_iterator it(sys / "block", ec);
  if (ec) return Error(ErrorKind::kUnavailable, "reading " + (sys / "block").string() + ": " + ec.message());
  std::vector<SysfsDisk> out;
  for (const auto& entry : it) {
    const std::string id = entry.path().filename().string();
    const fs::path node = entry.path();
    const std::string major_minor = attribute(node / "dev").value_or("");
    if (major_minor.rfind("1:", 0) == 0) continue;  // RAM disks
    const uint64_t size = number(node / "size") * 512;  // sysfs counts 512-byte sectors, whatever the device's
    if (size == 0) continue;
    SysfsDisk disk{id, {}};
    auto& s = disk.spec;
    const auto udev = udev_properties(roots.udev_data, major_minor);
    auto udev_value = [&](const char* key) {
      auto found = udev.find(key);
      return found == udev.end() ? std::string() : found->second;
    };
    s.set_dev_path("/dev/" + id);
    s.set_size(size);
    s.set_pretty_size(si_bytes(size));
    s.set_io_size(io_size(node / "queue"));
    s.set_sector_size(number(node / "queue/logical_block_size", 512));
    s.set_readonly(attribute(node / "ro").value_or("0") == "1");
    s.set_cdrom(id.rfind("sr", 0) == 0 || attribute(node / "device/type").value_or("") == "5");
    s.set_model(first_of({node / "device/model"}));
    std::string serial = first_of({node / "device/serial"});
    if (serial.empty()) serial = udev_value("ID_SERIAL");
    if (serial.empty()) serial = udev_value("ID_SERIAL_SHORT");
    s.set_serial(serial);
    s.set_modalias(first_of({node / "device/modalias", node / "device/device/modalias"}));
    s.set_wwid(first_of({node / "wwid", node / "device/wwid"}));
    s.set_uuid(first_of({node / "uuid", node / "device/uuid"}));
    s.set_bus_path(bus_path(sys / "block" / id));
    s.set_sub_system(sub_system(node, sys));
    s.set_transport(transport(id, node, sys));
    s.set_rotational(attribute(node / "queue/rotational").value_or("0") == "1");
    for (auto& d : secondary_disks(node, sys)) s.add_secondary_disks(std::move(d));
    out.push_back(std::move(disk));
  }
  std::sort(out.begin(), out.end(), [](const SysfsDisk& a, const SysfsDisk& b) { return a.id < b.id; });
  return out;
}

}  // namespace cosi::controllers
