#include "runtime/controller/work_queue.h"

namespace cosi {

bool WorkQueue::add(const Pointer& key, SteadyTime now) {
  auto [it, inserted] = entries_.try_emplace(key);
  Entry& e = it->second;
  if (e.waiting) return false;
  e.waiting = true;
  e.since = now;
  if (!e.processing) queue_.push_back(&it->first);
  return true;
}

std::optional<Pointer> WorkQueue::take(SteadyTime now, Duration* waited) {
  if (queue_.empty()) return std::nullopt;
  const Pointer* key = queue_.front();
  queue_.pop_front();
  Entry& e = entries_.find(*key)->second;
  if (waited != nullptr) *waited = now - e.since;
  e.waiting = false;
  e.processing = true;
  e.started = now;
  return *key;
}

bool WorkQueue::done(const Pointer& key, SteadyTime now, Duration* worked) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  Entry& e = it->second;
  if (worked != nullptr && e.processing) *worked = now - e.started;
  e.processing = false;
  if (e.waiting) {
    queue_.push_back(&it->first);
    return true;
  }
  entries_.erase(it);
  return false;
}

}  // namespace cosi
