// Store gauges for a metrics registry: per kind, the resources held, the watchers attached and
// the events coalesced for watchers that fell behind. Computed when the registry renders.
//
//   register_store_metrics(runtime.metrics(), state);
//   -> cosi_store_resources{namespace="cluster",type="Members.cluster.talos.dev"} 5
//      cosi_store_watchers{...} 2
//      cosi_store_coalesced_events_total{...} 0
#pragma once

#include "runtime/metrics/registry.h"
#include "runtime/state/memory_state.h"

namespace cosi {

// `state` must outlive the registry's renders.
void register_store_metrics(metrics::Registry& registry, const MemoryState& state);

}  // namespace cosi
