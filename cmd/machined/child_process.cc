#include "cmd/machined/child_process.h"

#include "cmd/common/spawn.h"

#include <signal.h>
#include <sys/wait.h>

#include <thread>

namespace cosi::machined {

Result<std::unique_ptr<controllers::Process>> ChildProcess::start(const std::vector<std::string>& argv,
                                                                      const std::string& log_path) {
  auto pid = cmd::spawn_logged(argv, log_path, cmd::Session::kSame);
  if (!pid.ok()) return pid.error();
  return std::unique_ptr<controllers::Process>(new ChildProcess(*pid));
}

Status ChildProcess::run(const std::vector<std::string>& argv, const std::string& log_path, std::chrono::milliseconds deadline) {
  auto started = start(argv, log_path);
  if (!started.ok()) return started.error();
  auto* child = static_cast<ChildProcess*>(started->get());
  const auto until = std::chrono::steady_clock::now() + deadline;
  int status = 0;
  while (true) {
    const pid_t done = waitpid(child->pid_, &status, WNOHANG);
    if (done == child->pid_) {
      child->exited_ = true;
      break;
    }
    if (std::chrono::steady_clock::now() >= until) {
      return Error(ErrorKind::kDeadlineExceeded, argv.front() + " did not finish in time (see " + log_path + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  return Error(ErrorKind::kInternal, argv.front() + " failed with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                                         " (see " + log_path + ")");
}

bool ChildProcess::running() {
  if (exited_) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) exited_ = true;
  return !exited_;
}

ChildProcess::~ChildProcess() {
  if (!running()) return;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (running() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (running()) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

}  // namespace cosi::machined
