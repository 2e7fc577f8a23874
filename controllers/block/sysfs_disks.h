// The node's disks as Talos describes them (Disks.block.talos.dev), read from sysfs and, where
// udev keeps a database, from it — no ioctl and no /dev, so a test points `sys` at a tree of its
// own and gets exactly what it wrote there.
//
//   auto disks = read_sysfs_disks({.sys = "/sys", .udev_data = "/run/udev/data"});
//   (*disks)[0].id == "vda"; (*disks)[0].spec.pretty_size() == "275 GB";
//
// Which devices: every entry of /sys/block (whole disks: partitions live below them) except RAM
// disks (major 1) and devices of size 0 (an unattached loop device, an empty drive) — as Talos's
// DisksController keeps them. Attached loop devices, zram and CD-ROMs with media are disks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "resources/block/block_resources.h"
#include "runtime/base/result.h"

namespace cosi::controllers {

struct SysfsRoots {
  std::string sys = "/sys";
  std::string udev_data = "/run/udev/data";  // b<major>:<minor> files with E:KEY=VALUE lines
};

struct SysfsDisk {
  std::string id;  // the kernel's name: "vda", "nvme0n1"
  resources::DiskSpec spec;
};

// Sorted by id. kUnavailable when `sys`/block cannot be read.
Result<std::vector<SysfsDisk>> read_sysfs_disks(const SysfsRoots& roots);

// Bytes as Go's humanize.Bytes prints them (SI units): 69 GB, 7.5 MB, 512 B.
std::string si_bytes(uint64_t bytes);

}  // namespace cosi::controllers
