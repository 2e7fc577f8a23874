// KeptClients: etcd clients kept by endpoint, so that a controller asking the same members again
// and again (a health check, a poll, a learner asking for its promotion) reuses one connection
// instead of opening a TLS connection per call. A client whose call failed is forgotten, so the
// next one connects anew rather than waiting out its channel's reconnect backoff; new
// credentials start over. Safe from any thread.
//
//   KeptClients kept(clients, 700ms);
//   auto c = kept.get("127.5.0.10:2379", tls);
//   if (!c->status().ok()) kept.forget("127.5.0.10:2379", c);
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "controllers/etcd/etcd_client.h"

namespace cosi::controllers {

class KeptClients {
 public:
  KeptClients(EtcdClientFactory clients, std::chrono::milliseconds deadline) : clients_(std::move(clients)), deadline_(deadline) {}

  std::shared_ptr<EtcdClient> get(const std::string& endpoint, const EtcdTls& tls) {
    std::lock_guard lock(mu_);
    if (tls.crt != crt_ || tls.ca != ca_) {
      kept_.clear();
      crt_ = tls.crt;
      ca_ = tls.ca;
    }
    auto& c = kept_[endpoint];
    if (!c) c = clients_(endpoint, tls, deadline_);
    return c;
  }
  // Drops `client` (one get() returned) if it is still the one kept for `endpoint`: another
  // thread may have replaced it with a newer one, which stays.
  void forget(const std::string& endpoint, const std::shared_ptr<EtcdClient>& client) {
    std::lock_guard lock(mu_);
    auto it = kept_.find(endpoint);
    if (it != kept_.end() && it->second == client) kept_.erase(it);
  }
  void clear() {
    std::lock_guard lock(mu_);
    kept_.clear();
  }

 private:
  const EtcdClientFactory clients_;
  const std::chrono::milliseconds deadline_;
  std::mutex mu_;
  std::string crt_, ca_;
  std::map<std::string, std::shared_ptr<EtcdClient>> kept_;
};

}  // namespace cosi::controllers
