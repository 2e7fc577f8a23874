// KubePrismConfigController: KubePrism's configuration (KubePrismConfigs
// "k8s-loadbalancer-config") while machine.features.kubePrism.enabled: the address it listens
// on — 127.0.0.1 on a host the node owns, the node's own address where local nodes share a
// host's loopback (given by machined) — its port, and the endpoints to balance over.
//
//   runtime.add(std::make_unique<KubePrismConfigController>("127.0.0.1"));
#pragma once

#include <string>

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class KubePrismConfigController final : public Controller {
 public:
  explicit KubePrismConfigController(std::string listen_host) : listen_host_(std::move(listen_host)) {}

  std::string name() const override { return "k8s.KubePrismConfigController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  const std::string listen_host_;
};

}  // namespace cosi::controllers
