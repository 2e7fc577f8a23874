// UpstreamSet: what the KubePrism load balancer knows of its upstreams, and in which order a
// new client's connection tries them. Pure bookkeeping, no sockets: the balancer feeds it the
// results of its health checks and dials.
//
// An upstream is down after a failed check or a failed dial, and up again after two good checks
// in a row (a new one starts down and is checked at once). The order: the healthy ones of the
// lowest latency tier first, fewest active connections first among equals; then the rest of the
// healthy ones by tier; then the unhealthy ones, so that a client still gets through when every
// check is failing but an upstream answers.
//
//   UpstreamSet set;
//   set.assign({"10.0.0.2:6443", "10.0.0.3:6443"});
//   set.check_passed("10.0.0.2:6443", 300us);
//   for (const auto& a : set.dial_order()) { ... dial a; on failure set.failed(a) ... }
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace cosi::controllers {

struct UpstreamState {
  std::string address;  // "host:port"
  bool healthy = false;
  std::chrono::microseconds latency{0};  // of the last good connect
  int score = 0;                         // +1 a good check, −1 a failure, within [−3, 3]
  int active = 0;                        // client connections through it now
  int good_in_a_row = 0;

  friend bool operator==(const UpstreamState&, const UpstreamState&) = default;
};

class UpstreamSet {
 public:
  // The upstreams from now on, in the order given (the order breaks ties); those that stay
  // keep their state, active connections included.
  void assign(const std::vector<std::string>& addresses);

  void check_passed(const std::string& address, std::chrono::microseconds latency);
  // A failed health check or a failed dial: down at once.
  void failed(const std::string& address);
  void opened(const std::string& address);
  void closed(const std::string& address);

  std::vector<std::string> dial_order() const;
  // The same into `out`, reusing its room (a balancer asks once per client connection).
  void dial_order_into(std::vector<std::string>& out) const;
  std::vector<UpstreamState> snapshot() const;
  bool any_healthy() const;

  // The latency tier: below 1 ms, 5 ms, 25 ms, 125 ms, and slower. Within a tier the balancer
  // spreads by load, not by microseconds.
  static int tier(std::chrono::microseconds latency);

 private:
  UpstreamState* find(const std::string& address);
  std::vector<UpstreamState> upstreams_;
};

}  // namespace cosi::controllers
