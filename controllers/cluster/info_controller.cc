#include "controllers/cluster/info_controller.h"

#include "controllers/config/applied_config.h"
#include "resources/cluster/cluster_resources.h"

namespace cosi::controllers {

using namespace cosi::resources;

std::vector<Input> InfoController::inputs() const { return {applied_config_input()}; }

std::vector<Output> InfoController::outputs() const { return {{kInfoType}}; }

ReconcileResult InfoController::reconcile(ControllerContext& ctx) {
  auto cfg = applied_config(ctx);
  if (!cfg.ok()) return ReconcileResult::terminal(cfg.error());
  if (!*cfg) return ReconcileResult::done();
  auto written = ctx.modify<InfoSpec>(Metadata(kClusterNamespace, kInfoType, std::string(kCurrentInfoId)), [&](InfoSpec& s) {
    s.set_cluster_id((*cfg)->cluster_id);
    s.set_cluster_name((*cfg)->cluster_name);
  });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
