// NodeAddressController: the node's own addresses (NodeAddresses "current") on a host it owns,
// from the AddressStatuses the kernel reports: global-scope addresses on links that are up,
// loopback and link-local ones left out, and every shared VIP left out — a VIP moves between
// nodes, so it is never a node's address (not for etcd, not for discovery, not for Members).
//
//   runtime.add(std::make_unique<NodeAddressController>());
#pragma once

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class NodeAddressController final : public Controller {
 public:
  std::string name() const override { return "network.NodeAddressController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

}  // namespace cosi::controllers
