// LinkStatusController: the node's links as LinkStatuses (network/<link name>), read from the
// kernel and read again whenever it reports a change. Owned-host mode only: a node sharing a
// host with others never looks at the host's links.
//
//   runtime.add(std::make_unique<LinkStatusController>(*kernel));
#pragma once

#include "controllers/network/kernel.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

class LinkStatusController final : public Controller {
 public:
  explicit LinkStatusController(NetworkKernel& kernel) : kernel_(kernel) {}

  std::string name() const override { return "network.LinkStatusController"; }
  std::vector<Input> inputs() const override { return {}; }
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  NetworkKernel& kernel_;
  bool subscribed_ = false;  // only the controller's own pass touches it
};

}  // namespace cosi::controllers
