// ApiListener: the node's API port (and trustd's, on control planes), served in the mode the
// store says the node is in, and rebuilt when that changes:
//
//   insecure-dev   --insecure-dev: plaintext on loopback, every caller os:admin
//   maintenance    no machine config: TLS with a self-signed certificate (its fingerprint is
//                  logged), every caller os:reader, ApplyConfiguration allowed, no forwarding
//   waiting        a config but no API certificates yet (a worker asking trustd): not listening
//   secure         mutual TLS with the OS CA; roles from client certificates; control planes
//                  forward to other nodes and serve trustd
//
// trustd is one of the node's services: runtime/Services "trustd" says whether it serves, and
// runtime/ServiceRequests "trustd" (ServiceStop / ServiceStart) stops and starts it alone.
//
// Every call goes through the front (api/front) to the node's own services over `local`.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/host_port.h"
#include "runtime/base/log.h"
#include "runtime/state/state.h"

namespace grpc {
class Channel;
class Server;
}  // namespace grpc

namespace cosi::api {

struct ApiListenerOptions {
  api::HostPort listen;
  int trustd_port = 50001;
  std::vector<std::string> self;  // the node's names and addresses, as `node` metadata names it
  std::string hostname;
  bool insecure_dev = false;
};

class ApiListener {
 public:
  ApiListener(State& state, std::shared_ptr<grpc::Channel> local, ApiListenerOptions options, Logger log);
  ~ApiListener();

  // Serves the current mode, then follows the store until stop().
  Status start();
  void stop();

  std::string mode() const;
  // The fingerprint of the maintenance certificate (base64 SHA-256 of its public key).
  const std::string& maintenance_fingerprint() const { return maintenance_fingerprint_; }

 private:
  struct Serving;
  struct Desired;

  Desired desired();
  // Whether `node` is one of the addresses the node has now (NodeAddresses).
  bool has_address(const std::string& node) const;
  Status apply(const Desired& d);
  Status apply_api(const Desired& d);
  // trustd has a life of its own: stopped and started (ServiceRequests "trustd") without
  // touching the API port. serving_ holds an API server.
  Status apply_trustd(const Desired& d);
  // runtime/Services "trustd" on control planes.
  void publish_trustd(const Desired& d);
  void follow();

  State& state_;
  std::shared_ptr<grpc::Channel> local_;
  const ApiListenerOptions options_;
  Logger log_;
  std::string maintenance_crt_;
  std::string maintenance_key_;
  std::string maintenance_fingerprint_;

  std::mutex signal_mu_;  // dirty_, stopping_: raised from store writers' threads
  std::condition_variable cv_;
  bool dirty_ = false;
  bool stopping_ = false;
  mutable std::mutex mu_;  // serving_
  std::unique_ptr<Serving> serving_;
  std::vector<WatchPtr> watches_;
  std::thread follower_;
};

}  // namespace cosi::api
