#include "controllers/cluster/identity_controller.h"

#include "resources/cluster/cluster_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;

std::vector<Output> IdentityController::outputs() const { return {{kIdentityType}}; }

ReconcileResult IdentityController::reconcile(ControllerContext& ctx) {
  auto written = ctx.modify<IdentitySpec>(Metadata(kClusterNamespace, kIdentityType, std::string(kLocalIdentityId)),
                                          [&](IdentitySpec& s) { s.set_node_id(node_id_); });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
