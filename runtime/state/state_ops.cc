#include "runtime/state/state_ops.h"

namespace cosi {
namespace {

// One attempt: fn on a copy of `current`, then the write. kConflict means another writer got
// there first. The owner is options.owner, or the stored owner for finalizer edits.
Result<ResourcePtr> edit_once(State& state, const ResourcePtr& current, const EditFn& fn,
                              const UpdateOptions& options, bool as_stored_owner) {
  const Metadata& md = current->metadata();
  if (options.expected_phase && md.phase() != *options.expected_phase) {
    return Error(ErrorKind::kPhaseConflict,
                 "resource " + md.describe() + " is in phase " + std::string(to_string(md.phase())) +
                     ", expected " + std::string(to_string(*options.expected_phase)));
  }
  MutableResourcePtr next = current->clone();
  if (auto s = fn(*next); !s.ok()) return s.error();
  if (next->same_content(*current)) return current;

  UpdateOptions write = options;
  if (as_stored_owner) write.owner = md.owner();
  return state.update(std::move(next), write);
}

Result<ResourcePtr> edit_loop(State& state, const Pointer& pointer, const EditFn& fn,
                              const UpdateOptions& options, bool as_stored_owner) {
  while (true) {
    auto current = state.get(pointer);
    if (!current.ok()) return current.error();
    auto result = edit_once(state, *current, fn, options, as_stored_owner);
    if (result.ok() || !result.error().is(ErrorKind::kConflict)) return result;
  }
}

}  // namespace

Result<ResourcePtr> update_with_conflicts(State& state, const Pointer& pointer, const EditFn& fn,
                                          const UpdateOptions& options) {
  return edit_loop(state, pointer, fn, options, false);
}

Result<ResourcePtr> modify(State& state, MutableResourcePtr fresh, const EditFn& fn,
                           const ModifyOptions& options) {
  // Each try to create edits a copy: fn may run again on a fresh start after a lost race.
  return modify(state, fresh->metadata().pointer(), [&fresh] { return fresh->clone(); }, fn, options);
}

Result<ResourcePtr> modify(State& state, const Pointer& pointer, const MakeFn& make, const EditFn& fn,
                           const ModifyOptions& options) {
  const UpdateOptions update{options.owner, options.expected_phase};
  while (true) {
    auto current = state.get(pointer);
    if (current.ok()) {
      auto updated = edit_once(state, *current, fn, update, false);
      if (updated.ok()) return updated;
      const Error& e = updated.error();
      if (!e.is(ErrorKind::kConflict) && !e.is(ErrorKind::kNotFound)) return updated;
      continue;  // another writer, or destroyed meanwhile: look again
    }
    if (!current.error().is(ErrorKind::kNotFound)) return current.error();

    MutableResourcePtr created = make();
    if (created == nullptr || created->metadata().pointer() != pointer) {
      return Error(ErrorKind::kInvalidArgument,
                   "modify of " + pointer.to_string() + ": the resource made to create it is " +
                       (created == nullptr ? std::string("null") : created->metadata().pointer().to_string()));
    }
    if (auto s = fn(*created); !s.ok()) return s.error();
    auto result = state.create(std::move(created), {options.owner});
    if (result.ok() || !result.error().is(ErrorKind::kAlreadyExists)) return result;
  }
}

Result<bool> teardown(State& state, const Pointer& pointer, Atom owner) {
  auto result = edit_loop(
      state, pointer,
      [](Resource& r) {
        r.mutable_metadata().set_phase(Phase::kTearingDown);
        return Status();
      },
      UpdateOptions{owner, std::nullopt}, false);
  if (!result.ok()) return result.error();
  return (*result)->metadata().finalizers().empty();
}

Status add_finalizer(State& state, const Pointer& pointer, std::string_view finalizer) {
  auto result = edit_loop(
      state, pointer,
      [finalizer](Resource& r) {
        r.mutable_metadata().mutable_finalizers().add(finalizer);
        return Status();
      },
      UpdateOptions{Atom(), std::nullopt}, true);
  if (!result.ok()) return result.error();
  return {};
}

Status remove_finalizer(State& state, const Pointer& pointer, std::string_view finalizer) {
  auto result = edit_loop(
      state, pointer,
      [finalizer](Resource& r) {
        r.mutable_metadata().mutable_finalizers().remove(finalizer);
        return Status();
      },
      UpdateOptions{Atom(), std::nullopt}, true);
  if (!result.ok()) return result.error();
  return {};
}

namespace conditions {
Condition exists() {
  return [](const ResourcePtr& r) { return r != nullptr; };
}
Condition destroyed() {
  return [](const ResourcePtr& r) { return r == nullptr; };
}
Condition finalizers_empty() {
  return [](const ResourcePtr& r) { return !r || r->metadata().finalizers().empty(); };
}
Condition phase_is(Phase phase) {
  return [phase](const ResourcePtr& r) { return r && r->metadata().phase() == phase; };
}
}  // namespace conditions

Result<ResourcePtr> watch_for(State& state, const Pointer& pointer, const Condition& condition,
                              Deadline deadline) {
  auto watch = state.watch(pointer);
  if (!watch.ok()) return watch.error();
  std::vector<Event> events;
  while ((*watch)->wait(deadline)) {
    events.clear();
    (*watch)->poll(events);
    for (const Event& e : events) {
      if (e.type == EventType::kErrored) {
        return e.error ? *e.error : Error(ErrorKind::kUnavailable, "watch of " + pointer.to_string() + " failed");
      }
      ResourcePtr now = e.type == EventType::kDestroyed ? nullptr : e.resource;
      if (e.type == EventType::kCreated || e.type == EventType::kUpdated ||
          e.type == EventType::kDestroyed) {
        if (condition(now)) return now;
      }
    }
  }
  return Error(ErrorKind::kDeadlineExceeded,
               "resource " + pointer.to_string() + " did not reach the awaited condition in time");
}

Status teardown_and_destroy(State& state, const Pointer& pointer, Atom owner, Deadline deadline) {
  auto ready = teardown(state, pointer, owner);
  if (!ready.ok()) {
    if (ready.error().is(ErrorKind::kNotFound)) return {};
    return ready.error();
  }
  if (!*ready) {
    auto waited = watch_for(state, pointer, conditions::finalizers_empty(), deadline);
    if (!waited.ok()) return waited.error();
    if (!*waited) return {};
  }
  auto destroyed = state.destroy(pointer, {owner});
  if (!destroyed.ok() && destroyed.error().is(ErrorKind::kNotFound)) return {};
  return destroyed;
}

}  // namespace cosi
