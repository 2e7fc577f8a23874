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

ControllerMetrics::ControllerMetrics(RuntimeMetrics& m, const std::string& c)
    : success(m.reconcile_total.at({c, "success"})),
      requeue_after(m.reconcile_total.at({c, "requeue_after"})),
      error(m.reconcile_total.at({c, "error"})),
      errors(m.reconcile_errors.at({c})),
      panics(m.reconcile_panics.at({c})),
      time(m.reconcile_time.at({c})),
      active(m.active_workers.at({c})),
      depth(m.queue_depth.at({c})),
      adds(m.queue_adds.at({c})),
      retries(m.queue_retries.at({c})),
      queue_duration(m.queue_duration.at({c})),
      work_duration(m.work_duration.at({c})) {}

}  // namespace cosi
