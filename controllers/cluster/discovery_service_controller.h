// DiscoveryServiceController: runs the discovery-service client while the DiscoveryConfig
// enables the service registry. It publishes this node's Affiliate (cluster/<node id>) and
// writes every other affiliate the service reports as cluster-raw/Affiliates
// "service/<node id>"; the client's waker brings it back whenever the service has news.
// Without an enabled registry it runs no client and its raw affiliates go away.
//
//   runtime.add(std::make_unique<DiscoveryServiceController>(make_grpc_discovery_client, 30min));
//   controller->leave(1s);   // Reset and `machined --leave`: delete our affiliate now
#pragma once

#include <chrono>
#include <memory>
#include <mutex>

#include "controllers/cluster/discovery_client.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

class DiscoveryServiceController final : public Controller {
 public:
  DiscoveryServiceController(DiscoveryClientFactory factory, std::chrono::milliseconds ttl)
      : factory_(std::move(factory)), ttl_(ttl) {}

  std::string name() const override { return "cluster.DiscoveryServiceController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

  // Deletes this node's affiliate from the service and stops the client; kFailedPrecondition
  // when no client runs. Safe from any thread.
  Status leave(std::chrono::milliseconds deadline);

 private:
  const DiscoveryClientFactory factory_;
  const std::chrono::milliseconds ttl_;
  std::mutex mu_;
  std::unique_ptr<DiscoveryClient> client_;
  std::string client_key_;  // the options the client was made with
  bool left_ = false;
};

}  // namespace cosi::controllers
