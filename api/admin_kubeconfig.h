// AdminKubeconfig: MachineService.Kubeconfig's source on a control plane — the admin kubeconfig
// issued from the applied config (cluster.ca with its key, cluster.clusterName, the endpoint).
// kFailedPrecondition naming why on a node without the Kubernetes CA key (a worker, or one in
// maintenance mode).
//
//   AdminKubeconfig kubeconfig(state);
//   MachineServer machine(node, &config, &reset, &etcd, &kubeconfig);
#pragma once

#include "api/machine_server.h"
#include "runtime/state/state.h"

namespace cosi::api {

class AdminKubeconfig final : public KubeconfigIssuer {
 public:
  explicit AdminKubeconfig(State& state) : state_(state) {}
  Result<std::string> kubeconfig() override;

 private:
  State& state_;
};

}  // namespace cosi::api
