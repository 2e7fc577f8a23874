// The kernel's uevents (NETLINK_KOBJECT_UEVENT): how the disks controller learns that a block
// device came, went or changed, without polling (sysfs gives inotify no create events).
//
//   auto monitor = UeventMonitor::start("block", [&](const Uevent& e) { devices.uevent(e); });
//   // e.action == "add", e.devpath == "/devices/virtual/block/loop0", e.env.at("DEVNAME") == "loop0"
//
// Only messages the kernel itself sent are taken (sender port 0): another process on the host
// cannot feed the node made-up devices.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "runtime/base/result.h"

namespace cosi::controllers {

struct Uevent {
  std::string action;   // add, remove, change, move, online, offline, bind, unbind; "overflow": some were lost
  std::string devpath;  // under /sys
  std::map<std::string, std::string> env;  // SUBSYSTEM, DEVNAME, DEVTYPE, MAJOR, MINOR, ...
};

// A kernel uevent's bytes: "ACTION@DEVPATH\0KEY=VALUE\0...". nullopt for anything else (udev's
// own "libudev" messages among them).
std::optional<Uevent> parse_uevent(std::string_view bytes);

class UeventMonitor {
 public:
  // Listens until destroyed; `on_event` runs on the monitor's thread for each uevent of
  // `subsystem`. kUnavailable when the socket cannot be opened.
  static Result<std::unique_ptr<UeventMonitor>> start(std::string subsystem, std::function<void(const Uevent&)> on_event);
  ~UeventMonitor();

 private:
  UeventMonitor(int socket, int wake, std::string subsystem, std::function<void(const Uevent&)> on_event);
  void run();

  int socket_;
  int wake_;  // an eventfd: the destructor wakes the thread with it
  std::string subsystem_;
  std::function<void(const Uevent&)> on_event_;
  std::thread thread_;
};

}  // namespace cosi::controllers
