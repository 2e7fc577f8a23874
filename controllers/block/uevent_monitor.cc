#include "controllers/block/uevent_monitor.h"

#include <linux/netlink.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cosi::controllers {

std::optional<Uevent> parse_uevent(std::string_view bytes) {
  const auto header_end = bytes.find('\0');
  const std::string_view header = bytes.substr(0, header_end);
  const auto at = header.find('@');
  if (at == std::string_view::npos || at == 0 || header.rfind("libudev", 0) == 0) return std::nullopt;
  Uevent e{std::string(header.substr(0, at)), std::string(header.substr(at + 1)), {}};
  std::size_t pos = header_end == std::string_view::npos ? bytes.size() : header_end + 1;
  while (pos < bytes.size()) {
    auto end = bytes.find('\0', pos);
    if (end == std::string_view::npos) end = bytes.size();
    const std::string_view field = bytes.substr(pos, end - pos);
    if (auto eq = field.find('='); eq != std::string_view::npos) e.env[std::string(field.substr(0, eq))] = std::string(field.substr(eq + 1));
    pos = end + 1;
  }
  return e;
}

Result<std::unique_ptr<UeventMonitor>> UeventMonitor::start(std::string subsystem, std::function<void(const Uevent&)> on_event) {
  int fd = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
  if (fd < 0) return Error(ErrorKind::kUnavailable, std::string("uevent socket: ") + std::strerror(errno));
  sockaddr_nl addr{};
  addr.nl_family = AF_NETLINK;
  addr.nl_groups = 1;  // the kernel's own broadcasts
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    return Error(ErrorKind::kUnavailable, "uevent socket: bind: " + why);
  }
  int wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    ::close(fd);
    return Error(ErrorKind::kUnavailable, std::string("eventfd: ") + std::strerror(errno));
  }
  return std::unique_ptr<UeventMonitor>(new UeventMonitor(fd, wake, std::move(subsystem), std::move(on_event)));
}

UeventMonitor::UeventMonitor(int socket, int wake, std::string subsystem, std::function<void(const Uevent&)> on_event)
    : socket_(socket), wake_(wake), subsystem_(std::move(subsystem)), on_event_(std::move(on_event)), thread_([this] { run(); }) {}

UeventMonitor::~UeventMonitor() {
  const uint64_t one = 1;
  (void)::write(wake_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  ::close(socket_);
  ::close(wake_);
}

void UeventMonitor::run() {
  char buf[16384];
  while (true) {
    pollfd fds[2] = {{socket_, POLLIN, 0}, {wake_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    while (true) {
      sockaddr_nl from{};
      socklen_t from_len = sizeof from;
      ssize_t n = ::recvfrom(socket_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &from_len);
      if (n < 0 && errno == ENOBUFS) {
        // Events were lost: say so, and whoever listens reads everything again.
        on_event_(Uevent{"overflow", "", {{"SUBSYSTEM", subsystem_}}});
        continue;
      }
      if (n < 0) break;  // drained
      if (from.nl_pid != 0) continue;  // not from the kernel
      auto event = parse_uevent(std::string_view(buf, static_cast<std::size_t>(n)));
      if (!event) continue;
      auto subsystem = event->env.find("SUBSYSTEM");
      if (subsystem != event->env.end() && subsystem->second == subsystem_) on_event_(*event);
    }
  }
}

}  // namespace cosi::controllers
