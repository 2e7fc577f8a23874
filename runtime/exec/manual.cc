#include "runtime/exec/manual.h"

namespace cosi {

void ManualExecutor::post(Task task) {
  std::lock_guard lock(mu_);
  tasks_.push_back(std::move(task));
}

std::size_t ManualExecutor::run_until_idle() {
  std::size_t ran = 0;
  while (true) {
    Task task;
    {
      std::lock_guard lock(mu_);
      if (tasks_.empty()) return ran;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
    ++ran;
  }
}

std::size_t ManualExecutor::pending() const {
  std::lock_guard lock(mu_);
  return tasks_.size();
}

ManualClock::ManualClock(ManualExecutor& executor, SteadyTime start)
    : executor_(executor), now_(start) {}

SteadyTime ManualClock::now() const {
  std::lock_guard lock(mu_);
  return now_;
}

TimerId ManualClock::schedule(SteadyTime at, Task task) {
  std::lock_guard lock(mu_);
  TimerId id = next_id_++;
  timers_.emplace(std::make_pair(at, id), std::move(task));
  return id;
}

void ManualClock::cancel(TimerId id) {
  std::lock_guard lock(mu_);
  for (auto it = timers_.begin(); it != timers_.end(); ++it) {
    if (it->first.second == id) {
      timers_.erase(it);
      return;
    }
  }
}

void ManualClock::advance(Duration d) {
  SteadyTime target;
  {
    std::lock_guard lock(mu_);
    target = now_ + d;
  }
  while (true) {
    Task task;
    {
      std::lock_guard lock(mu_);
      auto it = timers_.begin();
      if (it == timers_.end() || it->first.first > target) {
        now_ = target;
        break;
      }
      if (it->first.first > now_) now_ = it->first.first;
      task = std::move(it->second);
      timers_.erase(it);
    }
    executor_.post(std::move(task));
    executor_.run_until_idle();
  }
  executor_.run_until_idle();
}

std::size_t ManualClock::pending_timers() const {
  std::lock_guard lock(mu_);
  return timers_.size();
}

}  // namespace cosi
