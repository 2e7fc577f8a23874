// The discovery-service client machined runs: speaks `sidero.discovery.server.Cluster` as
// Talos's discovery-client does (shared/PROTOCOL.md §8).
//
//   Hello first, following a redirect; AffiliateUpdate with the data sealed by the cluster
//   secret, TTL as configured, re-sent every TTL/2 and at once when the plaintext changes
//   (never when it does not); Watch: a snapshot, then deltas; on any failure, reconnect with
//   backoff capped at min(5 s, TTL/4), keeping the last peers meanwhile. A record that does
//   not open with our secret is skipped, with one log line per peer.
//
//   auto client = make_grpc_discovery_client({.endpoint = "http://127.5.0.1:3000", ...});
#pragma once

#include <memory>

#include "controllers/cluster/discovery_client.h"
#include "resources/cluster/cluster_resources.h"

namespace sidero::discovery::client {
class Affiliate;
}

namespace cosi::discovery {

// kInvalidArgument for an endpoint that is not an http(s) URL or a secret that is not 32 bytes.
Result<std::unique_ptr<controllers::DiscoveryClient>> make_grpc_discovery_client(controllers::DiscoveryClientOptions options);

// The Talos resource and the discovery wire's plaintext, both ways.
void to_wire(const resources::AffiliateSpec& spec, ::sidero::discovery::client::Affiliate* out);
resources::AffiliateSpec from_wire(const ::sidero::discovery::client::Affiliate& wire);

}  // namespace cosi::discovery
