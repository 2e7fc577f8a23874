// ChildProcess: a program machined supervises (etcd, the API server stand-in): its output —
// stdout and stderr — read into the service's LogRing as it comes (so no log file grows without
// bound), polled for exit, stopped with SIGTERM and then SIGKILL when destroyed.
//
//   auto etcd = ChildProcess::start({"etcd", "--name=cp-1", ...}, logs.ring("etcd"));
//   (*etcd)->running();
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "controllers/common/log_ring.h"
#include "controllers/common/process.h"

namespace cosi::controllers {

class ChildProcess final : public Process {
 public:
  static Result<std::unique_ptr<Process>> start(const std::vector<std::string>& argv, LogRing& log);
  // Runs to completion within `deadline` (killed after it): kDeadlineExceeded, or an error
  // naming the exit status.
  static Status run(const std::vector<std::string>& argv, LogRing& log, std::chrono::milliseconds deadline);
  ~ChildProcess() override;

  bool running() override;
  int pid() const override { return pid_; }

 private:
  ChildProcess(pid_t pid, int output, LogRing& log);
  void pump();

  pid_t pid_;
  bool exited_ = false;
  int output_;
  LogRing& log_;
  std::atomic<bool> stopping_{false};
  std::thread reader_;  // reads output_ into log_ until it ends or stopping_
};

}  // namespace cosi::controllers
