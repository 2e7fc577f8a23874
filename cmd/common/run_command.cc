#include "cmd/common/run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cosi::cmd {

namespace {

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

Result<std::string> run_command(const std::vector<std::string>& argv, std::chrono::milliseconds deadline) {
  if (argv.empty()) return Error(ErrorKind::kInvalidArgument, "nothing to run");
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return Error(ErrorKind::kInternal, std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return Error(ErrorKind::kInternal, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    dup2(pipe_fds[1], 1);
    dup2(pipe_fds[1], 2);
    close_range(3, ~0u, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  const auto until = std::chrono::steady_clock::now() + deadline;
  std::string output;
  bool timed_out = false;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{pipe_fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) < 0 && errno != EINTR) break;
    char buf[4096];
    const ssize_t n = read(pipe_fds[0], buf, sizeof buf);
    if (n == 0) break;
    if (n > 0) output.append(buf, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out) {
    return Error(ErrorKind::kDeadlineExceeded, command_line(argv) + ": no result within " + std::to_string(deadline.count()) + " ms");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    while (!output.empty() && output.back() == '\n') output.pop_back();
    return Error(ErrorKind::kInternal, command_line(argv) + " failed (status " +
                                           std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + "): " + output);
  }
  return output;
}

}  // namespace cosi::cmd
