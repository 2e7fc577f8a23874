// The baseline every store benchmark compares against: the simplest thread-safe map of
// snapshots a C++ programmer would write — an unordered_map from id to shared_ptr, behind a
// shared_mutex. No versions, owners, events or kinds.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/resource/resource.h"

namespace cosi::bench {

class BaselineStore {
 public:
  void put(const std::string& id, ResourcePtr r) {
    std::unique_lock lock(mu_);
    items_[id] = std::move(r);
  }

  ResourcePtr get(const std::string& id) const {
    std::shared_lock lock(mu_);
    auto it = items_.find(id);
    return it == items_.end() ? nullptr : it->second;
  }

  bool replace(const std::string& id, ResourcePtr r) {
    std::unique_lock lock(mu_);
    auto it = items_.find(id);
    if (it == items_.end()) return false;
    it->second = std::move(r);
    return true;
  }

  std::vector<ResourcePtr> list_sorted() const {
    std::vector<ResourcePtr> out;
    {
      std::shared_lock lock(mu_);
      out.reserve(items_.size());
      for (const auto& [id, r] : items_) out.push_back(r);
    }
    std::sort(out.begin(), out.end(), [](const ResourcePtr& a, const ResourcePtr& b) {
      return a->metadata().id() < b->metadata().id();
    });
    return out;
  }

 private:
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, ResourcePtr> items_;
};

}  // namespace cosi::bench
