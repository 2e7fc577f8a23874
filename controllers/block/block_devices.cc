#include "controllers/block/block_devices.h"

namespace cosi::controllers {

void SysfsBlockDevices::subscribe(std::function<void()> on_change) {
  std::lock_guard lock(mu_);
  subscribers_.push_back(std::move(on_change));
}

void SysfsBlockDevices::uevent(const Uevent&) {
  std::vector<std::function<void()>> subscribers;
  {
    std::lock_guard lock(mu_);
    subscribers = subscribers_;
  }
  for (const auto& s : subscribers) s();
}

}  // namespace cosi::controllers
