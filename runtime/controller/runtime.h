// Runtime: runs controllers against a State. One store watch per (namespace, type) feeds a
// routing table built from the controllers' inputs; every controller reconciles once at start
// and then whenever its inputs change.
//
//   MemoryState state;
//   ThreadPool pool(2);                         // or ManualExecutor + ManualClock in tests
//   Runtime runtime(state, pool, pool);
//   runtime.add(std::make_unique<IdentityController>());
//   runtime.add(std::make_unique<MemberController>());
//   runtime.start();
//   ...
//   runtime.stop(std::chrono::seconds(5));      // stop taking work, let reconciles finish
//
// Whole-set controllers run one pass at a time; changes during a pass wake it once more after.
// Per-key controllers run up to concurrency() keys at once, never one key twice at once.
// Failures (retry, or an exception — counted as a crash) back off per key: 0.5 s doubling to
// 1 min, with jitter, reset by a success. Nothing a controller does ends the process or stops
// another controller.
//
// Registries belong to the runtime: two runtimes in one process share nothing.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/log.h"
#include "runtime/base/result.h"
#include "runtime/controller/backoff.h"
#include "runtime/controller/controller.h"
#include "runtime/controller/dependency_graph.h"
#include "runtime/exec/clock.h"
#include "runtime/metrics/registry.h"
#include "runtime/state/state.h"

namespace cosi {

struct RuntimeOptions {
  Logger logger;
  BackoffPolicy backoff;
  // Called after every reconcile, on the thread that ran it (tracing, tests waiting for
  // progress). Must be quick and must not call into the runtime.
  std::function<void(const std::string& controller, ReconcileResult::Kind result)> on_reconcile;
};

class Runtime {
 public:
  Runtime(State& state, Executor& executor, Clock& clock, RuntimeOptions options = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Before start(). kInvalidArgument for a declaration the dependency graph refuses.
  Status add(std::unique_ptr<Controller> controller);
  Status add(std::unique_ptr<KeyedController> controller);

  Status start();
  // Stops taking work and waits up to `grace` for running reconciles. kDeadlineExceeded when
  // some are still running then. Must not be called from a controller.
  Status stop(Duration grace);

  metrics::Registry& metrics();
  std::vector<DependencyEdge> dependencies() const;
  std::string dependencies_dot() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace cosi
