// The world a runtime conformance test runs in. The same cases run twice: on the manual
// harness (ManualExecutor + ManualClock: deterministic, time moved by the test) and on a real
// ThreadPool with the steady clock (timing and threads for real, backoff shortened).
//
//   auto env = make_env();
//   env->runtime().add(...); env->start();
//   env->put(make_int("a", 1));
//   REQUIRE(env->settle([&] { return env->exists(kStrings.at("a")); }));
//   env->settle(done, /*time=*/std::chrono::seconds(2));   // manual: moves time 2 s
//
// settle() never sleeps: the manual env runs until idle; the threaded one waits on store
// writes (a condition variable signalled by every write) until the condition holds or 10 s.
#pragma once

#include <functional>
#include <memory>

#include "runtime/controller/runtime.h"
#include "runtime/state/state.h"

namespace cosi::testing {

class RuntimeEnv {
 public:
  virtual ~RuntimeEnv() = default;
  virtual State& state() = 0;
  virtual Runtime& runtime() = 0;
  virtual Status start() = 0;
  virtual bool settle(const std::function<bool()>& done, Duration time = Duration::zero()) = 0;
  // The backoff delay of the first retry in this env.
  virtual Duration first_backoff() const = 0;
  virtual bool deterministic() const = 0;

  Result<ResourcePtr> put(MutableResourcePtr resource);
  Status remove(const Pointer& pointer);  // teardown now; destroy once finalizers are gone
  bool exists(const Pointer& pointer);
  ResourcePtr get(const Pointer& pointer);
  std::size_t count(const Kind& kind);
  double metric(const std::string& line_prefix);
};

std::unique_ptr<RuntimeEnv> make_manual_env();
std::unique_ptr<RuntimeEnv> make_threaded_env();

}  // namespace cosi::testing
