// AddressStatusController: the addresses on the node's links as AddressStatuses
// (network/<link>/<ip>/<prefix length>), read from the kernel and read again whenever it
// reports a change. Owned-host mode only.
//
//   runtime.add(std::make_unique<AddressStatusController>(*kernel));
#pragma once

#include "controllers/network/kernel.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

class AddressStatusController final : public Controller {
 public:
  explicit AddressStatusController(NetworkKernel& kernel) : kernel_(kernel) {}

  std::string name() const override { return "network.AddressStatusController"; }
  std::vector<Input> inputs() const override { return {}; }
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  NetworkKernel& kernel_;
  bool subscribed_ = false;  // only the controller's own pass touches it
};

}  // namespace cosi::controllers
