// Clock: time as the runtime sees it — now(), and timers that post a task to an executor when
// they fall due. Production uses the steady clock (ThreadPool); tests use ManualClock and move
// time themselves, so backoff and requeue-after run in microseconds of real time.
//
//   TimerId t = clock.schedule(clock.now() + std::chrono::seconds(1), [] { retry(); });
//   clock.cancel(t);   // if it has not fired yet
#pragma once

#include <chrono>
#include <cstdint>

#include "runtime/exec/executor.h"

namespace cosi {

using SteadyTime = std::chrono::steady_clock::time_point;
using Duration = std::chrono::steady_clock::duration;
using TimerId = std::uint64_t;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual SteadyTime now() const = 0;
  // Posts task to the clock's executor once `at` has come.
  virtual TimerId schedule(SteadyTime at, Task task) = 0;
  // Stops a timer that has not fired; a no-op otherwise.
  virtual void cancel(TimerId id) = 0;
};

}  // namespace cosi
