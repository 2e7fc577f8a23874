// Waiting for a cluster to be whole, with a progress line whenever what is seen changes:
// every node listing every member (discovery), and etcd with every control plane a healthy
// voting member (quorum). Used by `cluster create` and `health`. Every call has a deadline.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::cosictl {

struct CheckedNode {
  std::string name;
  std::string ip;
  bool control_plane = false;
};

// The member names `ip` lists, over mTLS with `talosconfig` (empty: the usual lookup).
Result<std::vector<std::string>> members_of(const std::string& ip, const std::string& talosconfig);

// The nodes `ip` knows of, from its Members: names, first addresses, machine types.
Result<std::vector<CheckedNode>> cluster_nodes(const std::string& ip, const std::string& talosconfig);

// True once every node lists exactly the names of `nodes`.
bool wait_for_members(const std::vector<CheckedNode>& nodes, const std::string& talosconfig,
                      std::chrono::steady_clock::time_point deadline);

// True once `ip`'s EtcdClusters says: quorum, a leader, `voting` voting members, all healthy.
bool wait_for_etcd(const std::string& ip, size_t voting, const std::string& talosconfig,
                   std::chrono::steady_clock::time_point deadline);

}  // namespace cosi::cosictl
