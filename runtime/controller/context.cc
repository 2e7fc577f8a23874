#include "runtime/controller/context.h"

namespace cosi {

Result<ResourcePtr> ControllerReader::get(const Pointer& pointer) {
  if (auto s = rules_->check_read(pointer); !s.ok()) return s.error();
  return state_.get(pointer);
}

Result<std::vector<ResourcePtr>> ControllerReader::list(const Kind& kind, const ListOptions& options) {
  if (auto s = rules_->check_list(kind); !s.ok()) return s.error();
  return state_.list(kind, options);
}

ControllerContext::ControllerContext(State& state, std::shared_ptr<const AccessRules> rules,
                                     const Clock& clock, Logger logger, InputsUpdater update_inputs,
                                     bool track_writes, Waker waker)
    : ControllerReader(state, std::move(rules)),
      clock_(clock),
      logger_(std::move(logger)),
      update_inputs_(std::move(update_inputs)),
      track_writes_(track_writes),
      waker_(std::move(waker)) {}

void ControllerContext::touch(const ResourcePtr& r) {
  if (track_writes_) touched_.insert(r->metadata().pointer());
}

Result<ResourcePtr> ControllerContext::create(ResourcePtr resource) {
  if (auto s = rules_->check_write(resource->metadata().pointer()); !s.ok()) return s.error();
  auto result = state_.create(std::move(resource), {rules_->controller()});
  if (result.ok()) touch(*result);
  return result;
}

Result<ResourcePtr> ControllerContext::update(ResourcePtr resource, std::optional<Phase> expected) {
  if (auto s = rules_->check_write(resource->metadata().pointer()); !s.ok()) return s.error();
  auto result = state_.update(std::move(resource), {rules_->controller(), expected});
  if (result.ok()) touch(*result);
  return result;
}

Result<ResourcePtr> ControllerContext::modify(MutableResourcePtr fresh, const EditFn& fn) {
  return modify(fresh->metadata().pointer(), [&fresh] { return fresh->clone(); }, fn);
}

Result<ResourcePtr> ControllerContext::modify(const Pointer& pointer, const MakeFn& make, const EditFn& fn) {
  if (auto s = rules_->check_write(pointer); !s.ok()) return s.error();
  auto result = cosi::modify(state_, pointer, make, fn, {rules_->controller()});
  if (result.ok()) touch(*result);
  return result;
}

Status ControllerContext::destroy(const Pointer& pointer) {
  if (auto s = rules_->check_write(pointer); !s.ok()) return s;
  return state_.destroy(pointer, {rules_->controller()});
}

Result<bool> ControllerContext::teardown(const Pointer& pointer) {
  if (auto s = rules_->check_write(pointer); !s.ok()) return s.error();
  return cosi::teardown(state_, pointer, rules_->controller());
}

Status ControllerContext::add_finalizer(const Pointer& pointer) {
  if (auto s = rules_->check_finalizer(pointer); !s.ok()) return s;
  return cosi::add_finalizer(state_, pointer, rules_->controller().view());
}

Status ControllerContext::remove_finalizer(const Pointer& pointer) {
  if (auto s = rules_->check_finalizer(pointer); !s.ok()) return s;
  return cosi::remove_finalizer(state_, pointer, rules_->controller().view());
}

Status ControllerContext::keep(const Pointer& pointer) {
  if (auto s = rules_->check_write(pointer); !s.ok()) return s;
  if (track_writes_) touched_.insert(pointer);
  return {};
}

Status ControllerContext::update_inputs(std::vector<Input> inputs) {
  if (!update_inputs_) {
    return Error(ErrorKind::kUnimplemented, "controller \"" + name() + "\": inputs cannot change here");
  }
  auto status = update_inputs_(inputs);
  if (status.ok()) {
    rules_ = std::make_shared<const AccessRules>(rules_->controller(), std::move(inputs),
                                                 rules_->outputs());
  }
  return status;
}

}  // namespace cosi
