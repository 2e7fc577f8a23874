// ChildProcess: a program machined supervises (etcd): started with its output appended to a
// log file, polled for exit, stopped with SIGTERM and then SIGKILL when destroyed.
//
//   auto etcd = ChildProcess::start({"etcd", "--name=cp-1", ...}, "/var/lib/machined/etcd/etcd.log");
//   (*etcd)->running();
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "controllers/common/process.h"

namespace cosi::machined {

class ChildProcess final : public controllers::Process {
 public:
  static Result<std::unique_ptr<controllers::Process>> start(const std::vector<std::string>& argv, const std::string& log_path);
  // Runs to completion within `deadline` (killed after it): kDeadlineExceeded, or an error
  // naming the exit status.
  static Status run(const std::vector<std::string>& argv, const std::string& log_path, std::chrono::milliseconds deadline);
  ~ChildProcess() override;

  bool running() override;
  int pid() const override { return pid_; }

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  bool exited_ = false;
};

}  // namespace cosi::machined
