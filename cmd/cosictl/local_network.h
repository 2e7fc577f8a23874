// The network of a local cluster in network namespaces (`cluster create --netns`, root only):
// one bridge on the host holding the block's first address, and per node a namespace whose
// eth0 is one end of a veth pair on that bridge, so every node owns its links (machined
// --host-network) and the host — discoveryd, cosictl — reaches them all. No route leads
// anywhere else. Made and removed with iproute2, each command with a deadline; removal kills
// whatever still runs in the namespaces.
//
//   LocalNetwork net = plan_network("demo", {"demo-controlplane-1", ...});   // names only
//   create_network(net, "198.51.100.1", 24, {"198.51.100.10", ...});
//   destroy_network(net);
#pragma once

#include <string>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::cosictl {

struct LocalNetwork {
  std::string bridge;                   // ≤ 15 characters, from the cluster name
  std::vector<std::string> namespaces;  // one per node, in node order
};

// The names for a cluster called `cluster` with these nodes.
LocalNetwork plan_network(const std::string& cluster, const std::vector<std::string>& node_names);

// kPermissionDenied unless root (namespaces, veths and bridges need it).
Status require_root(const std::string& what);

// The bridge with `host_ip`/`bits`, and each namespace with eth0 at ips[i]/`bits`, links up.
// Fails, having removed what it made, if any step fails (a bridge of that name already there
// among them).
Status create_network(const LocalNetwork& net, const std::string& host_ip, int bits, const std::vector<std::string>& ips);

// Kills every process left in the namespaces, deletes them and the bridge; what is already gone
// is skipped. Errors are reported after trying everything.
Status destroy_network(const LocalNetwork& net);

}  // namespace cosi::cosictl
