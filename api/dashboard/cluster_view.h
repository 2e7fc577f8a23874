// ClusterView: the dashboard's picture of a cluster, made from what it watches on every node —
// Members, EtcdClusters, EtcdStatuses, VIPStatuses, KubePrismStatuses, KubePrismUpstreams,
// ServiceStatuses and MachineConfigs — and from which nodes it cannot reach. The terminal
// dashboard and the web page draw the same ClusterSnapshot; the view holds no connection, so a
// test feeds it events by hand.
//
//   ClusterView view;
//   view.add_node("127.5.0.10");
//   view.apply("127.5.0.10", event);                       // from the node's watches
//   view.lost("127.5.0.12", kind, "connection refused");   // a watch that ended
//   ClusterSnapshot s = view.snapshot();                   // s.quorum.has_quorum, s.nodes[1].etcd_role, ...
//
// Every control plane computes the etcd quorum itself (EtcdClusters); the snapshot takes it from
// a reachable control plane whose own etcd is healthy, so a stopped member never speaks for the
// cluster.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "runtime/resource/pointer.h"
#include "runtime/state/event.h"

namespace cosi::dashboard {

struct ServiceRow {
  std::string id;
  std::string state;   // Talos's: Running, Finished, Waiting, ...
  std::string health;  // "OK", "Fail" or "?"
};

struct UpstreamRow {
  std::string address;  // host:port
  bool healthy = false;
  std::string latency;
  uint32_t active = 0;
};

struct NodeCard {
  std::string address;       // where the dashboard reaches it
  std::string hostname;      // its Member's; the address until one is known
  std::string machine_type;  // "controlplane", "worker", or "" before its Member is seen
  bool reachable = false;
  std::string error;   // why not, when unreachable
  std::string config;  // "applied (v3)", "applied" (hidden from this role), or "" when unknown
  // etcd, on control planes, as the quorum's view sees this member:
  std::string etcd_role;    // "leader", "follower", "learner", or "" when not a member
  bool etcd_healthy = false;
  std::string etcd_error;   // the member's error, when unhealthy
  std::string etcd_member;  // member id, 16 hex digits
  std::vector<ServiceRow> services;  // by id
  // KubePrism on this node:
  std::string kubeprism_host;
  bool kubeprism_healthy = false;
  std::vector<UpstreamRow> upstreams;
};

struct MemberRow {
  std::string id;
  std::string machine_type;
  std::vector<std::string> addresses;
};

struct QuorumRow {
  uint32_t members = 0;
  uint32_t quorum = 0;     // floor(members / 2) + 1
  uint32_t tolerates = 0;  // members - quorum
  bool current = false;    // the cluster has this many voting members now
};

struct QuorumView {
  bool known = false;     // some control plane reported EtcdClusters
  std::string seen_from;  // its hostname
  uint32_t members = 0, voting = 0, healthy = 0, quorum_needed = 0, tolerated = 0;
  bool has_quorum = false;
  std::string leader;  // the leader's hostname (its member id when the name is unknown); empty: none
  uint64_t leader_changes = 0;
  std::vector<QuorumRow> table;  // 1 to max(5, voting) members
};

struct VipView {
  std::string ip;
  std::string holder;  // node name; empty when nobody holds it
};

struct ClusterSnapshot {
  uint64_t generation = 0;  // grows with every change the view took
  std::vector<NodeCard> nodes;   // control planes first, then by hostname
  std::vector<MemberRow> members;  // as the first reachable node lists them
  QuorumView quorum;
  std::vector<VipView> vips;
  bool writes_available = false;  // etcd has quorum (the Kubernetes API can write)
};

// The kinds the dashboard watches on each node.
const std::vector<Kind>& watched_kinds();

// The quorum table of the seed: members 1..n with the quorum they need and the failures they
// tolerate.
std::vector<QuorumRow> quorum_table(uint32_t voting);

class ClusterView {
 public:
  // A node to draw (and watch); known nodes are left as they are. True when it is new.
  bool add_node(const std::string& address);
  std::vector<std::string> nodes() const;

  // An event of one of the node's watches (Created, Updated, Destroyed; others are ignored).
  void apply(const std::string& address, const Event& event);
  // A watch of `kind` on the node ended with `error`: what it showed is forgotten; the node is
  // unreachable while its Members watch is down.
  void lost(const std::string& address, const Kind& kind, const std::string& error);
  // The watch of `kind` on the node is open again.
  void opened(const std::string& address, const Kind& kind);

  // Addresses of Members no node has been added for (the first address of each).
  std::vector<std::string> undiscovered() const;

  ClusterSnapshot snapshot() const;
  uint64_t generation() const;

 private:
  struct NodeState {
    std::map<std::pair<std::string, std::string>, ResourcePtr> resources;  // (type, id)
    std::set<std::string> open_kinds;                                       // types with a live watch
    std::string error;
    std::string last_hostname, last_machine_type;  // kept while it is unreachable
  };

  NodeCard card(const std::string& address, const NodeState& node) const;

  mutable std::mutex mu_;
  std::map<std::string, NodeState> nodes_;  // guarded by mu_
  uint64_t generation_ = 0;                 // guarded by mu_
};

}  // namespace cosi::dashboard
