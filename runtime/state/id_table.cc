#include "runtime/state/id_table.h"

#include <utility>

namespace cosi {

const ResourcePtr* IdTable::slot_of(std::string_view id) const {
  if (size_ == 0) return nullptr;
  const std::size_t h = hash(id);
  const std::uint8_t t = tag(h);
  for (std::size_t i = home(h);; i = next(i)) {
    const std::uint8_t s = tags_[i];
    if (s == 0) return nullptr;
    if (s == t && slots_[i]->metadata().id() == id) return &slots_[i];
  }
}

bool IdTable::insert(ResourcePtr resource) {
  const std::string& id = resource->metadata().id();
  if (slot_of(id) != nullptr) return false;
  if ((size_ + 1) * 8 > capacity_ * 7) grow();
  place(std::move(resource), hash(id));
  ++size_;
  return true;
}

void IdTable::place(ResourcePtr resource, std::size_t h) {
  std::size_t i = home(h);
  while (tags_[i] != 0) i = next(i);
  tags_[i] = tag(h);
  slots_[i] = std::move(resource);
}

void IdTable::grow() {
  const std::size_t old_capacity = std::exchange(capacity_, capacity_ < 16 ? 16 : capacity_ + capacity_ / 2);
  auto old_tags = std::exchange(tags_, std::make_unique<std::uint8_t[]>(capacity_));
  auto old_slots = std::exchange(slots_, std::make_unique<ResourcePtr[]>(capacity_));
  // Each id is read from its resource: ask for the resources a few slots ahead, so that the
  // reads overlap instead of waiting for memory one at a time.
  constexpr std::size_t kAhead = 8;
  for (std::size_t i = 0; i < old_capacity; ++i) {
    if (i + kAhead < old_capacity && old_tags[i + kAhead] != 0) __builtin_prefetch(old_slots[i + kAhead].get());
    if (old_tags[i] != 0) {
      const std::size_t h = hash(old_slots[i]->metadata().id());
      place(std::move(old_slots[i]), h);
    }
  }
}

ResourcePtr IdTable::erase(std::string_view id) {
  auto* found = const_cast<ResourcePtr*>(slot_of(id));
  if (found == nullptr) return nullptr;
  std::size_t hole = static_cast<std::size_t>(found - slots_.get());
  ResourcePtr removed = std::move(*found);
  tags_[hole] = 0;
  --size_;
  // Shift back every later member of the run that may live in the hole: one whose home is not
  // cyclically within (hole, j].
  for (std::size_t j = next(hole); tags_[j] != 0; j = next(j)) {
    const std::size_t k = home(hash(slots_[j]->metadata().id()));
    const bool stays = hole < j ? (hole < k && k <= j) : (hole < k || k <= j);
    if (stays) continue;
    tags_[hole] = tags_[j];
    slots_[hole] = std::move(slots_[j]);
    tags_[j] = 0;
    hole = j;
  }
  return removed;
}

}  // namespace cosi
