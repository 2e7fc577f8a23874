#include "runtime/controller/work_queue.h"

#include <algorithm>
#include <functional>

namespace cosi {

bool WorkQueue::in_bulk(const Pointer& key) const {
  return std::binary_search(bulk_.begin() + static_cast<std::ptrdiff_t>(bulk_head_), bulk_.end(), key);
}

WorkQueue::Working* WorkQueue::working(const Pointer& key, std::size_t hash) {
  for (auto& w : working_) {
    if (w.hash == hash && w.key == key) return &w;
  }
  return nullptr;
}

void WorkQueue::enqueue(const Pointer& key, SteadyTime since) {
  queue_.push_back(waiting_.emplace(key, since).first);
}

bool WorkQueue::add(const Pointer& key, SteadyTime now) {
  if (!working_.empty()) {
    if (Working* w = working(key, std::hash<Pointer>{}(key))) {
      if (w->again) return false;
      w->again = true;
      w->again_since = now;
      return true;
    }
  }
  if (waiting_.contains(key) || in_bulk(key)) return false;
  enqueue(key, now);
  return true;
}

std::size_t WorkQueue::add_all(std::vector<Pointer> keys, SteadyTime now) {
  if (!idle()) {
    std::size_t added = 0;
    for (const auto& key : keys) added += add(key, now) ? 1 : 0;
    return added;
  }
  if (!std::is_sorted(keys.begin(), keys.end())) std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  bulk_ = std::move(keys);
  bulk_head_ = 0;
  bulk_since_ = now;
  return bulk_.size();
}

std::optional<Pointer> WorkQueue::take(SteadyTime now, Duration* waited) {
  std::optional<Pointer> key;
  SteadyTime since;
  if (bulk_head_ < bulk_.size()) {
    key = std::move(bulk_[bulk_head_++]);
    since = bulk_since_;
    if (bulk_head_ == bulk_.size()) {
      std::vector<Pointer>().swap(bulk_);  // the fill is over: give its memory back
      bulk_head_ = 0;
    }
  } else if (!queue_.empty()) {
    auto it = queue_.front();
    queue_.pop_front();
    key = it->first;
    since = it->second;
    waiting_.erase(it);
  } else {
    return std::nullopt;
  }
  if (waited != nullptr) *waited = now - since;
  working_.push_back({*key, std::hash<Pointer>{}(*key), now});
  return key;
}

bool WorkQueue::done(const Pointer& key, SteadyTime now, Duration* worked) {
  Working* w = working(key, std::hash<Pointer>{}(key));
  if (w == nullptr) return false;
  if (worked != nullptr) *worked = now - w->started;
  const bool again = w->again;
  if (again) enqueue(key, w->again_since);
  if (w != &working_.back()) *w = std::move(working_.back());
  working_.pop_back();
  return again;
}

}  // namespace cosi
