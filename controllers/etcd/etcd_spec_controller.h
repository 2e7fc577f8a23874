// EtcdSpecController: on control planes, how etcd runs here (etcd/EtcdSpecs "etcd") from the
// EtcdConfig and the node's identity: the member name (the hostname), the advertised and
// listen addresses (the node's addresses within the valid subnets and outside the excluded
// ones, VIPs included there), and the extra arguments.
#pragma once

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class EtcdSpecController final : public Controller {
 public:
  std::string name() const override { return "etcd.SpecController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

}  // namespace cosi::controllers
