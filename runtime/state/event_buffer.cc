#include "runtime/state/event_buffer.h"

#include <utility>

namespace cosi {

void EventBuffer::push(Event event) {
  if (coalescing_) {
    fold(std::move(event));
    return;
  }
  queue_.push_back(std::move(event));
  if (queue_.size() <= bound_) return;
  coalescing_ = true;
  std::deque<Event> pending;
  pending.swap(queue_);
  for (auto& e : pending) fold(std::move(e));
}

void EventBuffer::fold(Event event) {
  ResourcePtr before;
  ResourcePtr after;
  switch (event.type) {
    case EventType::kCreated: after = event.resource; break;
    case EventType::kUpdated: before = event.old; after = event.resource; break;
    case EventType::kDestroyed: before = event.resource; break;
    default: return;  // markers never reach a buffer
  }
  const bool destroyed = event.type == EventType::kDestroyed;
  const std::string& id = event.resource->metadata().id();

  auto found = index_.find(std::string_view(id));
  if (found == index_.end()) {
    Record record{id, before, after, after ? after : before, false, event.bookmark,
                  destroyed ? event.bookmark : std::nullopt};
    order_.push_back(std::move(record));
    auto it = std::prev(order_.end());
    index_.emplace(std::string_view(it->id), it);
    return;
  }

  auto it = found->second;
  Record& record = *it;
  ++coalesced_events_;
  if (event.type == EventType::kCreated && record.seen) record.recreated = true;
  record.current = after;
  if (after) record.last_present = after;
  record.newest = event.bookmark;
  if (destroyed) record.destroyed_at = event.bookmark;

  if (!record.seen && !record.current) {  // created and destroyed meanwhile: nothing to say
    ++coalesced_events_;
    index_.erase(found);
    order_.erase(it);
    return;
  }
  order_.splice(order_.end(), order_, it);
}

void EventBuffer::emit(const Record& r) {
  if (!r.seen) {
    queue_.push_back(Event{EventType::kCreated, r.current, nullptr, r.newest, nullptr});
  } else if (!r.current) {
    queue_.push_back(Event{EventType::kDestroyed, r.last_present, nullptr, r.newest, nullptr});
  } else if (r.recreated) {
    queue_.push_back(Event{EventType::kDestroyed, r.seen, nullptr, r.destroyed_at, nullptr});
    queue_.push_back(Event{EventType::kCreated, r.current, nullptr, r.newest, nullptr});
  } else {
    queue_.push_back(Event{EventType::kUpdated, r.current, r.seen, r.newest, nullptr});
  }
}

std::size_t EventBuffer::pop(std::vector<Event>& out, std::size_t max) {
  std::size_t taken = 0;
  while (taken < max) {
    if (!queue_.empty()) {
      out.push_back(std::move(queue_.front()));
      queue_.pop_front();
      ++taken;
      continue;
    }
    if (order_.empty()) break;
    auto it = order_.begin();
    emit(*it);
    index_.erase(std::string_view(it->id));
    order_.erase(it);
  }
  if (coalescing_ && order_.empty()) coalescing_ = false;
  return taken;
}

void EventBuffer::clear() {
  queue_.clear();
  index_.clear();
  order_.clear();
  coalescing_ = false;
}

}  // namespace cosi
