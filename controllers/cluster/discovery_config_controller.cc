#include "controllers/cluster/discovery_config_controller.h"

#include "controllers/config/applied_config.h"
#include "resources/cluster/cluster_resources.h"
#include "runtime/base/base64.h"

namespace cosi::controllers {

using namespace cosi::resources;

std::vector<Input> DiscoveryConfigController::inputs() const { return {applied_config_input()}; }

std::vector<Output> DiscoveryConfigController::outputs() const { return {{kDiscoveryConfigType}}; }

ReconcileResult DiscoveryConfigController::reconcile(ControllerContext& ctx) {
  auto cfg = applied_config(ctx);
  if (!cfg.ok()) return ReconcileResult::terminal(cfg.error());
  if (!*cfg) return ReconcileResult::done();
  const config::MachineConfig& c = **cfg;
  auto key = base64_decode(c.cluster_secret);
  auto written = ctx.modify<DiscoveryConfigSpec>(
      Metadata(kConfigNamespace, kDiscoveryConfigType, std::string(kDiscoveryConfigId)), [&](DiscoveryConfigSpec& s) {
        s.Clear();
        s.set_discovery_enabled(c.discovery_enabled);
        s.set_registry_service_enabled(c.discovery_enabled && !c.discovery_service_disabled &&
                                       !c.discovery_service_endpoint.empty());
        s.set_service_endpoint(c.discovery_service_endpoint);
        s.set_service_endpoint_insecure(c.discovery_service_endpoint.rfind("http://", 0) == 0);
        s.set_service_encryption_key(key ? *key : std::string());
        s.set_service_cluster_id(c.cluster_id);
      });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
