#include "cmd/machined/node_reset.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

namespace cosi::machined {

using namespace std::chrono_literals;

Status NodeReset::leave() {
  auto s = discovery_->leave(1s);
  if (s.ok()) {
    log_.info("left the discovery service: peers drop this node now");
    return {};
  }
  if (s.error().is(ErrorKind::kFailedPrecondition)) return {};  // no discovery client: nothing to leave
  return s;
}

Status NodeReset::reset(const api::ResetRequest& request) {
  if (requested_.exchange(true)) return Error(ErrorKind::kFailedPrecondition, "a reset is already under way");
  // The VIP's resign needs etcd: before leaving it.
  if (auto s = vip_->release(2s); !s.ok()) log_.warn("reset: releasing the shared VIP", {{"error", s.error().message()}});
  if (request.graceful && etcd_->serving()) {
    if (auto s = etcd_->leave(); !s.ok()) {
      requested_ = false;
      return Error(s.error().kind(), "graceful reset: leaving etcd: " + s.error().message() + " (reset with --graceful=false to skip)");
    }
    log_.info("left etcd");
  }
  if (request.graceful) {
    if (auto s = leave(); !s.ok()) {
      requested_ = false;
      return Error(ErrorKind::kUnavailable, "graceful reset: " + s.error().message() + " (reset with --graceful=false to skip)");
    }
  }
  log_.info("reset: wiping the state and returning to maintenance mode", {{"graceful", request.graceful ? "true" : "false"}});
  kill(getpid(), SIGUSR1);
  return {};
}

int NodeReset::stop_children(std::chrono::milliseconds grace) {
  std::vector<pid_t> children;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) != 2) continue;
    if (ppid == getpid()) children.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  auto reaped = [](pid_t pid) {
    const pid_t r = waitpid(pid, nullptr, WNOHANG);
    return r == pid || (r < 0 && errno == ECHILD);
  };
  auto wait_all = [&](std::chrono::milliseconds within) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    while (true) {
      std::erase_if(children, reaped);
      if (children.empty() || std::chrono::steady_clock::now() >= deadline) return children.empty();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  const int count = static_cast<int>(children.size());
  for (pid_t pid : children) kill(pid, SIGTERM);
  if (!wait_all(grace)) {
    for (pid_t pid : children) kill(pid, SIGKILL);
    (void)wait_all(std::chrono::seconds(2));
  }
  return count;
}

Status NodeReset::wipe(const std::string& state_dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(state_dir, ec)) {
    std::filesystem::remove_all(entry.path(), ec);
    if (ec) return Error(ErrorKind::kInternal, "wiping " + entry.path().string() + ": " + ec.message());
  }
  if (ec) return Error(ErrorKind::kInternal, "wiping " + state_dir + ": " + ec.message());
  return {};
}

}  // namespace cosi::machined
