// How a controller runs a program of its own (etcd, the API server stand-in): a child process
// it starts with arguments and a log file, asks whether it still runs, and stops. machined
// injects the real one (fork/exec, SIGTERM then SIGKILL); unit tests a fake.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::controllers {

class Process {
 public:
  virtual ~Process() = default;  // stops it (SIGTERM, then SIGKILL)
  virtual bool running() = 0;
  virtual int pid() const = 0;
};

// Runs a command to completion (etcdctl snapshot restore) within `deadline`, its output appended
// to `log_path`; kDeadlineExceeded or the exit status as an error.
using CommandRunner = std::function<Status(const std::vector<std::string>& argv, const std::string& log_path,
                                           std::chrono::milliseconds deadline)>;

using ProcessLauncher =
    std::function<Result<std::unique_ptr<Process>>(const std::vector<std::string>& argv, const std::string& log_path)>;

}  // namespace cosi::controllers
