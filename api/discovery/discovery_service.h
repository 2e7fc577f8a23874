// DiscoveryService: our implementation of `sidero.discovery.server.Cluster`, the service Talos
// nodes publish their encrypted affiliate records to and watch each other's through. It keeps
// everything in memory, clusters isolated by id; it never sees plaintext.
//
//   DiscoveryService service({.rate_limit = 0});     // 0: no per-client limit (local clusters)
//   builder.RegisterService(&service);
//   service.start_collector();                        // expires affiliates past their TTL
//   auto saved = service.snapshot();                   // discoveryd writes it to a file
//   other.restore(saved);
//
// Limits as upstream: cluster and affiliate ids 1..256 chars, data ≤ 2048 bytes, ≤ 64
// endpoints of ≤ 32 bytes, TTL in (0, 30 min] — INVALID_ARGUMENT; more than 1024 affiliates in
// a cluster or more requests per second than a client's budget — RESOURCE_EXHAUSTED. A watcher
// that falls `watch_queue` messages behind is cut off (RESOURCE_EXHAUSTED: it reconnects and
// gets a fresh snapshot) so it never holds back the others.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>

#include "discovery.grpc.pb.h"
#include "discoveryd_snapshot.pb.h"
#include "runtime/base/result.h"
#include "runtime/base/thread_annotations.h"
#include "runtime/metrics/registry.h"

namespace cosi::discovery {

using SystemClock = std::chrono::system_clock;

struct DiscoveryServiceOptions {
  size_t max_id_length = 256;
  size_t max_data = 2048;
  size_t max_endpoints = 64;
  size_t max_endpoint_size = 32;
  size_t max_affiliates = 1024;  // per cluster
  std::chrono::milliseconds max_ttl = std::chrono::minutes(30);
  double rate_limit = 15;  // requests per second per client address; 0 = unlimited
  double rate_burst = 60;
  size_t watch_queue = 10000;
  std::chrono::milliseconds collect_every = std::chrono::seconds(1);
  std::string redirect;  // when set, Hello tells every client to use this endpoint instead
  std::function<SystemClock::time_point()> now = [] { return SystemClock::now(); };
};

class DiscoveryService final : public ::sidero::discovery::server::Cluster::Service {
 public:
  explicit DiscoveryService(DiscoveryServiceOptions options = {});
  ~DiscoveryService() override;

  grpc::Status Hello(grpc::ServerContext* context, const ::sidero::discovery::server::HelloRequest* request,
                     ::sidero::discovery::server::HelloResponse* response) override;
  grpc::Status AffiliateUpdate(grpc::ServerContext* context,
                               const ::sidero::discovery::server::AffiliateUpdateRequest* request,
                               ::sidero::discovery::server::AffiliateUpdateResponse* response) override;
  grpc::Status AffiliateDelete(grpc::ServerContext* context,
                               const ::sidero::discovery::server::AffiliateDeleteRequest* request,
                               ::sidero::discovery::server::AffiliateDeleteResponse* response) override;
  grpc::Status List(grpc::ServerContext* context, const ::sidero::discovery::server::ListRequest* request,
                    ::sidero::discovery::server::ListResponse* response) override;
  grpc::Status Watch(grpc::ServerContext* context, const ::sidero::discovery::server::WatchRequest* request,
                     grpc::ServerWriter<::sidero::discovery::server::WatchResponse>* writer) override;

  // Removes the affiliates whose TTL has passed (and clusters left empty), telling watchers.
  size_t collect();
  // A thread that collects every `collect_every`, until stop().
  void start_collector();
  // Ends every watch stream and the collector; RPCs after it fail with UNAVAILABLE.
  void stop();

  ::cosi::discoveryd::Snapshot snapshot() const;
  // Replaces the state with a snapshot's. TTLs pause while the service is down: each expiry
  // moves by the time since the snapshot was saved (nobody could refresh meanwhile).
  void restore(const ::cosi::discoveryd::Snapshot& snapshot);

  struct Stats {
    size_t clusters = 0;
    size_t affiliates = 0;
    size_t watchers = 0;
    uint64_t updates = 0;  // AffiliateUpdate calls accepted, refreshes included
  };
  Stats stats() const;
  metrics::Registry& metrics() { return metrics_; }

 private:
  struct Affiliate {
    std::string data;
    std::vector<std::string> endpoints;
    SystemClock::time_point expires;
  };
  struct Watcher;
  struct Cluster {
    std::map<std::string, Affiliate> affiliates;
    std::set<std::shared_ptr<Watcher>> watchers;
  };
  struct Bucket {
    double tokens;
    SystemClock::time_point last;
  };

  grpc::Status admit(grpc::ServerContext* context);
  grpc::Status check_id(const std::string& id, const char* what) const;
  // With mu_ held.
  void publish(Cluster& cluster, std::shared_ptr<const ::sidero::discovery::server::WatchResponse> message);
  static void fill(::sidero::discovery::server::Affiliate* out, const std::string& id, const Affiliate& a);

  const DiscoveryServiceOptions options_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Cluster> clusters_ COSI_GUARDED_BY(mu_);
  std::unordered_map<std::string, Bucket> buckets_ COSI_GUARDED_BY(mu_);
  bool stopped_ COSI_GUARDED_BY(mu_) = false;
  uint64_t updates_ COSI_GUARDED_BY(mu_) = 0;
  std::condition_variable stop_cv_;
  std::thread collector_;

  metrics::Registry metrics_;
  metrics::Counter& requests_;
  metrics::Counter& rejected_;
  metrics::Counter& expired_;
  metrics::Counter& cut_off_;
};

// "ipv4:127.0.0.1:5000" → "127.0.0.1"; "ipv6:[::1]:5000" → "::1".
std::string peer_address(const std::string& peer);

}  // namespace cosi::discovery
