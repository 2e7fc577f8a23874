#include "controllers/k8s/kubeprism_config_controller.h"

#include "controllers/config/applied_config.h"
#include "resources/k8s/k8s_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;

namespace {
const Pointer kEndpoints{kK8sNamespace, kKubePrismEndpointsType, std::string(kKubePrismEndpointsId)};
}  // namespace

std::vector<Input> KubePrismConfigController::inputs() const {
  return {applied_config_input(), {kK8sNamespace, kKubePrismEndpointsType, std::string(kKubePrismEndpointsId)}};
}

std::vector<Output> KubePrismConfigController::outputs() const { return {{kKubePrismConfigType}}; }

ReconcileResult KubePrismConfigController::reconcile(ControllerContext& ctx) {
  auto cfg = applied_config(ctx);
  if (!cfg.ok()) return ReconcileResult::terminal(cfg.error());
  if (!*cfg || !(*cfg)->kubeprism_enabled) return ReconcileResult::done();  // off: the config goes, and the balancer with it
  auto endpoints = ctx.get_typed<KubePrismEndpointsSpec>(kEndpoints);
  if (!endpoints.ok()) return ReconcileResult::done();  // woken when they come
  auto written = ctx.modify<KubePrismConfigSpec>(Metadata(kK8sNamespace, kKubePrismConfigType, std::string(kKubePrismConfigId)),
                                                 [&](KubePrismConfigSpec& s) {
                                                   s.Clear();
                                                   s.set_host(listen_host_);
                                                   s.set_port((*cfg)->kubeprism_port);
                                                   *s.mutable_endpoints() = (*endpoints)->spec().endpoints();
                                                 });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
