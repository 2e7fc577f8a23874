#include "cmd/machined/node_reset.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>

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
