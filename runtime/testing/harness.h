// Harness: everything a controller unit test needs, with no threads, no sleeps and no
// timeouts — the real MemoryState and the real Runtime on a manual executor and clock.
//
//   Harness h;
//   REQUIRE(h.add(std::make_unique<GreetingController>()).ok());
//   REQUIRE(h.start().ok());                             // runs every first reconcile
//   h.put(make_resource(Metadata("default", kNames, "alice"), NameSpec{"Alice"}));
//   h.run_until_idle();                                  // everything that follows from it
//   REQUIRE(h.expect(kGreetings.at("alice"), [](const ResourcePtr& r) { ... }).ok());
//   h.fail_next_writes(kGreetings, 1, Error(ErrorKind::kUnavailable, "injected"));
//   h.advance(std::chrono::seconds(1));                  // fires backoff timers
//
// Inputs are arranged with put()/remove() as owner "test", straight into the store.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/base/log.h"
#include "runtime/controller/runtime.h"
#include "runtime/exec/manual.h"
#include "runtime/state/memory_state.h"
#include "runtime/testing/faulty_state.h"

namespace cosi::testing {

inline constexpr std::string_view kTestOwner = "test";

class Harness {
 public:
  Harness();
  ~Harness();

  Status add(std::unique_ptr<Controller> controller) { return runtime_->add(std::move(controller)); }
  Status add(std::unique_ptr<KeyedController> controller) { return runtime_->add(std::move(controller)); }
  // Starts the runtime and runs until idle.
  Status start();

  void run_until_idle() { executor_.run_until_idle(); }
  void advance(Duration d) { clock_.advance(d); }

  // Creates or replaces (same owner) an input resource, then runs until idle.
  Result<ResourcePtr> put(MutableResourcePtr resource, Atom owner = kTestOwner);
  // Tears down and destroys an input (it waits for finalizers only as far as idle goes).
  Status remove(const Pointer& pointer, Atom owner = kTestOwner);

  Status expect(const Pointer& pointer,
                const std::function<bool(const ResourcePtr&)>& predicate = {});
  Status expect_absent(const Pointer& pointer);
  Status expect_count(const Kind& kind, std::size_t count);

  void fail_next_writes(const Kind& kind, int count, Error error) {
    faulty_.fail_next_writes(kind, count, std::move(error));
  }

  MemoryState& store() { return store_; }
  Runtime& runtime() { return *runtime_; }
  ManualClock& clock() { return clock_; }
  std::vector<LogRecord> logs() const;

 private:
  MemoryState store_;
  FaultyState faulty_{store_};
  ManualExecutor executor_;
  ManualClock clock_{executor_};
  mutable std::mutex logs_mu_;
  std::vector<LogRecord> logs_;
  std::unique_ptr<Runtime> runtime_;
};

}  // namespace cosi::testing
