// OperatorConfigController: the VIP operators a control plane's config asks for, as
// OperatorSpecs "vip/<link>/<ip>": one per machine.network.interfaces[] entry with a vip.ip,
// on the link it names — by `interface` (the link's name or alias), or by `deviceSelector`
// (every key given must match: `physical` — an Ethernet device that is not virtual, as Talos
// defines it; `hardwareAddr` and `permanentAddr` — globs on the MAC; `driver`, `busPath` and
// `pciID` are not known without sysfs, so they match nothing). A selector that matches several
// links takes the first (lowest index); one that matches none asks for nothing, and says so in
// the log once. Workers hold no VIP.
//
//   runtime.add(std::make_unique<OperatorConfigController>());
#pragma once

#include <set>
#include <string>

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class OperatorConfigController final : public Controller {
 public:
  std::string name() const override { return "network.OperatorConfigController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  std::set<std::string> complained_;  // interfaces whose link was not found, logged once each
};

}  // namespace cosi::controllers
