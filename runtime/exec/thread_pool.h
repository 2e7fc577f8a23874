// ThreadPool: the production Executor and Clock — an Asio thread pool and the steady clock,
// with timers on the pool. Asio stays inside thread_pool.cc.
//
//   ThreadPool pool(2);
//   Runtime runtime(state, pool, pool);
//   ...
//   pool.stop();   // finishes running tasks, drops queued ones, joins the threads
#pragma once

#include <cstddef>
#include <memory>

#include "runtime/exec/clock.h"

namespace cosi {

class ThreadPool final : public Executor, public Clock {
 public:
  explicit ThreadPool(std::size_t threads);
  ~ThreadPool() override;

  void post(Task task) override;
  void defer(Task task) override;
  SteadyTime now() const override;
  TimerId schedule(SteadyTime at, Task task) override;
  void cancel(TimerId id) override;

  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosi
