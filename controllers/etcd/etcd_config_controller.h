// EtcdConfigController: on control planes, the etcd part of the machine config as
// etcd/EtcdConfigs "etcd": the advertised and listen subnets split into valid and excluded
// ("!cidr"), every VIP of the config excluded from both (etcd must never advertise an address
// that moves), and cluster.etcd.extraArgs.
#pragma once

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class EtcdConfigController final : public Controller {
 public:
  std::string name() const override { return "etcd.ConfigController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

}  // namespace cosi::controllers
