// ManualExecutor and ManualClock: execution and time under a test's control. Nothing runs
// until the test says so, on the test's own thread, in a deterministic order.
//
//   ManualExecutor executor;
//   ManualClock clock(executor);
//   executor.post(work);
//   executor.run_until_idle();                  // runs work and whatever it posts
//   clock.advance(std::chrono::seconds(30));    // fires due timers in time order, draining
//                                               // the executor after each
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <utility>

#include "runtime/base/thread_annotations.h"
#include "runtime/exec/clock.h"

namespace cosi {

class ManualExecutor final : public Executor {
 public:
  // Thread-safe: store notifications may post from any thread.
  void post(Task task) override;

  // Runs tasks, including those they post, until none is left. Returns how many ran.
  std::size_t run_until_idle();
  std::size_t pending() const;

 private:
  mutable std::mutex mu_;
  std::deque<Task> tasks_ COSI_GUARDED_BY(mu_);
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(ManualExecutor& executor, SteadyTime start = SteadyTime{} + std::chrono::hours(1));

  SteadyTime now() const override;
  TimerId schedule(SteadyTime at, Task task) override;
  void cancel(TimerId id) override;

  // Moves time forward by d. Each timer due on the way fires at its own time: time moves to
  // it, its task is posted, the executor runs until idle; then on to the next.
  void advance(Duration d);
  std::size_t pending_timers() const;

 private:
  ManualExecutor& executor_;
  mutable std::mutex mu_;
  SteadyTime now_ COSI_GUARDED_BY(mu_);
  TimerId next_id_ COSI_GUARDED_BY(mu_) = 1;
  // Ordered by (due time, id): timers due at the same time fire in the order they were set.
  std::map<std::pair<SteadyTime, TimerId>, Task> timers_ COSI_GUARDED_BY(mu_);
};

}  // namespace cosi
