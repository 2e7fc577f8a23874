#include "runtime/controller/runtime_metrics.h"

namespace cosi {

using metrics::Registry;

RuntimeMetrics::RuntimeMetrics(Registry& r)
    : reconcile_total(r.counter("controller_runtime_reconcile_total",
                                "Total number of reconciliations per controller",
                                {"controller", "result"})),
      reconcile_errors(r.counter("controller_runtime_reconcile_errors_total",
                                 "Total number of reconciliation errors per controller",
                                 {"controller"})),
      reconcile_panics(r.counter("controller_runtime_reconcile_panics_total",
                                 "Total number of reconciliation panics per controller",
                                 {"controller"})),
      reconcile_time(r.histogram("controller_runtime_reconcile_time_seconds",
                                 "Length of time per reconciliation per controller",
                                 {"controller"}, Registry::reconcile_buckets())),
      active_workers(r.gauge("controller_runtime_active_workers",
                             "Number of currently used workers per controller", {"controller"})),
      queue_depth(r.gauge("workqueue_depth", "Current depth of workqueue", {"name"})),
      queue_adds(r.counter("workqueue_adds_total", "Total number of adds handled by workqueue",
                           {"name"})),
      queue_retries(r.counter("workqueue_retries_total",
                              "Total number of retries handled by workqueue", {"name"})),
      queue_duration(r.histogram("workqueue_queue_duration_seconds",
                                 "How long in seconds an item stays in workqueue before being "
                                 "requested",
                                 {"name"}, Registry::workqueue_buckets())),
      work_duration(r.histogram("workqueue_work_duration_seconds",
                                "How long in seconds processing an item from workqueue takes",
                                {"name"}, Registry::workqueue_buckets())) {}

}  // namespace cosi
