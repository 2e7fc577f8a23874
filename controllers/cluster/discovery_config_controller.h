// DiscoveryConfigController: the discovery settings (config/DiscoveryConfigs "cluster",
// Sensitive) from the applied machine config: enabled when cluster.discovery.enabled, the
// service registry enabled unless registries.service.disabled, its endpoint, the cluster id
// and the encryption key (the decoded cluster.secret). No endpoint in the config, no service
// registry: we never dial out by default (shared/PROTOCOL.md §7).
#pragma once

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class DiscoveryConfigController final : public Controller {
 public:
  std::string name() const override { return "cluster.ConfigController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

}  // namespace cosi::controllers
