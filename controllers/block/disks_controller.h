// DisksController: the node's disks as Disks (runtime/<kernel name>), read from BlockDevices and
// read again each time a block device's uevent says something changed. Served in maintenance
// mode too: `cosictl get disks --insecure` is how the seed picks the install disk.
//
//   runtime.add(std::make_unique<DisksController>(devices));
#pragma once

#include "controllers/block/block_devices.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

class DisksController final : public Controller {
 public:
  explicit DisksController(BlockDevices& devices) : devices_(devices) {}

  std::string name() const override { return "block.DisksController"; }
  std::vector<Input> inputs() const override { return {}; }
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  BlockDevices& devices_;
  bool subscribed_ = false;  // only the controller's own pass touches it
};

}  // namespace cosi::controllers
