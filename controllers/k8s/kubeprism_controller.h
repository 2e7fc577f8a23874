// KubePrismController: runs KubePrism's load balancer while a KubePrismConfig exists — started
// on its host:port (and again when they change), its upstreams set from the config's endpoints
// (established connections are left alone), stopped when the config goes. It publishes
// KubePrismStatuses "k8s-loadbalancer" (host: where it listens; healthy: some upstream is) and,
// ours, one KubePrismUpstreams "<host>:<port>" per upstream (healthy, latency, score, active
// connections), refreshed every second and at once when an upstream's health changes. Its
// health checks are TCP connects, as Talos's, or HTTPS /readyz (HealthCheck::kHttpsReadyz).
// runtime/Services "kubeprism" says it runs (healthy: some upstream is); it is stopped,
// started and restarted as runtime/ServiceRequests "kubeprism" asks.
//
//   runtime.add(std::make_unique<KubePrismController>());                          // the real balancer
//   runtime.add(std::make_unique<KubePrismController>(HealthCheck::kTcpConnect, fake_factory));  // in unit tests
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "controllers/common/service_request.h"
#include "controllers/k8s/load_balancer/load_balancer.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

using LoadBalancerFactory = std::function<Result<std::unique_ptr<LoadBalancer>>(LoadBalancerOptions)>;

class KubePrismController final : public Controller {
 public:
  explicit KubePrismController(HealthCheck check = HealthCheck::kTcpConnect, LoadBalancerFactory factory = LoadBalancer::start)
      : check_(check), factory_(std::move(factory)) {}

  std::string name() const override { return "k8s.KubePrismController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  // runtime/Services "kubeprism".
  Status publish_service(ControllerContext& ctx, bool running, bool healthy);

  const HealthCheck check_;
  const LoadBalancerFactory factory_;
  std::unique_ptr<LoadBalancer> lb_;   // only the controller's pass touches these
  std::string listening_;              // host:port it was started on
  std::vector<std::string> upstreams_;
  RestartTracker restarts_;
};

}  // namespace cosi::controllers
