#include "controllers/cluster/discovery_service_controller.h"

#include "resources/cluster/cluster_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;

namespace {
const Pointer kConfig{kConfigNamespace, kDiscoveryConfigType, std::string(kDiscoveryConfigId)};
const Pointer kIdentity{kClusterNamespace, kIdentityType, std::string(kLocalIdentityId)};
constexpr std::string_view kRawPrefix = "service/";
}  // namespace

std::vector<Input> DiscoveryServiceController::inputs() const {
  return {{kConfigNamespace, kDiscoveryConfigType, std::string(kDiscoveryConfigId)},
          {kClusterNamespace, kIdentityType, std::string(kLocalIdentityId)},
          {kClusterNamespace, kAffiliateType}};
}

std::vector<Output> DiscoveryServiceController::outputs() const { return {{kAffiliateType, OutputKind::kShared}}; }

ReconcileResult DiscoveryServiceController::reconcile(ControllerContext& ctx) {
  auto cfg = ctx.get_typed<DiscoveryConfigSpec>(kConfig);
  auto identity = ctx.get_typed<IdentitySpec>(kIdentity);
  std::unique_lock lock(mu_);
  const bool wanted = cfg.ok() && identity.ok() && (*cfg)->spec().discovery_enabled() &&
                      (*cfg)->spec().registry_service_enabled() && !left_;
  if (!wanted) {
    if (client_) ctx.log().info("discovery service client stopped");
    client_.reset();
    client_key_.clear();
    return ReconcileResult::done();  // the raw affiliates we wrote are cleaned up
  }
  const auto& c = (*cfg)->spec();
  const std::string& node_id = (*identity)->spec().node_id();
  const std::string key = c.service_endpoint() + '\n' + c.service_cluster_id() + '\n' + c.service_encryption_key() + '\n' + node_id;
  if (!client_ || key != client_key_) {
    client_.reset();
    auto made = factory_(DiscoveryClientOptions{.endpoint = c.service_endpoint(),
                                                .cluster_id = c.service_cluster_id(),
                                                .secret = c.service_encryption_key(),
                                                .affiliate_id = node_id,
                                                .ttl = ttl_,
                                                .on_change = ctx.waker(),
                                                .log = ctx.log()});
    if (!made.ok()) return ReconcileResult::terminal(made.error());
    client_ = std::move(*made);
    client_key_ = key;
    ctx.log().info("discovery service client started", {{"endpoint", c.service_endpoint()}});
  }
  if (auto local = ctx.get_typed<AffiliateSpec>({kClusterNamespace, kAffiliateType, node_id}); local.ok()) {
    client_->publish((*local)->spec());
  }
  const auto peers = client_->peers();
  lock.unlock();

  for (const auto& peer : peers) {
    auto written = ctx.modify<AffiliateSpec>(Metadata(kClusterRawNamespace, kAffiliateType, std::string(kRawPrefix) + peer.id),
                                             [&](AffiliateSpec& s) { s = peer.affiliate; });
    if (!written.ok()) return ReconcileResult::retry(written.error());
  }
  return ReconcileResult::done();
}

Status DiscoveryServiceController::leave(std::chrono::milliseconds deadline) {
  std::lock_guard lock(mu_);
  left_ = true;
  if (!client_) return Error(ErrorKind::kFailedPrecondition, "no discovery service client is running");
  auto s = client_->leave(deadline);
  client_.reset();
  client_key_.clear();
  return s;
}

}  // namespace cosi::controllers
