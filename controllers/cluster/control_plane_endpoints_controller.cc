#include "controllers/cluster/control_plane_endpoints_controller.h"

#include <set>

#include "resources/cluster/cluster_resources.h"
#include "resources/k8s/k8s_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;
using MachineTypeEnum = ::talos::resource::definitions::enums::MachineType;

std::vector<Input> ControlPlaneEndpointsController::inputs() const { return {{kClusterNamespace, kMemberType}}; }

std::vector<Output> ControlPlaneEndpointsController::outputs() const { return {{kEndpointType}}; }

ReconcileResult ControlPlaneEndpointsController::reconcile(ControllerContext& ctx) {
  auto members = ctx.list({kClusterNamespace, kMemberType});
  if (!members.ok()) return ReconcileResult::retry(members.error());
  std::set<std::pair<size_t, std::string>> addresses;  // (length, bytes): IPv4 first, each in numeric order
  for (const auto& r : *members) {
    auto m = resource_cast<MemberSpec>(r);
    if (!m || m->spec().machine_type() != MachineTypeEnum::TYPE_CONTROL_PLANE) continue;
    for (const auto& a : m->spec().addresses()) addresses.insert({a.ip().size(), a.ip()});
  }
  if (addresses.empty()) return ReconcileResult::done();
  auto written = ctx.modify<EndpointSpec>(Metadata(kControlPlaneNamespace, kEndpointType, std::string(kDiscoveredEndpointsId)),
                                          [&](EndpointSpec& s) {
                                            s.clear_addresses();
                                            for (const auto& [_, ip] : addresses) s.add_addresses()->set_ip(ip);
                                          });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
