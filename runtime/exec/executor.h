// Executor: where the runtime runs its work. Production posts to a thread pool (ThreadPool);
// tests post to a ManualExecutor and drain it on their own thread, deterministically.
//
//   executor.post([] { reconcile(); });
#pragma once

#include <functional>
#include <utility>

namespace cosi {

using Task = std::function<void()>;

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs task later, on some thread of the executor. Never runs it inline.
  virtual void post(Task task) = 0;
  // Runs task later, as the continuation of the task now running: called from one of the
  // executor's threads, the task runs on that thread once the current task returns, and no
  // other thread is woken for it (a hand-off costs a wake-up, several microseconds). For
  // short tasks that start others. Elsewhere, and by default, the same as post().
  virtual void defer(Task task) { post(std::move(task)); }
};

}  // namespace cosi
