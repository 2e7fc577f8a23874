// The conveniences every State gets, built once on its primitive calls (as COSI's wrap.go):
//
//   update_with_conflicts(state, ptr, fn)  read, edit a copy, write; retry on version conflict
//   modify(state, fresh, fn)               create-or-update through fn
//   modify(state, ptr, make, fn)           the same, making the new resource only to create it
//   teardown(state, ptr)                   phase → tearingDown; ready when no finalizers
//   add_finalizer / remove_finalizer       by anyone, in any phase, never losing a concurrent edit
//   watch_for(state, ptr, condition, deadline)
//   teardown_and_destroy(state, ptr, deadline)
//
//   auto r = modify(state, make_resource<Counter>(Metadata(ns, type, "c"), {}),
//                   [](Resource& r) { ++typed<Counter>(r).value; return Status(); },
//                   {.owner = "counter"});
//
// An edit that changes nothing writes nothing: no version bump, no event.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string_view>

#include "runtime/resource/typed_resource.h"
#include "runtime/state/state.h"

namespace cosi {

using Deadline = std::chrono::steady_clock::time_point;
using EditFn = std::function<Status(Resource&)>;

// The spec of a resource known to be a TypedResource<Spec>, for edit functions.
template <class Spec>
Spec& typed(Resource& resource) {
  return static_cast<TypedResource<Spec>&>(resource).mutable_spec();
}

// Reads the resource, applies fn to a copy and writes it back with the stored owner unless
// options.owner says otherwise; retries when another writer got there first. fn may run
// several times. Returns the stored resource (unchanged when fn changed nothing).
Result<ResourcePtr> update_with_conflicts(State& state, const Pointer& pointer, const EditFn& fn,
                                          const UpdateOptions& options);

struct ModifyOptions {
  Atom owner;
  std::optional<Phase> expected_phase = Phase::kRunning;  // of an existing resource
};

// Creates `fresh` after applying fn to it when its id does not exist yet, else updates the
// existing resource through fn. Owner checks apply as for update.
Result<ResourcePtr> modify(State& state, MutableResourcePtr fresh, const EditFn& fn,
                           const ModifyOptions& options);

// The same, with the new resource made by `make` only when `pointer` does not exist (at each
// try to create it): a modify of an existing resource then copies the stored one and builds
// nothing else. What `make` returns must be at `pointer` (kInvalidArgument otherwise).
using MakeFn = std::function<MutableResourcePtr()>;
Result<ResourcePtr> modify(State& state, const Pointer& pointer, const MakeFn& make, const EditFn& fn,
                           const ModifyOptions& options);

// Moves the resource to tearingDown (no write when it already is). Returns true when it has no
// finalizers left, i.e. it may be destroyed now.
Result<bool> teardown(State& state, const Pointer& pointer, Atom owner);

Status add_finalizer(State& state, const Pointer& pointer, std::string_view finalizer);
Status remove_finalizer(State& state, const Pointer& pointer, std::string_view finalizer);

// Condition on a resource's current state; null means it does not exist.
using Condition = std::function<bool(const ResourcePtr&)>;

namespace conditions {
Condition exists();
Condition destroyed();
Condition finalizers_empty();  // true for a missing resource too
Condition phase_is(Phase phase);
}  // namespace conditions

// Waits until the resource satisfies the condition; returns its state then (null when absent).
// kDeadlineExceeded when the deadline passes first.
Result<ResourcePtr> watch_for(State& state, const Pointer& pointer, const Condition& condition,
                              Deadline deadline);

// Teardown, wait until the finalizers are gone, destroy. A missing resource is not an error.
Status teardown_and_destroy(State& state, const Pointer& pointer, Atom owner, Deadline deadline);

}  // namespace cosi
