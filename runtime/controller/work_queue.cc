#include "runtime/controller/work_queue.h"

namespace cosi {

bool WorkQueue::add(const Pointer& key, SteadyTime now) {
  if (dirty_.contains(key)) return false;
  dirty_.emplace(key, now);
  if (!processing_.contains(key)) queue_.push_back(key);
  return true;
}

std::optional<Pointer> WorkQueue::take(SteadyTime now, Duration* waited) {
  if (queue_.empty()) return std::nullopt;
  Pointer key = std::move(queue_.front());
  queue_.pop_front();
  auto it = dirty_.find(key);
  if (waited != nullptr && it != dirty_.end()) *waited = now - it->second;
  if (it != dirty_.end()) dirty_.erase(it);
  processing_[key] = now;
  return key;
}

bool WorkQueue::done(const Pointer& key, SteadyTime now, Duration* worked) {
  auto it = processing_.find(key);
  if (it != processing_.end()) {
    if (worked != nullptr) *worked = now - it->second;
    processing_.erase(it);
  }
  if (dirty_.contains(key)) {
    queue_.push_back(key);
    return true;
  }
  return false;
}

}  // namespace cosi
