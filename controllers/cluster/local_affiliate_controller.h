// LocalAffiliateController: this node as discovery shows it to the others (cluster/Affiliates,
// id = the node id): node id, hostname and node name, addresses, machine type, OS, and on
// control planes the API server port (from cluster.controlPlane.endpoint, 6443 when it names
// none). Nothing until a config is applied.
#pragma once

#include <string>

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class LocalAffiliateController final : public Controller {
 public:
  explicit LocalAffiliateController(std::string operating_system = "cosi-cpp (v0.1.0)")
      : operating_system_(std::move(operating_system)) {}

  std::string name() const override { return "cluster.LocalAffiliateController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  const std::string operating_system_;
};

}  // namespace cosi::controllers
