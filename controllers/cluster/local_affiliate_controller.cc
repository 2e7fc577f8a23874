#include "controllers/cluster/local_affiliate_controller.h"

#include "controllers/config/applied_config.h"
#include "resources/cluster/cluster_resources.h"
#include "resources/network/network_resources.h"

namespace cosi::controllers {

using namespace cosi::resources;
using MachineTypeEnum = ::talos::resource::definitions::enums::MachineType;

namespace {
const Pointer kIdentity{kClusterNamespace, kIdentityType, std::string(kLocalIdentityId)};
const Pointer kAddresses{kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)};
const Pointer kHostname{kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)};
}  // namespace

std::vector<Input> LocalAffiliateController::inputs() const {
  return {applied_config_input(),
          {kClusterNamespace, kIdentityType, std::string(kLocalIdentityId)},
          {kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)},
          {kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)}};
}

std::vector<Output> LocalAffiliateController::outputs() const { return {{kAffiliateType, OutputKind::kShared}}; }

ReconcileResult LocalAffiliateController::reconcile(ControllerContext& ctx) {
  auto cfg = applied_config(ctx);
  if (!cfg.ok()) return ReconcileResult::terminal(cfg.error());
  auto identity = ctx.get_typed<IdentitySpec>(kIdentity);
  auto addresses = ctx.get_typed<NodeAddressSpec>(kAddresses);
  auto hostname = ctx.get_typed<HostnameStatusSpec>(kHostname);
  // Each missing input wakes us when it appears; until then there is nothing to publish.
  if (!*cfg || !identity.ok() || !addresses.ok() || !hostname.ok()) return ReconcileResult::done();

  const std::string& node_id = (*identity)->spec().node_id();
  const auto& h = (*hostname)->spec();
  const bool control_plane = (*cfg)->type == config::MachineType::kControlPlane;
  auto written = ctx.modify<AffiliateSpec>(Metadata(kClusterNamespace, kAffiliateType, node_id), [&](AffiliateSpec& s) {
    s.Clear();
    s.set_node_id(node_id);
    for (const auto& a : (*addresses)->spec().addresses()) s.add_addresses()->set_ip(a.ip());
    s.set_hostname(h.domainname().empty() ? h.hostname() : h.hostname() + "." + h.domainname());
    s.set_nodename(h.hostname());
    s.set_operating_system(operating_system_);
    s.set_machine_type(control_plane ? MachineTypeEnum::TYPE_CONTROL_PLANE : MachineTypeEnum::TYPE_WORKER);
    if (control_plane) {
      const int port = (*cfg)->control_plane_endpoint.port;
      s.mutable_control_plane()->set_api_server_port(port ? port : 6443);
    }
  });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
