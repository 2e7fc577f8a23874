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

// One controller's series, looked up once so a reconcile touches no map and makes no label
// vectors.
struct ControllerMetrics {
  ControllerMetrics(RuntimeMetrics& m, const std::string& controller);

  metrics::Counter& success;        // reconcile_total{result="success"}
  metrics::Counter& requeue_after;  // reconcile_total{result="requeue_after"}
  metrics::Counter& error;          // reconcile_total{result="error"}
  metrics::Counter& errors;
  metrics::Counter& panics;
  metrics::Histogram& time;
  metrics::Gauge& active;
  metrics::Gauge& depth;
  metrics::Counter& adds;
  metrics::Counter& retries;
  metrics::Histogram& queue_duration;
  metrics::Histogram& work_duration;
};

}  // namespace cosi
