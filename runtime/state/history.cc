#include "runtime/state/history.h"

#include <algorithm>

namespace cosi {

void History::push(Event event) {
  ++last_;
  if (capacity_ == 0) return;
  if (ring_.size() < capacity_) {
    ring_.push_back(std::move(event));
    return;
  }
  ring_[next_slot_] = std::move(event);
  next_slot_ = (next_slot_ + 1) % capacity_;
}

const Event& History::at(std::uint64_t position) const {
  // The oldest kept event sits at next_slot_ once the ring is full, at 0 before.
  std::size_t offset = static_cast<std::size_t>(position - first_position());
  std::size_t start = ring_.size() < capacity_ ? 0 : next_slot_;
  return ring_[(start + offset) % ring_.size()];
}

std::vector<Event> History::after(std::uint64_t position) const {
  std::vector<Event> out;
  out.reserve(static_cast<std::size_t>(last_ - position));
  for (std::uint64_t p = position + 1; p <= last_; ++p) out.push_back(at(p));
  return out;
}

std::vector<Event> History::tail(std::size_t n) const {
  std::size_t count = std::min(n, ring_.size());
  return after(last_ - count);
}

}  // namespace cosi
