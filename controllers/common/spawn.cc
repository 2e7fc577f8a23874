#include "controllers/common/spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cosi::controllers {

namespace {

// In the child: stdin from /dev/null, stdout and stderr to `out`, no other descriptor, no
// blocked signal, then the program.
[[noreturn]] void exec_child(const std::vector<char*>& args, int out) {
  const int null = open("/dev/null", O_RDONLY);
  dup2(null, 0);
  dup2(out, 1);
  dup2(out, 2);
  close_range(3, ~0u, 0);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execvp(args[0], const_cast<char* const*>(args.data()));
  _exit(127);
}

std::vector<char*> c_args(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  return args;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

Result<pid_t> spawn_logged(const std::vector<std::string>& argv, const std::string& log_path, Session session,
                           const std::string& netns) {
  if (argv.empty()) return Error(ErrorKind::kInvalidArgument, "nothing to run");
  int ns = -1;
  if (!netns.empty()) {
    ns = open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
    if (ns < 0) return Error(ErrorKind::kNotFound, "network namespace " + netns + ": " + std::strerror(errno));
  }
  const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log < 0) {
    if (ns >= 0) close(ns);
    return Error(ErrorKind::kInternal, "cannot open " + log_path + ": " + std::strerror(errno));
  }
  const auto args = c_args(argv);
  const pid_t pid = fork();
  if (pid < 0) {
    close(log);
    if (ns >= 0) close(ns);
    return Error(ErrorKind::kInternal, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    if (ns >= 0 && setns(ns, CLONE_NEWNET) != 0) _exit(126);
    if (session == Session::kOwn) setsid();
    exec_child(args, log);
  }
  close(log);
  if (ns >= 0) close(ns);
  return pid;
}

Result<PipedChild> spawn_piped(const std::vector<std::string>& argv, Session session) {
  if (argv.empty()) return Error(ErrorKind::kInvalidArgument, "nothing to run");
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return Error(ErrorKind::kInternal, std::string("pipe: ") + std::strerror(errno));
  const auto args = c_args(argv);
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return Error(ErrorKind::kInternal, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    if (session == Session::kOwn) setsid();
    exec_child(args, pipe_fds[1]);
  }
  close(pipe_fds[1]);
  return PipedChild{pid, pipe_fds[0]};
}

Result<std::string> run_command(const std::vector<std::string>& argv, std::chrono::milliseconds deadline, const std::string& netns) {
  if (argv.empty()) return Error(ErrorKind::kInvalidArgument, "nothing to run");
  int ns = -1;
  if (!netns.empty()) {
    ns = open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
    if (ns < 0) return Error(ErrorKind::kNotFound, "network namespace " + netns + ": " + std::strerror(errno));
  }
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    if (ns >= 0) close(ns);
    return Error(ErrorKind::kInternal, std::string("pipe: ") + std::strerror(errno));
  }
  const auto args = c_args(argv);
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    if (ns >= 0) close(ns);
    return Error(ErrorKind::kInternal, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    if (ns >= 0 && setns(ns, CLONE_NEWNET) != 0) _exit(126);
    exec_child(args, pipe_fds[1]);
  }
  close(pipe_fds[1]);
  if (ns >= 0) close(ns);
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

}  // namespace cosi::controllers
