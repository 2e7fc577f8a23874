// MemoryState: the in-memory State. Resources are grouped by kind (namespace, type); each
// kind has its own lock, history and watchers, so writers of different kinds never contend.
// Reads hand out the stored snapshots (no copy); a write moved in is stored as is.
//
//   MemoryState state;                                  // or MemoryState({.history = 4096})
//   state.create(make_resource<Greeting>(Metadata("default", "Greetings.test.dev", "hi"),
//                                        {"hello"}),
//                {.owner = "greeter"});
//   for (const auto& [kind, s] : state.stats()) ...      // resources, watchers, coalesced
//
// A watcher that falls behind never hurts anyone: past its buffer its events coalesce per
// resource (EventBuffer), so memory stays bounded and writers never wait.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/state/collection.h"
#include "runtime/state/kind_index.h"
#include "runtime/state/state.h"

namespace cosi {

struct MemoryStateOptions {
  std::size_t history = 1024;       // events kept per kind for tail_events and bookmarks
  std::size_t watch_buffer = 1024;  // events a watcher may hold before they coalesce
  std::function<Timestamp()> wall_clock;  // created/updated times; system clock when empty
};

class MemoryState final : public State {
 public:
  explicit MemoryState(MemoryStateOptions options = {});
  ~MemoryState() override;

  Result<ResourcePtr> get(const Pointer& pointer) override;
  // The same as get(kind.at(id)) without building a Pointer (no copy of the id): the hot path
  // of a caller that holds the kind and a view of the id.
  Result<ResourcePtr> get(const Kind& kind, std::string_view id);
  Result<std::vector<ResourcePtr>> list(const Kind& kind, const ListOptions& options = {}) override;
  Result<ResourcePtr> create(ResourcePtr resource, const CreateOptions& options = {}) override;
  Result<ResourcePtr> update(ResourcePtr resource, const UpdateOptions& options = {}) override;
  Status destroy(const Pointer& pointer, const DestroyOptions& options = {}) override;
  Result<WatchPtr> watch(const Pointer& pointer, const WatchOptions& options = {}) override;
  Result<WatchPtr> watch_kind(const Kind& kind, const WatchKindOptions& options = {}) override;

  std::vector<std::pair<Kind, CollectionStats>> stats() const;

 private:
  Timestamp now() const;

  const MemoryStateOptions options_;
  KindIndex kinds_;
};

}  // namespace cosi
