// ControllerContext: the store as one controller sees it during a reconcile. Every call is
// checked against the controller's AccessRules and every write is stamped with its name as
// owner; writes of the pass are remembered so the runtime can destroy the outputs the
// controller no longer wants.
//
//   ReconcileResult reconcile(ControllerContext& ctx) override {
//     auto members = ctx.list(kMembers);
//     if (!members.ok()) return ReconcileResult::retry(members.error());
//     auto r = ctx.modify<EndpointSpec>(Metadata("k8s", kEndpoints, "cluster"),
//                                       [&](EndpointSpec& spec) { spec.hosts = ...; });
//     if (!r.ok()) return ReconcileResult::retry(r.error());
//     return ReconcileResult::done();
//   }
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "runtime/base/log.h"
#include "runtime/controller/access.h"
#include "runtime/exec/clock.h"
#include "runtime/resource/typed_resource.h"
#include "runtime/state/state.h"
#include "runtime/state/state_ops.h"

namespace cosi {

// Reads only: what map() of a keyed controller gets.
class ControllerReader {
 public:
  ControllerReader(State& state, std::shared_ptr<const AccessRules> rules)
      : state_(state), rules_(std::move(rules)) {}

  Result<ResourcePtr> get(const Pointer& pointer);
  Result<std::vector<ResourcePtr>> list(const Kind& kind, const ListOptions& options = {});

  // The typed resource, or kNotFound; kInvalidArgument when it holds another spec type.
  template <class Spec>
  Result<std::shared_ptr<const TypedResource<Spec>>> get_typed(const Pointer& pointer) {
    auto r = get(pointer);
    if (!r.ok()) return r.error();
    auto typed = resource_cast<Spec>(*r);
    if (!typed) {
      return Error(ErrorKind::kInvalidArgument, "resource " + pointer.to_string() + " has another spec type");
    }
    return typed;
  }

  const std::string& name() const { return rules_->controller().str(); }

 protected:
  State& state_;
  std::shared_ptr<const AccessRules> rules_;
};

class ControllerContext : public ControllerReader {
 public:
  // Called by update_inputs(); the runtime re-routes events and checks the new list.
  using InputsUpdater = std::function<Status(std::vector<Input>)>;
  // Asks for another pass of this controller. Safe from any thread, at any time, also after
  // the runtime has stopped (then it does nothing).
  using Waker = std::function<void()>;

  // `track_writes`: remember the outputs written in the pass (whole-set controllers, whose
  // untouched outputs the runtime cleans up).
  ControllerContext(State& state, std::shared_ptr<const AccessRules> rules, const Clock& clock,
                    Logger logger, InputsUpdater update_inputs = {}, bool track_writes = true,
                    Waker waker = {});
  virtual ~ControllerContext() = default;

  Result<ResourcePtr> create(ResourcePtr resource);
  // Updates a resource this controller owns; the stored phase must be `expected` (running by
  // default; nullopt accepts any).
  Result<ResourcePtr> update(ResourcePtr resource,
                             std::optional<Phase> expected = Phase::kRunning);
  // Creates `fresh` through fn, or updates the existing resource through fn.
  Result<ResourcePtr> modify(MutableResourcePtr fresh, const EditFn& fn);
  // The same, making the new resource (by `make`) only when `pointer` does not exist yet.
  Result<ResourcePtr> modify(const Pointer& pointer, const MakeFn& make, const EditFn& fn);
  // Creates a Spec{} at `metadata` through edit, or updates the existing one through edit; an
  // existing resource is copied once, and no new one is built.
  template <class Spec>
  Result<ResourcePtr> modify(Metadata metadata, std::function<void(Spec&)> edit) {
    return modify(
        metadata.pointer(), [&metadata] { return make_resource(metadata, Spec{}); },
        [&](Resource& r) {
          edit(typed<Spec>(r));
          return Status();
        });
  }
  Status destroy(const Pointer& pointer);
  // Moves an owned resource to tearingDown; true when no finalizers are left.
  virtual Result<bool> teardown(const Pointer& pointer);
  // Finalizers named after this controller, on resources of a Strong input. (Virtual: a plugin
  // forwards these to its host, which edits finalizers on resources the plugin does not own.)
  virtual Status add_finalizer(const Pointer& pointer);
  virtual Status remove_finalizer(const Pointer& pointer);

  // Marks an output as wanted this pass without writing it, so the clean-up keeps it.
  Status keep(const Pointer& pointer);

  // Replaces the controller's inputs from the next event on.
  Status update_inputs(std::vector<Input> inputs);

  // For a controller that owns an outside source of changes (a stream from another service):
  // keep the waker and call it when the source has news. Whole-set controllers only; empty
  // for the others.
  const Waker& waker() const { return waker_; }

  SteadyTime now() const { return clock_.now(); }
  const Logger& log() const { return logger_; }

  // The outputs written during this pass (for the runtime's clean-up).
  const std::set<Pointer>& touched() const { return touched_; }

 private:
  void touch(const ResourcePtr& r);

  const Clock& clock_;
  Logger logger_;
  InputsUpdater update_inputs_;
  bool track_writes_;
  Waker waker_;
  std::set<Pointer> touched_;
};

}  // namespace cosi
