#include "api/admin_kubeconfig.h"

#include "resources/config/config_resources.h"
#include "resources/config/machine_config.h"
#include "resources/secrets/kubeconfig.h"

namespace cosi::api {

using namespace cosi::resources;

Result<std::string> AdminKubeconfig::kubeconfig() {
  auto stored = state_.get({kConfigNamespace, kMachineConfigType, std::string(kMachineConfigId)});
  if (!stored.ok()) return Error(ErrorKind::kFailedPrecondition, "no machine config yet (maintenance mode): no kubeconfig to hand out");
  auto typed = resource_cast<MachineConfigSpec>(*stored);
  if (!typed) return Error(ErrorKind::kInternal, "MachineConfigs v1alpha1 has another spec type");
  auto loaded = config::parse_machine_config(typed->spec().document());
  if (!loaded.ok()) return loaded.error();
  const auto& c = loaded->config;
  if (c.type != config::MachineType::kControlPlane || c.kubernetes_ca.key.empty()) {
    return Error(ErrorKind::kFailedPrecondition, "kubeconfig is only available on control plane nodes (they hold the Kubernetes CA key)");
  }
  return pki::admin_kubeconfig({.cluster = c.cluster_name, .server = c.control_plane_endpoint.text, .ca_crt = c.kubernetes_ca.crt,
                                .ca_key = c.kubernetes_ca.key});
}

}  // namespace cosi::api
