// The ClusterSnapshot as JSON, for the web dashboard's server-sent events: every field of the
// snapshot under its name in snake_case, e.g.
//   {"generation":12,"writes_available":true,"quorum":{"voting":3,"healthy":3,...},
//    "nodes":[{"hostname":"demo-controlplane-1","etcd_role":"leader",...}],...}
#pragma once

#include <string>

#include "api/dashboard/cluster_view.h"

namespace cosi::dashboard {

std::string snapshot_json(const ClusterSnapshot& snapshot);

}  // namespace cosi::dashboard
