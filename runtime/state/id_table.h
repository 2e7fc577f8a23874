// IdTable: the resources of one Collection by id — an open-addressing hash table of
// ResourcePtr, which is all a resource costs it: 16 bytes a slot and one byte of tag.
//
//   IdTable table;
//   table.insert(resource);                      // false when the id is taken
//   const ResourcePtr* r = table.find("node-1");  // nullptr when absent
//   ResourcePtr gone = table.erase("node-1");     // null when absent
//
// Slots are probed linearly from the id's home slot. Each slot has a tag byte: 0 when empty,
// else 0x80 | 7 bits of the id's hash, so a probe reads the resource (to compare ids) only on
// a tag match — about once for a hit, rarely for a miss. The hash itself is not kept: growing
// hashes every id again, once per growth. Deleting shifts the rest of the run back, so there
// are no tombstones and a probe stops at the first empty slot. The table grows by half when
// over 7/8 full and never shrinks (like the node-based tables it replaces).
//
// Not thread-safe: the collection's lock guards it. Iteration order is the slots' order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "runtime/resource/resource.h"

namespace cosi {

class IdTable {
 public:
  IdTable() = default;
  IdTable(const IdTable&) = delete;
  IdTable& operator=(const IdTable&) = delete;

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }

  const ResourcePtr* find(std::string_view id) const { return slot_of(id); }
  // The stored pointer, to replace with a resource of the same id.
  ResourcePtr* find(std::string_view id) { return const_cast<ResourcePtr*>(slot_of(id)); }

  // Stores the resource under its id; false (and nothing stored) when the id is taken.
  bool insert(ResourcePtr resource);
  // Removes the resource with this id and returns it; null when there is none.
  ResourcePtr erase(std::string_view id);

  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < capacity_; ++i) {
      if (tags_[i] != 0) f(slots_[i]);
    }
  }

 private:
  static std::size_t hash(std::string_view id) { return std::hash<std::string_view>{}(id); }
  static std::uint8_t tag(std::size_t hash) { return static_cast<std::uint8_t>(0x80 | (hash & 0x7f)); }
  // The hash's high bits scaled to the capacity (any capacity, no modulo).
  std::size_t home(std::size_t hash) const {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(hash) * capacity_) >> 64);
  }
  std::size_t next(std::size_t i) const { return i + 1 == capacity_ ? 0 : i + 1; }

  const ResourcePtr* slot_of(std::string_view id) const;
  void place(ResourcePtr resource, std::size_t hash);  // the id is known to be absent
  void grow();

  std::unique_ptr<std::uint8_t[]> tags_;
  std::unique_ptr<ResourcePtr[]> slots_;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
};

}  // namespace cosi
