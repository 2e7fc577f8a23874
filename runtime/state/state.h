// State: the resource store. A small interface — get, list, create, update, destroy and two
// kinds of watch — that every backend implements (MemoryState here; a gRPC client later), and
// that state_ops.h builds every convenience on (teardown, finalizers, modify, watch_for...).
//
//   MemoryState state;
//   auto r = make_resource<Greeting>(Metadata("default", "Greetings.test.dev", "hi"), {"hello"});
//   state.create(std::move(r), {.owner = "greeter"});                   // version 1
//   ResourcePtr stored = *state.get(Pointer{"default", "Greetings.test.dev", "hi"});
//   auto next = stored->clone(); ...edit next...
//   state.update(std::move(next), {.owner = "greeter"});                // version 2
//
// Semantics every backend keeps:
// - Create stores version 1 with the caller's owner; an existing id is kAlreadyExists.
// - Update needs the caller's version to equal the stored one (else kConflict), the caller to
//   be the owner (else kOwnerConflict) and the stored phase to be the expected one (default
//   running; nullopt accepts any; else kPhaseConflict). It stores version+1. An update that
//   changes nothing (Resource::same_content) is not a write: no new version, no event.
// - Destroy needs the owner and no finalizers (else kPendingFinalizers).
// - List is sorted by id. Label queries are OR-ed, the terms of each AND-ed.
// - Errors name the resource: "Members.cluster.talos.dev(cluster/n1) ...".
//
// Writes take a ResourcePtr by value: pass it with std::move and the store keeps the object
// itself instead of copying it.
#pragma once

#include <optional>
#include <vector>

#include "runtime/base/result.h"
#include "runtime/resource/id_query.h"
#include "runtime/resource/label_query.h"
#include "runtime/resource/resource.h"
#include "runtime/state/watch.h"

namespace cosi {

struct CreateOptions {
  Atom owner;
};

struct UpdateOptions {
  Atom owner;
  std::optional<Phase> expected_phase = Phase::kRunning;  // nullopt: any phase
};

struct DestroyOptions {
  Atom owner;
};

struct ListOptions {
  std::vector<LabelQuery> label_queries;  // OR-ed; empty selects all
  std::optional<IDQuery> id_query;
};

// Watch of one resource. Without tail_events or a bookmark the first event is the current
// state: Created(resource), or Destroyed(tombstone) when it does not exist.
struct WatchOptions {
  int tail_events = 0;  // replay this resource's last N events from history first
  std::optional<Bookmark> start_from_bookmark;
  std::size_t buffer = 0;  // events held before coalescing; 0 = the store's default
};

// Watch of a kind. bootstrap_contents sends every matching resource as Created, then a
// Bootstrapped marker carrying a bookmark. At most one of bootstrap_contents, tail_events and
// start_from_bookmark. With label or id queries, an update that leaves the selection is
// delivered as Destroyed and one that enters it as Created.
struct WatchKindOptions {
  bool bootstrap_contents = false;
  int tail_events = 0;
  std::optional<Bookmark> start_from_bookmark;
  std::vector<LabelQuery> label_queries;
  std::optional<IDQuery> id_query;
  std::size_t buffer = 0;
};

class State {
 public:
  virtual ~State() = default;

  virtual Result<ResourcePtr> get(const Pointer& pointer) = 0;
  virtual Result<std::vector<ResourcePtr>> list(const Kind& kind,
                                                const ListOptions& options = {}) = 0;
  virtual Result<ResourcePtr> create(ResourcePtr resource, const CreateOptions& options = {}) = 0;
  virtual Result<ResourcePtr> update(ResourcePtr resource, const UpdateOptions& options = {}) = 0;
  virtual Status destroy(const Pointer& pointer, const DestroyOptions& options = {}) = 0;

  virtual Result<WatchPtr> watch(const Pointer& pointer, const WatchOptions& options = {}) = 0;
  virtual Result<WatchPtr> watch_kind(const Kind& kind, const WatchKindOptions& options = {}) = 0;
};

}  // namespace cosi
