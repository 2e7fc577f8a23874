// Executor: where the runtime runs its work. Production posts to a thread pool (ThreadPool);
// tests post to a ManualExecutor and drain it on their own thread, deterministically.
//
//   executor.post([] { reconcile(); });
#pragma once

#include <functional>

namespace cosi {

using Task = std::function<void()>;

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs task later, on some thread of the executor. Never runs it inline.
  virtual void post(Task task) = 0;
};

}  // namespace cosi
