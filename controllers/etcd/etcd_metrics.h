// etcd's quorum for Prometheus: EtcdClusters "etcd" rendered as gauges when the registry
// renders (a view over the store, like everything the node serves). Nothing on nodes without
// etcd.
//
//   register_etcd_metrics(runtime.metrics(), state);
//   -> cosi_etcd_members 3
//      cosi_etcd_voting_members 3
//      cosi_etcd_healthy_members 2
//      cosi_etcd_has_quorum 1
//      cosi_etcd_leader_changes_seen_total 1
#pragma once

#include "runtime/metrics/registry.h"
#include "runtime/state/state.h"

namespace cosi::controllers {

// `state` must outlive the registry's renders.
void register_etcd_metrics(metrics::Registry& registry, State& state);

}  // namespace cosi::controllers
