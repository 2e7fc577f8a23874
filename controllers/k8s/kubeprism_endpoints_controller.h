// KubePrismEndpointsController: where the Kubernetes API can be reached, in the order KubePrism
// prefers them (KubePrismEndpoints "k8s-cluster"): the cluster endpoint's host and port
// (cluster.controlPlane.endpoint; 443 when the URL names none); then, on a control plane, the
// node itself on 6443; then every control-plane Member's addresses on its API server port
// (6443 when it gives none) — each host:port once, in that order.
//
//   runtime.add(std::make_unique<KubePrismEndpointsController>());
#pragma once

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class KubePrismEndpointsController final : public Controller {
 public:
  std::string name() const override { return "k8s.KubePrismEndpointsController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

}  // namespace cosi::controllers
