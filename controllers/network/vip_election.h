// VipElection: one node's campaign for one shared IP, as the VIP operator sees it. The
// campaign itself runs elsewhere (in etcd: controllers/network/etcd_vip_election.h; in unit
// tests: a fake driven by hand); the operator only asks what it may do now.
//
//   auto election = factory({.key = "talos:v1:vip:election:198.51.100.5", .candidate = "cp-1", ...});
//   auto s = election->state();
//   if (s.leading && ctx.now() < s.valid_until) ...   // hold the VIP, at most until valid_until
//   election->resign(1s);                             // after the address is gone: let the next one take it
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "controllers/etcd/etcd_client.h"
#include "runtime/base/log.h"
#include "runtime/base/result.h"
#include "runtime/exec/clock.h"

namespace cosi::controllers {

struct VipElectionState {
  // This node's candidacy is the oldest: it is the one to hold the VIP.
  bool leading = false;
  // While leading: until when this node's lease surely lives (its last successful keep-alive
  // was sent at t, so the lease lives until t + TTL at least; this is t + TTL − a margin). The
  // VIP may be held until then, and no longer.
  SteadyTime valid_until{};
  // Who leads, as the election key says (a node name); empty when nobody campaigns.
  std::string holder;
  // When this node first saw the current holder lead.
  std::chrono::system_clock::time_point since{};

  friend bool operator==(const VipElectionState&, const VipElectionState&) = default;
};

struct VipElectionOptions {
  std::string key;        // the election's prefix: "talos:v1:vip:election:<ip>"
  std::string candidate;  // this node's name, the value of its key
  std::chrono::seconds ttl{2};
  // The local etcd member and machined's client certificate.
  std::string endpoint;
  EtcdTls tls;
  // Called (from the election's own threads) whenever state() changed.
  std::function<void()> on_change;
  Logger log;
};

class VipElection {
 public:
  // Stops campaigning without resigning: the key goes when the lease expires.
  virtual ~VipElection() = default;
  virtual VipElectionState state() const = 0;
  // Deletes this node's key and revokes its lease, so the next candidate leads at once; the
  // campaign is over. Call it only once the VIP is off this node.
  virtual Status resign(std::chrono::milliseconds deadline) = 0;
};

using VipElectionFactory = std::function<std::unique_ptr<VipElection>(VipElectionOptions)>;

}  // namespace cosi::controllers
