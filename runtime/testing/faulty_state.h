// FaultyState: a State that forwards to another and fails chosen writes — how a controller
// test shows what a controller does when the store says no.
//
//   FaultyState faulty(memory);
//   faulty.fail_next_writes(kMembers, 2, Error(ErrorKind::kUnavailable, "injected"));
//   // the next two create/update/destroy calls on Members fail with that error
#pragma once

#include <map>
#include <mutex>

#include "runtime/base/thread_annotations.h"
#include "runtime/state/state.h"

namespace cosi::testing {

class FaultyState final : public State {
 public:
  explicit FaultyState(State& inner) : inner_(inner) {}

  void fail_next_writes(const Kind& kind, int count, Error error);

  Result<ResourcePtr> get(const Pointer& pointer) override { return inner_.get(pointer); }
  Result<std::vector<ResourcePtr>> list(const Kind& kind, const ListOptions& options = {}) override {
    return inner_.list(kind, options);
  }
  Result<ResourcePtr> create(ResourcePtr resource, const CreateOptions& options = {}) override;
  Result<ResourcePtr> update(ResourcePtr resource, const UpdateOptions& options = {}) override;
  Status destroy(const Pointer& pointer, const DestroyOptions& options = {}) override;
  Result<WatchPtr> watch(const Pointer& pointer, const WatchOptions& options = {}) override {
    return inner_.watch(pointer, options);
  }
  Result<WatchPtr> watch_kind(const Kind& kind, const WatchKindOptions& options = {}) override {
    return inner_.watch_kind(kind, options);
  }

 private:
  struct Fault {
    int remaining;
    Error error;
  };
  std::optional<Error> take_fault(const Kind& kind);

  State& inner_;
  std::mutex mu_;
  std::map<Kind, Fault> faults_ COSI_GUARDED_BY(mu_);
};

}  // namespace cosi::testing
