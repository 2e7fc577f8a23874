// BlockDevices: where the disks controller reads the node's disks and learns that they changed.
// SysfsBlockDevices reads sysfs (sysfs_disks.h) and is told of changes through uevent() — by a
// UeventMonitor in machined, by hand in tests.
//
//   SysfsBlockDevices devices({.sys = "/sys"});
//   auto monitor = UeventMonitor::start("block", [&](const Uevent& e) { devices.uevent(e); });
//   runtime.add(std::make_unique<DisksController>(devices));
#pragma once

#include <functional>
#include <mutex>
#include <vector>

#include "controllers/block/sysfs_disks.h"
#include "controllers/block/uevent_monitor.h"

namespace cosi::controllers {

class BlockDevices {
 public:
  virtual ~BlockDevices() = default;
  virtual Result<std::vector<SysfsDisk>> disks() = 0;
  // `on_change` runs, on another thread, each time a block device appears, goes or changes.
  virtual void subscribe(std::function<void()> on_change) = 0;
};

class SysfsBlockDevices final : public BlockDevices {
 public:
  explicit SysfsBlockDevices(SysfsRoots roots) : roots_(std::move(roots)) {}

  Result<std::vector<SysfsDisk>> disks() override { return read_sysfs_disks(roots_); }
  void subscribe(std::function<void()> on_change) override;
  // A block device's uevent: every subscriber is told.
  void uevent(const Uevent& event);

 private:
  SysfsRoots roots_;
  std::mutex mu_;
  std::vector<std::function<void()>> subscribers_;  // guarded by mu_
};

}  // namespace cosi::controllers
