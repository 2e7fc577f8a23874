#include "runtime/testing/faulty_state.h"

namespace cosi::testing {

void FaultyState::fail_next_writes(const Kind& kind, int count, Error error) {
  std::lock_guard lock(mu_);
  faults_.insert_or_assign(kind, Fault{count, std::move(error)});
}

std::optional<Error> FaultyState::take_fault(const Kind& kind) {
  std::lock_guard lock(mu_);
  auto it = faults_.find(kind);
  if (it == faults_.end()) return std::nullopt;
  Error error = it->second.error;
  if (--it->second.remaining <= 0) faults_.erase(it);
  return error;
}

Result<ResourcePtr> FaultyState::create(ResourcePtr resource, const CreateOptions& options) {
  if (auto e = take_fault(resource->metadata().kind())) return *e;
  return inner_.create(std::move(resource), options);
}

Result<ResourcePtr> FaultyState::update(ResourcePtr resource, const UpdateOptions& options) {
  if (auto e = take_fault(resource->metadata().kind())) return *e;
  return inner_.update(std::move(resource), options);
}

Status FaultyState::destroy(const Pointer& pointer, const DestroyOptions& options) {
  if (auto e = take_fault(pointer.kind())) return *e;
  return inner_.destroy(pointer, options);
}

}  // namespace cosi::testing
