#include "api/discovery/discovery_service.h"

#include <arpa/inet.h>

#include <algorithm>
#include <deque>

namespace cosi::discovery {

namespace pb = ::sidero::discovery::server;

namespace {

using Message = std::shared_ptr<const pb::WatchResponse>;

grpc::Status invalid(const std::string& what) { return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, what); }
grpc::Status exhausted(const std::string& what) { return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, what); }
grpc::Status stopping() { return grpc::Status(grpc::StatusCode::UNAVAILABLE, "discoveryd is stopping"); }

int64_t to_unix_ms(SystemClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace

// One Watch stream: the messages it has yet to write.
struct DiscoveryService::Watcher {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Message> queue;
  bool cut_off = false;
  bool stopped = false;
};

std::string peer_address(const std::string& peer) {
  std::string rest = peer;
  for (const char* scheme : {"ipv4:", "ipv6:"}) {
    if (rest.rfind(scheme, 0) == 0) rest = rest.substr(5);
  }
  if (!rest.empty() && rest[0] == '[') {
    auto close = rest.find(']');
    return close == std::string::npos ? rest : rest.substr(1, close - 1);
  }
  auto colon = rest.rfind(':');
  return colon == std::string::npos ? rest : rest.substr(0, colon);
}

DiscoveryService::DiscoveryService(DiscoveryServiceOptions options)
    : options_(std::move(options)),
      requests_(metrics_.counter("discovery_requests_total", "Requests served, by all methods", {}).at({})),
      rejected_(metrics_.counter("discovery_rejected_total", "Requests refused for limits or rate", {}).at({})),
      expired_(metrics_.counter("discovery_expired_affiliates_total", "Affiliates removed after their TTL", {}).at({})),
      cut_off_(metrics_.counter("discovery_watchers_cut_off_total", "Watch streams ended for falling behind", {}).at({})) {
  metrics_.add_collector([this](metrics::Registry::Writer& w) {
    const Stats s = stats();
    w.gauge("discovery_clusters", "Clusters with at least one affiliate", {}, static_cast<double>(s.clusters));
    w.gauge("discovery_affiliates", "Affiliates stored", {}, static_cast<double>(s.affiliates));
    w.gauge("discovery_watchers", "Open Watch streams", {}, static_cast<double>(s.watchers));
  });
}

DiscoveryService::~DiscoveryService() { stop(); }

grpc::Status DiscoveryService::admit(grpc::ServerContext* context) {
  requests_.inc();
  std::lock_guard lock(mu_);
  if (stopped_) return stopping();
  if (options_.rate_limit <= 0) return grpc::Status::OK;
  const auto now = options_.now();
  auto [it, fresh] = buckets_.try_emplace(peer_address(context->peer()), Bucket{options_.rate_burst, now});
  Bucket& b = it->second;
  const double elapsed = std::chrono::duration<double>(now - b.last).count();
  b.tokens = std::min(options_.rate_burst, b.tokens + std::max(0.0, elapsed) * options_.rate_limit);
  b.last = now;
  if (b.tokens < 1) {
    rejected_.inc();
    return exhausted("rate limit exceeded for " + it->first + " (" + std::to_string(options_.rate_limit) +
                     " requests per second)");
  }
  b.tokens -= 1;
  return grpc::Status::OK;
}

grpc::Status DiscoveryService::check_id(const std::string& id, const char* what) const {
  if (id.empty()) return invalid(std::string(what) + " is empty");
  if (id.size() > options_.max_id_length) {
    return invalid(std::string(what) + " is too long (" + std::to_string(id.size()) + " > " +
                   std::to_string(options_.max_id_length) + " characters)");
  }
  return grpc::Status::OK;
}

void DiscoveryService::fill(pb::Affiliate* out, const std::string& id, const Affiliate& a) {
  out->set_id(id);
  out->set_data(a.data);
  for (const auto& e : a.endpoints) out->add_endpoints(e);
}

void DiscoveryService::publish(Cluster& cluster, Message message) {
  for (const auto& w : cluster.watchers) {
    std::lock_guard lock(w->mu);
    if (w->cut_off) continue;
    if (w->queue.size() >= options_.watch_queue) {
      w->cut_off = true;
      w->queue.clear();
      cut_off_.inc();
    } else {
      w->queue.push_back(message);
    }
    w->cv.notify_one();
  }
}

grpc::Status DiscoveryService::Hello(grpc::ServerContext* context, const pb::HelloRequest* request,
                                     pb::HelloResponse* response) {
  if (auto s = admit(context); !s.ok()) return s;
  if (auto s = check_id(request->cluster_id(), "cluster id"); !s.ok()) return s;
  const std::string ip = peer_address(context->peer());
  unsigned char raw[16];
  if (inet_pton(AF_INET, ip.c_str(), raw) == 1) {
    response->set_client_ip(raw, 4);
  } else if (inet_pton(AF_INET6, ip.c_str(), raw) == 1) {
    response->set_client_ip(raw, 16);
  }
  if (!options_.redirect.empty()) response->mutable_redirect()->set_endpoint(options_.redirect);
  return grpc::Status::OK;
}

grpc::Status DiscoveryService::AffiliateUpdate(grpc::ServerContext* context, const pb::AffiliateUpdateRequest* request,
                                               pb::AffiliateUpdateResponse*) {
  if (auto s = admit(context); !s.ok()) return s;
  if (auto s = check_id(request->cluster_id(), "cluster id"); !s.ok()) return s;
  if (auto s = check_id(request->affiliate_id(), "affiliate id"); !s.ok()) return s;
  if (request->affiliate_data().size() > options_.max_data) {
    return invalid("affiliate data is too big (" + std::to_string(request->affiliate_data().size()) + " > " +
                   std::to_string(options_.max_data) + " bytes)");
  }
  if (static_cast<size_t>(request->affiliate_endpoints_size()) > options_.max_endpoints) {
    return invalid("too many endpoints (" + std::to_string(request->affiliate_endpoints_size()) + " > " +
                   std::to_string(options_.max_endpoints) + ")");
  }
  for (const auto& e : request->affiliate_endpoints()) {
    if (e.size() > options_.max_endpoint_size) {
      return invalid("an endpoint is too big (" + std::to_string(e.size()) + " > " +
                     std::to_string(options_.max_endpoint_size) + " bytes)");
    }
  }
  const auto ttl = std::chrono::seconds(request->ttl().seconds()) + std::chrono::nanoseconds(request->ttl().nanos());
  if (ttl <= std::chrono::nanoseconds::zero()) return invalid("ttl must be positive");
  if (ttl > options_.max_ttl) {
    return invalid("ttl is too long (at most " + std::to_string(options_.max_ttl.count() / 1000) + " s)");
  }

  std::lock_guard lock(mu_);
  if (stopped_) return stopping();
  Cluster& cluster = clusters_[request->cluster_id()];
  auto it = cluster.affiliates.find(request->affiliate_id());
  if (it == cluster.affiliates.end()) {
    if (cluster.affiliates.size() >= options_.max_affiliates) {
      rejected_.inc();
      if (cluster.affiliates.empty() && cluster.watchers.empty()) clusters_.erase(request->cluster_id());
      return exhausted("too many affiliates in cluster (" + std::to_string(options_.max_affiliates) + ")");
    }
    it = cluster.affiliates.emplace(request->affiliate_id(), Affiliate{}).first;
  }
  Affiliate& a = it->second;
  bool changed = false;
  if (request->has_affiliate_data() && a.data != request->affiliate_data()) {
    a.data = request->affiliate_data();
    changed = true;
  }
  for (const auto& e : request->affiliate_endpoints()) {
    if (std::find(a.endpoints.begin(), a.endpoints.end(), e) != a.endpoints.end()) continue;
    if (a.endpoints.size() >= options_.max_endpoints) return exhausted("too many endpoints for this affiliate");
    a.endpoints.push_back(e);
    changed = true;
  }
  a.expires = options_.now() + std::chrono::duration_cast<SystemClock::duration>(ttl);
  ++updates_;
  if (changed) {
    auto message = std::make_shared<pb::WatchResponse>();
    fill(message->add_affiliates(), it->first, a);
    publish(cluster, std::move(message));
  }
  return grpc::Status::OK;
}

grpc::Status DiscoveryService::AffiliateDelete(grpc::ServerContext* context, const pb::AffiliateDeleteRequest* request,
                                               pb::AffiliateDeleteResponse*) {
  if (auto s = admit(context); !s.ok()) return s;
  if (auto s = check_id(request->cluster_id(), "cluster id"); !s.ok()) return s;
  if (auto s = check_id(request->affiliate_id(), "affiliate id"); !s.ok()) return s;
  std::lock_guard lock(mu_);
  auto c = clusters_.find(request->cluster_id());
  if (c == clusters_.end() || c->second.affiliates.erase(request->affiliate_id()) == 0) return grpc::Status::OK;
  auto message = std::make_shared<pb::WatchResponse>();
  message->add_affiliates()->set_id(request->affiliate_id());
  message->set_deleted(true);
  publish(c->second, std::move(message));
  return grpc::Status::OK;
}

grpc::Status DiscoveryService::List(grpc::ServerContext* context, const pb::ListRequest* request,
                                    pb::ListResponse* response) {
  if (auto s = admit(context); !s.ok()) return s;
  if (auto s = check_id(request->cluster_id(), "cluster id"); !s.ok()) return s;
  std::lock_guard lock(mu_);
  auto c = clusters_.find(request->cluster_id());
  if (c == clusters_.end()) return grpc::Status::OK;
  const auto now = options_.now();
  for (const auto& [id, a] : c->second.affiliates) {
    if (a.expires > now) fill(response->add_affiliates(), id, a);
  }
  return grpc::Status::OK;
}

grpc::Status DiscoveryService::Watch(grpc::ServerContext* context, const pb::WatchRequest* request,
                                     grpc::ServerWriter<pb::WatchResponse>* writer) {
  if (auto s = admit(context); !s.ok()) return s;
  if (auto s = check_id(request->cluster_id(), "cluster id"); !s.ok()) return s;
  auto watcher = std::make_shared<Watcher>();
  pb::WatchResponse first;
  {
    std::lock_guard lock(mu_);
    if (stopped_) return stopping();
    Cluster& cluster = clusters_[request->cluster_id()];
    const auto now = options_.now();
    for (const auto& [id, a] : cluster.affiliates) {
      if (a.expires > now) fill(first.add_affiliates(), id, a);
    }
    cluster.watchers.insert(watcher);
  }
  auto leave = [&] {
    std::lock_guard lock(mu_);
    auto c = clusters_.find(request->cluster_id());
    if (c == clusters_.end()) return;
    c->second.watchers.erase(watcher);
    if (c->second.watchers.empty() && c->second.affiliates.empty()) clusters_.erase(c);
  };
  // The snapshot first, even when empty: the client knows it is in sync.
  if (!writer->Write(first)) {
    leave();
    return grpc::Status::OK;
  }
  grpc::Status result = grpc::Status::OK;
  std::deque<Message> batch;
  while (true) {
    {
      std::unique_lock lock(watcher->mu);
      // Wakes on news; looks at the client every 200 ms (a cancelled call has no callback here).
      watcher->cv.wait_for(lock, std::chrono::milliseconds(200),
                           [&] { return !watcher->queue.empty() || watcher->cut_off || watcher->stopped; });
      if (watcher->stopped) {
        result = stopping();
        break;
      }
      if (watcher->cut_off) {
        result = exhausted("watcher fell behind; reconnect for a fresh snapshot");
        break;
      }
      batch.swap(watcher->queue);
    }
    if (context->IsCancelled()) break;
    bool ok = true;
    for (const auto& m : batch) {
      if (!(ok = writer->Write(*m))) break;
    }
    batch.clear();
    if (!ok) break;
  }
  leave();
  return result;
}

size_t DiscoveryService::collect() {
  const auto now = options_.now();
  size_t removed = 0;
  std::lock_guard lock(mu_);
  for (auto c = clusters_.begin(); c != clusters_.end();) {
    for (auto a = c->second.affiliates.begin(); a != c->second.affiliates.end();) {
      if (a->second.expires > now) {
        ++a;
        continue;
      }
      auto message = std::make_shared<pb::WatchResponse>();
      message->add_affiliates()->set_id(a->first);
      message->set_deleted(true);
      publish(c->second, std::move(message));
      a = c->second.affiliates.erase(a);
      ++removed;
    }
    if (c->second.affiliates.empty() && c->second.watchers.empty()) {
      c = clusters_.erase(c);
    } else {
      ++c;
    }
  }
  // Rate buckets that have refilled carry no information.
  if (options_.rate_limit > 0) {
    const auto full = std::chrono::duration<double>(options_.rate_burst / options_.rate_limit);
    std::erase_if(buckets_, [&](const auto& kv) { return now - kv.second.last > full; });
  }
  expired_.inc(static_cast<double>(removed));
  return removed;
}

void DiscoveryService::start_collector() {
  collector_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!stopped_) {
      stop_cv_.wait_for(lock, options_.collect_every, [this] { return stopped_; });
      if (stopped_) break;
      lock.unlock();
      collect();
      lock.lock();
    }
  });
}

void DiscoveryService::stop() {
  {
    std::lock_guard lock(mu_);
    if (!stopped_) {
      stopped_ = true;
      for (auto& [_, cluster] : clusters_) {
        for (const auto& w : cluster.watchers) {
          std::lock_guard wl(w->mu);
          w->stopped = true;
          w->cv.notify_one();
        }
      }
    }
  }
  stop_cv_.notify_all();
  if (collector_.joinable()) collector_.join();
}

::cosi::discoveryd::Snapshot DiscoveryService::snapshot() const {
  ::cosi::discoveryd::Snapshot out;
  out.set_saved_unix_ms(to_unix_ms(options_.now()));
  std::lock_guard lock(mu_);
  for (const auto& [cid, cluster] : clusters_) {
    if (cluster.affiliates.empty()) continue;
    auto* c = out.add_clusters();
    c->set_id(cid);
    for (const auto& [id, a] : cluster.affiliates) {
      auto* sa = c->add_affiliates();
      sa->set_id(id);
      sa->set_data(a.data);
      for (const auto& e : a.endpoints) sa->add_endpoints(e);
      sa->set_expires_unix_ms(to_unix_ms(a.expires));
    }
  }
  return out;
}

void DiscoveryService::restore(const ::cosi::discoveryd::Snapshot& snapshot) {
  const auto now = options_.now();
  // Nobody could refresh while the service was down: the TTLs pause for that long.
  const SystemClock::time_point saved{std::chrono::milliseconds(snapshot.saved_unix_ms())};
  const auto downtime = snapshot.saved_unix_ms() > 0 && now > saved ? now - saved : SystemClock::duration::zero();
  std::lock_guard lock(mu_);
  for (auto& [_, cluster] : clusters_) cluster.affiliates.clear();
  for (const auto& c : snapshot.clusters()) {
    for (const auto& sa : c.affiliates()) {
      const SystemClock::time_point expires = SystemClock::time_point{std::chrono::milliseconds(sa.expires_unix_ms())} + downtime;
      if (expires <= now) continue;
      Affiliate a{sa.data(), {sa.endpoints().begin(), sa.endpoints().end()}, expires};
      clusters_[c.id()].affiliates[sa.id()] = std::move(a);
    }
  }
}

DiscoveryService::Stats DiscoveryService::stats() const {
  Stats s;
  std::lock_guard lock(mu_);
  s.updates = updates_;
  for (const auto& [_, cluster] : clusters_) {
    if (!cluster.affiliates.empty()) ++s.clusters;
    s.affiliates += cluster.affiliates.size();
    s.watchers += cluster.watchers.size();
  }
  return s;
}

}  // namespace cosi::discovery
