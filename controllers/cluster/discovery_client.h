// What the discovery controller needs from a discovery-service client: publish this node's
// affiliate, see everyone else's, leave. Controllers do not dial gRPC: machined injects the
// real client (api/discovery/grpc_discovery_client.h), unit tests a fake.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "resources/cluster/cluster_resources.h"
#include "runtime/base/log.h"
#include "runtime/base/result.h"

namespace cosi::controllers {

struct DiscoveryPeer {
  std::string id;  // the affiliate id: the peer's node id
  resources::AffiliateSpec affiliate;

  friend bool operator==(const DiscoveryPeer& a, const DiscoveryPeer& b) {
    return a.id == b.id && a.affiliate.SerializeAsString() == b.affiliate.SerializeAsString();
  }
};

struct DiscoveryClientOptions {
  std::string endpoint;      // "http://host:port" or "https://host:port"
  std::string cluster_id;
  std::string secret;        // 32 bytes: the decoded cluster secret
  std::string affiliate_id;  // this node's id
  std::chrono::milliseconds ttl = std::chrono::minutes(30);
  std::function<void()> on_change;  // the peers changed; called from the client's own thread
  Logger log;
};

class DiscoveryClient {
 public:
  virtual ~DiscoveryClient() = default;  // stops; the affiliate stays until its TTL (see leave)

  // What this node publishes: sent when it changes, refreshed every TTL/2.
  virtual void publish(const resources::AffiliateSpec& local) = 0;
  // Deletes this node's affiliate from the service and stops publishing it.
  virtual Status leave(std::chrono::milliseconds deadline) = 0;
  // The other affiliates as last seen (kept while reconnecting), sorted by id.
  virtual std::vector<DiscoveryPeer> peers() const = 0;
};

using DiscoveryClientFactory = std::function<Result<std::unique_ptr<DiscoveryClient>>(DiscoveryClientOptions)>;

}  // namespace cosi::controllers
