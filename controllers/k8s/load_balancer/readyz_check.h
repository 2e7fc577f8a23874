// ReadyzCheck: the load balancer's optional HTTPS health check — `GET /readyz` over TLS to an
// upstream, good only for an `HTTP/1.x 200`. A TCP connect says the API server's port is open;
// /readyz says the server is ready to serve (an apiserver that is still starting, or has lost
// etcd, accepts connections and answers 500). Any certificate is accepted: the check asks
// whether the server is ready, not who it is; clients' own TLS passes through the balancer
// untouched.
//
// Checks run off the balancer's loop (a TLS handshake blocks), each on a short-lived thread of
// its own, so an upstream that hangs holds up no other check. Answers are collected for the
// loop, which is told through an eventfd that some are ready — as NameResolver does.
//
//   ReadyzCheck checks;                                     // checks.fd() joins the epoll set
//   checks.start("10.0.0.2:6443", to, 7, 1000ms);           // 7: the caller's tag for it
//   ... fd readable ...
//   for (auto& a : checks.take()) use(a.tag, a.ok, a.connect_latency);
//
// Destroying it does not wait for checks in flight: each ends by its deadline and drops its answer.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "controllers/k8s/load_balancer/name_resolver.h"

namespace cosi::controllers {

struct ReadyzAnswer {
  std::string address;
  uint32_t tag = 0;
  bool ok = false;
  std::chrono::microseconds connect_latency{0};  // of the TCP connect, when it connected
  std::string why;                               // what failed, when not ok
};

class ReadyzCheck {
 public:
  ReadyzCheck();
  ~ReadyzCheck();
  ReadyzCheck(const ReadyzCheck&) = delete;
  ReadyzCheck& operator=(const ReadyzCheck&) = delete;

  // Readable when answers are waiting.
  int fd() const;
  // One check of `address` at `to`, over within `deadline` (connect, handshake and answer).
  void start(const std::string& address, const SocketAddress& to, uint32_t tag, std::chrono::milliseconds deadline);
  // The answers so far (and the eventfd's count read).
  std::vector<ReadyzAnswer> take();

  // The check itself, on the calling thread; exposed for tests.
  static ReadyzAnswer run(const std::string& address, const SocketAddress& to, std::chrono::milliseconds deadline);

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
};

}  // namespace cosi::controllers
