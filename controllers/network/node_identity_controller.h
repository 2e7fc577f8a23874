// NodeIdentityController: publishes who this node is — HostnameStatus (network/hostname) and,
// for a node sharing a host with others, NodeAddress (network/current) — from what machined was
// told at start: the hostname and the node's address; machine.network.hostname in the applied
// config overrides the hostname. Without addresses (a host the node owns) it publishes the
// hostname only: NodeAddressController reads the addresses from the kernel.
//
//   runtime.add(std::make_unique<NodeIdentityController>(NodeIdentity{"cp-1", {"127.0.5.10/32"}}));
#pragma once

#include <string>
#include <vector>

#include "runtime/controller/controller.h"

namespace cosi::controllers {

struct NodeIdentity {
  std::string hostname;
  std::vector<std::string> addresses;  // prefixes: "127.0.5.10/32"; none: not ours to publish
};

class NodeIdentityController final : public Controller {
 public:
  explicit NodeIdentityController(NodeIdentity identity) : identity_(std::move(identity)) {}

  std::string name() const override { return "network.NodeIdentityController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  const NodeIdentity identity_;
};

}  // namespace cosi::controllers
