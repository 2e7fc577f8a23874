// KindIndex: the map from kind to its Collection, read on every call and written only when a
// kind is first used. A read is one atomic load and a probe of a small open-addressed table —
// no lock, no reference count, a handful of instructions. A write builds a new table under a
// mutex and publishes it; superseded tables are kept until the index is destroyed (a reader
// may still be probing one), which costs memory quadratic in the number of kinds — a few dozen
// in practice.
//
//   KindIndex index(make_collection);
//   Collection* c = index.find(kind);        // nullptr when the kind was never used
//   Collection* d = index.find_or_add(kind);  // creates it
//
// Collections are owned by shared_ptr (watches keep theirs alive) and are never removed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/base/thread_annotations.h"
#include "runtime/state/collection.h"

namespace cosi {

class KindIndex {
 public:
  using Factory = std::function<std::shared_ptr<Collection>(const Kind&)>;

  explicit KindIndex(Factory factory);

  Collection* find(const Kind& kind) const {
    const Table* table = current_.load(std::memory_order_acquire);
    for (std::size_t i = slot_of(kind, table->mask);; i = (i + 1) & table->mask) {
      const Entry& e = table->entries[i];
      if (e.collection == nullptr) return nullptr;
      if (e.kind == kind) return e.collection;
    }
  }

  Collection* find_or_add(const Kind& kind);
  std::shared_ptr<Collection> share(const Collection* collection) const;
  std::vector<std::shared_ptr<Collection>> all() const;

 private:
  struct Entry {
    Kind kind;
    Collection* collection = nullptr;
  };
  struct Table {
    std::size_t mask;  // size - 1; size is a power of two, at most half full
    std::vector<Entry> entries;
  };

  static std::size_t slot_of(const Kind& kind, std::size_t mask) {
    auto a = reinterpret_cast<std::uintptr_t>(kind.ns.identity());
    auto b = reinterpret_cast<std::uintptr_t>(kind.type.identity());
    return static_cast<std::size_t>(((a >> 4) * 0x9e3779b97f4a7c15ULL) ^ (b >> 4)) & mask;
  }

  const Factory factory_;
  std::atomic<const Table*> current_;
  mutable std::mutex mu_;  // writers
  std::vector<std::unique_ptr<const Table>> tables_ COSI_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<Collection>> owned_ COSI_GUARDED_BY(mu_);
};

}  // namespace cosi
