#include "runtime/state/event_buffer.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace cosi {

void EventBuffer::push(const Event& event) {
  if (coalescing_) {
    fold(event);
    return;
  }
  queue_.push_back(event);
  if (queued() > bound_) [[unlikely]] coalesce_past_bound();
}

void EventBuffer::push(Event&& event) {
  if (coalescing_) {
    fold(event);
    return;
  }
  queue_.push_back(std::move(event));
  if (queued() > bound_) [[unlikely]] coalesce_past_bound();
}

void EventBuffer::coalesce_past_bound() {
  coalescing_ = true;
  std::vector<Event> pending;
  pending.swap(queue_);
  const std::size_t head = std::exchange(head_, 0);
  for (std::size_t i = head; i < pending.size(); ++i) fold(pending[i]);
}

void EventBuffer::fold(const Event& event) {
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
    if (queued() > 0) {
      const std::size_t n = std::min(max - taken, queued());
      if (out.empty() && head_ == 0 && n == queue_.size()) {
        out.swap(queue_);  // all of it: hand over the vector, keep the caller's capacity
        queue_.clear();
      } else {
        const auto first = queue_.begin() + static_cast<std::ptrdiff_t>(head_);
        out.insert(out.end(), std::make_move_iterator(first),
                   std::make_move_iterator(first + static_cast<std::ptrdiff_t>(n)));
        head_ += n;
        if (head_ == queue_.size()) {
          queue_.clear();
          head_ = 0;
        } else if (head_ >= 64 && head_ * 2 >= queue_.size()) {  // a consumer taking a few at a time
          queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head_));
          head_ = 0;
        }
      }
      taken += n;
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
  head_ = 0;
  index_.clear();
  order_.clear();
  coalescing_ = false;
}

}  // namespace cosi
