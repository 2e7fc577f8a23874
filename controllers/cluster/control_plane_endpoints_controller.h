// ControlPlaneEndpointsController: the control planes' addresses as discovery knows them
// (controlplane/Endpoints "discovery"), from the Members of type controlplane, sorted — what
// etcd joins and KubePrism dial.
#pragma once

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class ControlPlaneEndpointsController final : public Controller {
 public:
  std::string name() const override { return "k8s.ControlPlaneEndpointsController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

}  // namespace cosi::controllers
