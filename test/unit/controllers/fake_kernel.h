// A fake kernel for the network controllers' unit tests: links and addresses in memory, every
// add, remove and announcement recorded, and change() to call the subscribers as the kernel's
// notifications would. Adds and removes act on the addresses, like the real ones.
#pragma once

#include <algorithm>
#include <mutex>
#include <vector>

#include "controllers/network/kernel.h"

namespace cosi::testing {

class FakeKernel final : public controllers::NetworkKernel {
 public:
  struct Add {
    controllers::KernelAddress address;
    std::optional<std::chrono::seconds> lifetime;
  };
  struct Announcement {
    uint32_t link_index;
    std::string ip;
  };

  std::vector<controllers::KernelLink> link_list;
  std::vector<controllers::KernelAddress> address_list;
  std::vector<Add> adds;
  std::vector<controllers::KernelAddress> removes;
  std::vector<Announcement> announcements;

  Result<std::vector<controllers::KernelLink>> links() override { return link_list; }
  Result<std::vector<controllers::KernelAddress>> addresses() override { return address_list; }
  Status add_address(const controllers::KernelAddress& a, std::optional<std::chrono::seconds> lifetime) override {
    adds.push_back({a, lifetime});
    if (!has(a)) address_list.push_back(a);
    return {};
  }
  Status remove_address(const controllers::KernelAddress& a) override {
    removes.push_back(a);
    std::erase_if(address_list, [&](const controllers::KernelAddress& k) { return k.same(a); });
    return {};
  }
  Status announce(const controllers::KernelLink& link, const std::string& ip) override {
    announcements.push_back({link.index, ip});
    return {};
  }
  void subscribe(std::function<void()> on_change) override { subscribers_.push_back(std::move(on_change)); }

  bool has(const controllers::KernelAddress& a) const {
    return std::any_of(address_list.begin(), address_list.end(), [&](const auto& k) { return k.same(a); });
  }
  // What the kernel's notification would do: every subscriber is told.
  void change() {
    for (const auto& s : subscribers_) s();
  }

 private:
  std::vector<std::function<void()>> subscribers_;
};

}  // namespace cosi::testing
