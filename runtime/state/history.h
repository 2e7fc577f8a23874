// History: the last `capacity` events of one kind, so a watch can start with the newest N
// events (tail_events) or resume after a bookmark. Events are numbered 1, 2, 3... with no gaps:
// every write makes exactly one event.
//
//   History h(1024);
//   h.push(event);               // event.bookmark->position() == h.last_position()
//   if (h.covers(p)) for (const Event& e : h.after(p)) ...
//
// Not thread-safe: the kind's lock guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/state/event.h"

namespace cosi {

class History {
 public:
  explicit History(std::size_t capacity) : capacity_(capacity) {}

  void push(Event event);

  std::uint64_t last_position() const { return last_; }
  // The position of the oldest event kept; last_position() + 1 when none is kept.
  std::uint64_t first_position() const { return last_ + 1 - ring_.size(); }
  // True when every event after `position` is still here.
  bool covers(std::uint64_t position) const {
    return position + 1 >= first_position() && position <= last_;
  }

  // Events after `position` (covers(position) must hold), oldest first.
  std::vector<Event> after(std::uint64_t position) const;
  // The newest n events (fewer when fewer are kept), oldest first.
  std::vector<Event> tail(std::size_t n) const;

 private:
  const Event& at(std::uint64_t position) const;

  std::size_t capacity_;
  std::vector<Event> ring_;  // grows to capacity_, then wraps
  std::size_t next_slot_ = 0;
  std::uint64_t last_ = 0;
};

}  // namespace cosi
