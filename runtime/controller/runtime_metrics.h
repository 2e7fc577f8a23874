// The runtime's metric families, with controller-runtime's names, registered in the
// runtime's own Registry.
#pragma once

#include "runtime/metrics/registry.h"

namespace cosi {

struct RuntimeMetrics {
  explicit RuntimeMetrics(metrics::Registry& registry);

  metrics::Family<metrics::Counter>& reconcile_total;   // {controller, result}
  metrics::Family<metrics::Counter>& reconcile_errors;  // {controller}
  metrics::Family<metrics::Counter>& reconcile_panics;  // {controller}
  metrics::Family<metrics::Histogram>& reconcile_time;  // {controller}
  metrics::Family<metrics::Gauge>& active_workers;      // {controller}
  metrics::Family<metrics::Gauge>& queue_depth;         // {name}
  metrics::Family<metrics::Counter>& queue_adds;        // {name}
  metrics::Family<metrics::Counter>& queue_retries;     // {name}
  metrics::Family<metrics::Histogram>& queue_duration;  // {name}
  metrics::Family<metrics::Histogram>& work_duration;   // {name}
};

}  // namespace cosi
