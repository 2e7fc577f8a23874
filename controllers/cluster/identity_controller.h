// IdentityController: publishes this node's identity (cluster/Identities "local") — the id
// machined keeps in its state directory (machined/node_identity.h), given at start.
//
//   runtime.add(std::make_unique<IdentityController>(node_id));
#pragma once

#include <string>

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class IdentityController final : public Controller {
 public:
  explicit IdentityController(std::string node_id) : node_id_(std::move(node_id)) {}

  std::string name() const override { return "cluster.NodeIdentityController"; }
  std::vector<Input> inputs() const override { return {}; }
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  const std::string node_id_;
};

}  // namespace cosi::controllers
