#include "controllers/common/child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "controllers/common/spawn.h"

namespace cosi::controllers {

Result<std::unique_ptr<Process>> ChildProcess::start(const std::vector<std::string>& argv, LogRing& log) {
  auto child = spawn_piped(argv, Session::kSame);
  if (!child.ok()) return child.error();
  return std::unique_ptr<Process>(new ChildProcess(child->pid, child->output, log));
}

ChildProcess::ChildProcess(pid_t pid, int output, LogRing& log)
    : pid_(pid), output_(output), log_(log), reader_([this] { pump(); }) {}

void ChildProcess::pump() {
  char buf[8192];
  while (!stopping_) {
    pollfd p{output_, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    const ssize_t n = ::read(output_, buf, sizeof buf);
    if (n <= 0) break;  // every writer has closed it: the program and whatever it started
    log_.write(std::string_view(buf, static_cast<std::size_t>(n)));
  }
  log_.flush();
}

Status ChildProcess::run(const std::vector<std::string>& argv, LogRing& log, std::chrono::milliseconds deadline) {
  auto started = start(argv, log);
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
      return Error(ErrorKind::kDeadlineExceeded, argv.front() + " did not finish in time");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  return Error(ErrorKind::kInternal, argv.front() + " failed with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                                         " (cosictl logs shows what it said)");
}

bool ChildProcess::running() {
  if (exited_) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) exited_ = true;
  return !exited_;
}

ChildProcess::~ChildProcess() {
  if (running()) {
    kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (running() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (running()) {
      kill(pid_, SIGKILL);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
  }
  stopping_ = true;
  if (reader_.joinable()) reader_.join();
  ::close(output_);
}

}  // namespace cosi::controllers
