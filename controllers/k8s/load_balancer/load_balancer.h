// LoadBalancer: KubePrism's TCP load balancer — one listening address, a set of upstreams, and
// a thread of its own running an edge-triggered epoll loop (kept out of this header) that
// accepts, dials and copies.
//
// A client's connection goes to the first upstream of UpstreamSet::dial_order() that answers
// within the dial deadline; a dial that fails or times out marks that upstream down and tries
// the next, so the client is refused (closed) only when every upstream failed. Bytes are copied
// through one buffer per direction, taken only while data flows (an idle connection holds
// none); an end of stream is passed on as a half-close. Both sockets get TCP keep-alive and
// TCP_USER_TIMEOUT. Every upstream is health-checked each second, with jitter: a TCP connect,
// or (HealthCheck::kHttpsReadyz) an HTTPS `GET /readyz` that must answer 200 (ReadyzCheck); a
// host name is resolved by those checks, off the loop, and dials use the last answer.
// Past `max_connections` new clients are closed at once, and the log says so (once a second).
//
// Why not Boost.Asio: its reactor costs a connection per request about seven system calls more
// than HAProxy's (a speculative read that finds nothing on each side, FIONBIO on each socket,
// an epoll_ctl to delete an accepted socket, SO_ERROR after each connect), which put it 8–12%
// behind HAProxy in kubeprism.rps_close. Here: accept4 and socket with SOCK_NONBLOCK, one
// epoll_ctl per socket, a short read taken as "drained" (epoll's edge comes with the next
// byte), EPOLLRDHUP read as the end of stream with no read that returns 0, close(2) to leave
// the epoll set.
//
//   auto lb = LoadBalancer::start({.host = "127.0.0.1", .port = 7445, .on_change = waker});
//   (*lb)->set_upstreams({"198.51.100.10:6443", "198.51.100.11:6443"});
//   (*lb)->upstreams();   // health, latency, score, active connections
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "controllers/k8s/load_balancer/upstream_set.h"
#include "runtime/base/log.h"
#include "runtime/base/result.h"

namespace cosi::controllers {

enum class HealthCheck { kTcpConnect, kHttpsReadyz };

struct LoadBalancerOptions {
  std::string host = "127.0.0.1";
  int port = 7445;
  std::chrono::milliseconds dial_timeout{250};
  std::chrono::milliseconds check_every{1000};
  HealthCheck health_check = HealthCheck::kTcpConnect;
  int max_connections = 8192;
  // Called from the balancer's thread when an upstream's health changed.
  std::function<void()> on_change;
  Logger log;
};

class LoadBalancer {
 public:
  // Binds and starts; kUnavailable naming the address when it cannot listen there.
  static Result<std::unique_ptr<LoadBalancer>> start(LoadBalancerOptions options);
  // Stops: no new connections, every open one closed, the thread joined.
  virtual ~LoadBalancer() = default;

  // "host:port" each; a host may be a name (resolved by the health checks). Established connections
  // are left alone, whichever upstream they go to.
  virtual void set_upstreams(const std::vector<std::string>& upstreams) = 0;
  virtual std::vector<UpstreamState> upstreams() const = 0;
  // The address it listens on ("127.0.0.1:7445").
  virtual std::string address() const = 0;
  virtual int connections() const = 0;
};

}  // namespace cosi::controllers
