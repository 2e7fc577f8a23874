// Process: a child program for integration tests — started with its output on pipes, read line
// by line with deadlines (never by sleeping), stopped by PID. A program without a slash is
// looked up in PATH.
//
//   Process p({"build/cmd/machined/machined", "--insecure-dev", ...});
//   auto line = p.wait_for_line("machined ready", in_seconds(10));   // stderr or stdout
//   p.stop();   // SIGTERM, then SIGKILL after 5 s; returns the exit status
//
//   auto r = run({"cosictl", "get", "rd"}, in_seconds(10));   // to completion: r.status, r.out, r.err
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cosi::testing {

using Clock = std::chrono::steady_clock;

class Process {
 public:
  explicit Process(const std::vector<std::string>& argv);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  // The write end of the child's stdin (a pipe, open until the Process goes).
  int stdin_fd() const { return in_; }

  // The next complete line of stdout (or stderr when `from_stderr`); nullopt at the deadline or
  // when the stream ends.
  std::optional<std::string> read_line(Clock::time_point deadline, bool from_stderr = false);
  // What is left after the last complete line (output that does not end in a newline).
  std::string rest(bool from_stderr = false) { return std::exchange(from_stderr ? err_buffer_ : out_buffer_, std::string()); }
  // Reads lines (stderr and stdout) until one contains `text`; that line, or nullopt.
  std::optional<std::string> wait_for_line(const std::string& text, Clock::time_point deadline);

  // SIGTERM, waits up to 5 s, then SIGKILL. Returns the exit status (-signal when killed).
  int stop();
  void kill_now();

 private:
  std::optional<std::string> take_line(std::string& buffer);

  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  int err_ = -1;
  std::string out_buffer_;
  std::string err_buffer_;
  bool exited_ = false;
  int status_ = 0;
};

struct RunResult {
  int status = 0;  // -9 when killed at the deadline
  std::string out;
  std::string err;
};

// Runs to completion within the deadline.
RunResult run(const std::vector<std::string>& argv, Clock::time_point deadline);

inline Clock::time_point in_seconds(int s) { return Clock::now() + std::chrono::seconds(s); }

}  // namespace cosi::testing
