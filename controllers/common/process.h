// How a controller runs a program of its own (etcd, the API server stand-in): a child process
// it starts with arguments and the name of its service log, asks whether it still runs, and
// stops. machined injects the real one (child_process.h: fork/exec, output into the service's
// LogRing, SIGTERM then SIGKILL); unit tests a fake.
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

// Runs a command to completion (etcdctl snapshot restore) within `deadline`, its output going to
// the service log named `log` ("etcd"); kDeadlineExceeded or the exit status as an error.
using CommandRunner = std::function<Status(const std::vector<std::string>& argv, const std::string& log,
                                           std::chrono::milliseconds deadline)>;

// Starts a program whose output goes to the service log named `log` ("etcd", "apiserver": what
// `cosictl logs` shows).
using ProcessLauncher =
    std::function<Result<std::unique_ptr<Process>>(const std::vector<std::string>& argv, const std::string& log)>;

}  // namespace cosi::controllers
