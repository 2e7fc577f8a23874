#include "api/dashboard/terminal_dashboard.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "api/dashboard/text_screen.h"

namespace cosi::dashboard {
namespace {

// Where the signal handler writes: the running dashboard's pipe.
std::atomic<int> g_wake_fd{-1};

void on_signal(int signal) {
  const int fd = g_wake_fd.load();
  if (fd < 0) return;
  const char byte = signal == SIGWINCH ? 'W' : 'Q';
  const int saved = errno;
  (void)::write(fd, &byte, 1);
  errno = saved;
}

void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

constexpr const char* kEnter = "\x1b[?1049h\x1b[?25l";  // the alternate screen, no cursor
constexpr const char* kLeave = "\x1b[?25h\x1b[?1049l";

// The terminal as it was, and the signal handlers, given back whatever way run() ends.
class TerminalSession {
 public:
  TerminalSession(int in, int out, int wake) : in_(in), out_(out) {
    ::tcgetattr(in_, &saved_);
    termios raw = saved_;
    raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO | ISIG | IEXTEN));
    raw.c_iflag &= static_cast<tcflag_t>(~(IXON | ICRNL));
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    ::tcsetattr(in_, TCSAFLUSH, &raw);
    g_wake_fd = wake;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 4; ++i) ::sigaction(kSignals[i], &sa, &old_[i]);
    write_all(out_, kEnter);
  }
  ~TerminalSession() {
    write_all(out_, kLeave);
    for (int i = 0; i < 4; ++i) ::sigaction(kSignals[i], &old_[i], nullptr);
    g_wake_fd = -1;
    ::tcsetattr(in_, TCSAFLUSH, &saved_);
  }

 private:
  static constexpr int kSignals[4] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH};
  int in_, out_;
  termios saved_{};
  struct sigaction old_[4] {};
};

}  // namespace

TerminalDashboard::TerminalDashboard(ClusterView& view, std::string title, int in, int out)
    : view_(view), title_(std::move(title)), in_(in), out_(out) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;
}

TerminalDashboard::~TerminalDashboard() {
  for (int fd : wake_) {
    if (fd >= 0) ::close(fd);
  }
}

void TerminalDashboard::changed() {
  const char byte = 'C';
  if (wake_[1] >= 0) (void)::write(wake_[1], &byte, 1);
}

Status TerminalDashboard::run() {
  if (!::isatty(in_)) return Error(ErrorKind::kFailedPrecondition, "dashboard: standard input is not a terminal (try --web)");
  if (wake_[0] < 0) return Error(ErrorKind::kInternal, "dashboard: cannot make a pipe");
  TerminalSession session(in_, out_, wake_[1]);
  while (true) {
    winsize ws{};
    if (::ioctl(out_, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0) ws = {24, 80, 0, 0};
    draw(ws.ws_row, ws.ws_col);
    pollfd fds[2] = {{in_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return Error(ErrorKind::kInternal, "dashboard: poll failed");
    }
    if (fds[1].revents & POLLIN) {
      char buf[64];
      ssize_t n;
      while ((n = ::read(wake_[0], buf, sizeof buf)) > 0) {
        if (std::find(buf, buf + n, 'Q') != buf + n) return {};
      }
    }
    if (fds[0].revents & (POLLHUP | POLLERR)) return {};
    if (fds[0].revents & POLLIN) {
      char buf[64];
      ssize_t n = ::read(in_, buf, sizeof buf);
      if (n == 0) return {};
      if (n > 0 && key(std::string(buf, static_cast<std::size_t>(n)))) return {};
    }
  }
}

bool TerminalDashboard::key(const std::string& bytes) {
  const auto count = std::max<std::size_t>(view_.nodes().size(), 1);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const char c = bytes[i];
    int step = 0;
    if (c == '\x1b' && i + 2 < bytes.size() && (bytes[i + 1] == '[' || bytes[i + 1] == 'O')) {
      step = bytes[i + 2] == 'C' ? 1 : bytes[i + 2] == 'D' ? -1 : 0;
      i += 2;
    } else if (c == 'q' || c == 'Q' || c == '\x03') {
      return true;
    } else if (c == ']') {
      step = 1;
    } else if (c == '[') {
      step = -1;
    }
    if (step != 0) {
      selected_ = (selected_ + (step > 0 ? 1 : count - 1)) % count;
      selected_address_.clear();
    }
  }
  return false;
}

void TerminalDashboard::draw(std::size_t rows, std::size_t cols) {
  const auto snapshot = view_.snapshot();
  if (!selected_address_.empty()) {
    for (std::size_t i = 0; i < snapshot.nodes.size(); ++i) {
      if (snapshot.nodes[i].address == selected_address_) selected_ = i;
    }
  }
  if (!snapshot.nodes.empty()) {
    selected_ = std::min(selected_, snapshot.nodes.size() - 1);
    selected_address_ = snapshot.nodes[selected_].address;
  }
  const auto lines = render_screen(snapshot, selected_, title_, cols);
  std::string frame = "\x1b[H";
  for (std::size_t i = 0; i < lines.size() && i + 1 < rows; ++i) {
    frame += lines[i].highlight ? "\x1b[7m" + lines[i].text + "\x1b[0m" : lines[i].text;
    frame += "\x1b[K\r\n";
  }
  frame += "\x1b[J";
  write_all(out_, frame);
}

}  // namespace cosi::dashboard
