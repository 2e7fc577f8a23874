#include "test/support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace cosi::testing {
namespace {

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

}  // namespace

Process::Process(const std::vector<std::string>& argv) {
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return;
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    setpgid(0, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "exec %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  in_ = in[1];
  out_ = out[0];
  err_ = err[0];
}

Process::~Process() {
  if (pid_ > 0 && !exited_) kill_now();
  if (in_ >= 0) close(in_);
  if (out_ >= 0) close(out_);
  if (err_ >= 0) close(err_);
}

std::optional<std::string> Process::take_line(std::string& buffer) {
  auto nl = buffer.find('\n');
  if (nl == std::string::npos) return std::nullopt;
  std::string line = buffer.substr(0, nl);
  buffer.erase(0, nl + 1);
  return line;
}

std::optional<std::string> Process::read_line(Clock::time_point deadline, bool from_stderr) {
  std::string& buffer = from_stderr ? err_buffer_ : out_buffer_;
  int fd = from_stderr ? err_ : out_;
  while (true) {
    if (auto line = take_line(buffer)) return line;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, remaining_ms(deadline)) <= 0) return std::nullopt;
    char buf[4096];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return std::nullopt;
    buffer.append(buf, static_cast<std::size_t>(n));
  }
}

std::optional<std::string> Process::wait_for_line(const std::string& text, Clock::time_point deadline) {
  while (true) {
    for (auto* b : {&err_buffer_, &out_buffer_}) {
      while (auto line = take_line(*b)) {
        if (line->find(text) != std::string::npos) return line;
      }
    }
    pollfd p[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
    if (poll(p, 2, remaining_ms(deadline)) <= 0) return std::nullopt;
    bool any = false;
    for (int i = 0; i < 2; ++i) {
      if ((p[i].revents & (POLLIN | POLLHUP)) == 0) continue;
      char buf[4096];
      ssize_t n = ::read(p[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? out_buffer_ : err_buffer_).append(buf, static_cast<std::size_t>(n));
        any = true;
      }
    }
    if (!any) return std::nullopt;  // both ends closed
  }
}

int Process::stop() {
  if (exited_ || pid_ <= 0) return status_;
  ::kill(pid_, SIGTERM);
  auto deadline = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < deadline) {
    int st = 0;
    pid_t r = waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      exited_ = true;
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
      return status_;
    }
    // Wait for the child's exit by polling its output pipe: it closes when the child exits.
    pollfd p{err_, POLLIN, 0};
    if (poll(&p, 1, remaining_ms(deadline)) > 0) {
      char buf[4096];
      ssize_t n = ::read(err_, buf, sizeof buf);
      if (n > 0) err_buffer_.append(buf, static_cast<std::size_t>(n));
      if (n == 0) {
        int st2 = 0;
        waitpid(pid_, &st2, 0);
        exited_ = true;
        status_ = WIFEXITED(st2) ? WEXITSTATUS(st2) : -WTERMSIG(st2);
        return status_;
      }
    }
  }
  kill_now();
  return status_;
}

void Process::kill_now() {
  if (exited_ || pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int st = 0;
  waitpid(pid_, &st, 0);
  exited_ = true;
  status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
}

RunResult run(const std::vector<std::string>& argv, Clock::time_point deadline) {
  Process p(argv);
  RunResult r;
  while (auto line = p.read_line(deadline)) r.out += *line + "\n";
  r.out += p.rest();  // a last line without its newline ("ok" from `kubectl get --raw /healthz`)
  while (auto line = p.read_line(deadline, true)) r.err += *line + "\n";
  r.err += p.rest(true);
  if (Clock::now() >= deadline) {
    p.kill_now();
    r.status = -9;
    return r;
  }
  r.status = p.stop();
  return r;
}

}  // namespace cosi::testing
