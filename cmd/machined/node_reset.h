// NodeReset: MachineService.Reset for machined. A graceful reset first releases a shared VIP
// held here (address off the link, then resign: another control plane takes it at once), leaves
// etcd (on control planes) and deletes this node's affiliate from the discovery service (peers
// drop it at once instead of after the TTL); then,
// once the reply is on its way, machined stops, wipes --state-dir (config, identity, staged
// config) and starts again in maintenance mode — its "reboot" is an exec of itself.
//
//   NodeReset reset(discovery_controller, etcd_controller, vip_operator, log);
//   MachineServer machine(node, &config, &reset);
//   ... main loop: SIGUSR1 with reset.requested() → stop, NodeReset::wipe(state_dir), exec
#pragma once

#include <atomic>
#include <chrono>
#include <string>

#include "api/machine_server.h"
#include "controllers/cluster/discovery_service_controller.h"
#include "controllers/etcd/etcd_controller.h"
#include "controllers/network/vip_operator_controller.h"
#include "runtime/base/log.h"

namespace cosi::machined {

class NodeReset final : public api::NodeResetter {
 public:
  NodeReset(controllers::DiscoveryServiceController* discovery, controllers::EtcdController* etcd,
            controllers::VIPOperatorController* vip, Logger log)
      : discovery_(discovery), etcd_(etcd), vip_(vip), log_(std::move(log)) {}

  // Leaves (graceful), then raises SIGUSR1 for machined's main loop.
  Status reset(const api::ResetRequest& request) override;
  bool requested() const { return requested_; }

  // Leaves the discovery service (at `machined --leave` stop, and by graceful resets).
  Status leave();

  // Removes everything inside `state_dir`.
  static Status wipe(const std::string& state_dir);

  // Stops every process machined started that is still running (the API server stand-in, ...):
  // SIGTERM, then SIGKILL past `grace`. Before the exec of a reset, which runs no destructor:
  // a child left running would outlive the new machined's knowledge of it. Returns how many.
  static int stop_children(std::chrono::milliseconds grace);

 private:
  controllers::DiscoveryServiceController* const discovery_;
  controllers::EtcdController* const etcd_;
  controllers::VIPOperatorController* const vip_;
  Logger log_;
  std::atomic<bool> requested_{false};
};

}  // namespace cosi::machined
