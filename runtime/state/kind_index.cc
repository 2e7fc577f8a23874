#include "runtime/state/kind_index.h"

#include <algorithm>

namespace cosi {

KindIndex::KindIndex(Factory factory) : factory_(std::move(factory)) {
  tables_.push_back(std::make_unique<const Table>(Table{7, std::vector<Entry>(8)}));
  current_.store(tables_.back().get(), std::memory_order_release);
}

Collection* KindIndex::find_or_add(const Kind& kind) {
  if (Collection* c = find(kind)) return c;
  std::lock_guard lock(mu_);
  if (Collection* c = find(kind)) return c;

  auto collection = factory_(kind);
  owned_.push_back(collection);
  std::size_t size = 8;
  while (size < owned_.size() * 2) size *= 2;
  auto table = std::make_unique<Table>(Table{size - 1, std::vector<Entry>(size)});
  for (const auto& c : owned_) {
    std::size_t i = slot_of(c->kind(), table->mask);
    while (table->entries[i].collection != nullptr) i = (i + 1) & table->mask;
    table->entries[i] = Entry{c->kind(), c.get()};
  }
  tables_.push_back(std::move(table));
  current_.store(tables_.back().get(), std::memory_order_release);
  return collection.get();
}

std::shared_ptr<Collection> KindIndex::share(const Collection* collection) const {
  std::lock_guard lock(mu_);
  auto it = std::find_if(owned_.begin(), owned_.end(),
                         [&](const auto& c) { return c.get() == collection; });
  return it == owned_.end() ? nullptr : *it;
}

std::vector<std::shared_ptr<Collection>> KindIndex::all() const {
  std::lock_guard lock(mu_);
  return owned_;
}

}  // namespace cosi
