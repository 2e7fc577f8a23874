#include "cmd/common/spawn.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cosi::cmd {

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
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(log);
    if (ns >= 0) close(ns);
    return Error(ErrorKind::kInternal, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    if (ns >= 0 && setns(ns, CLONE_NEWNET) != 0) _exit(126);
    if (session == Session::kOwn) setsid();
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    dup2(log, 1);
    dup2(log, 2);
    close_range(3, ~0u, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(log);
  if (ns >= 0) close(ns);
  return pid;
}

}  // namespace cosi::cmd
