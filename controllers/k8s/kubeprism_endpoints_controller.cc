#include "controllers/k8s/kubeprism_endpoints_controller.h"

#include <algorithm>

#include "controllers/config/applied_config.h"
#include "resources/cluster/cluster_resources.h"
#include "resources/common/ip.h"
#include "resources/k8s/k8s_resources.h"
#include "resources/network/network_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;
using MachineTypeEnum = ::talos::resource::definitions::enums::MachineType;

namespace {
constexpr uint32_t kApiServerPort = 6443;
const Pointer kAddresses{kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)};
}  // namespace

std::vector<Input> KubePrismEndpointsController::inputs() const {
  return {applied_config_input(), {kClusterNamespace, kMemberType}, {kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)}};
}

std::vector<Output> KubePrismEndpointsController::outputs() const { return {{kKubePrismEndpointsType}}; }

ReconcileResult KubePrismEndpointsController::reconcile(ControllerContext& ctx) {
  auto cfg = applied_config(ctx);
  if (!cfg.ok()) return ReconcileResult::terminal(cfg.error());
  if (!*cfg) return ReconcileResult::done();
  std::vector<std::pair<std::string, uint32_t>> endpoints;
  auto add = [&](const std::string& host, uint32_t port) {
    if (host.empty()) return;
    const std::pair<std::string, uint32_t> e{host, port};
    if (std::find(endpoints.begin(), endpoints.end(), e) == endpoints.end()) endpoints.push_back(e);
  };
  const auto& endpoint = (*cfg)->control_plane_endpoint;
  add(endpoint.host, endpoint.port == 0 ? 443 : static_cast<uint32_t>(endpoint.port));
  if ((*cfg)->type == config::MachineType::kControlPlane) {
    if (auto own = ctx.get_typed<NodeAddressSpec>(kAddresses); own.ok() && (*own)->spec().addresses_size() > 0) {
      add(ip_text((*own)->spec().addresses(0).ip()), kApiServerPort);
    }
  }
  auto members = ctx.list({kClusterNamespace, kMemberType});
  if (!members.ok()) return ReconcileResult::retry(members.error());
  for (const auto& r : *members) {
    auto m = resource_cast<MemberSpec>(r);
    if (!m || m->spec().machine_type() != MachineTypeEnum::TYPE_CONTROL_PLANE) continue;
    const uint32_t port = m->spec().control_plane().api_server_port() != 0 ? m->spec().control_plane().api_server_port() : kApiServerPort;
    for (const auto& a : m->spec().addresses()) add(ip_text(a.ip()), port);
  }
  auto written = ctx.modify<KubePrismEndpointsSpec>(Metadata(kK8sNamespace, kKubePrismEndpointsType, std::string(kKubePrismEndpointsId)),
                                                    [&](KubePrismEndpointsSpec& s) {
                                                      s.Clear();
                                                      for (const auto& [host, port] : endpoints) {
                                                        auto* e = s.add_endpoints();
                                                        e->set_host(host);
                                                        e->set_port(port);
                                                      }
                                                    });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
