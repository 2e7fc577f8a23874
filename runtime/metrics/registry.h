// Registry: Prometheus metrics owned by one runtime (never process-global), rendered in the
// Prometheus text exposition format.
//
//   Registry registry;
//   auto& total = registry.counter("controller_runtime_reconcile_total",
//                                  "Total number of reconciliations per controller",
//                                  {"controller", "result"});
//   total.at({"EtcdController", "success"}).inc();
//   auto& time = registry.histogram("controller_runtime_reconcile_time_seconds", "...",
//                                   {"controller"}, Registry::reconcile_buckets());
//   time.at({"EtcdController"}).observe(0.012);
//   registry.add_collector([](Registry::Writer& w) { w.gauge("cosi_store_resources", ...); });
//   std::string text = registry.render();
//
// Label values are escaped; families render sorted by name, series by label values.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/base/thread_annotations.h"

namespace cosi::metrics {

using LabelValues = std::vector<std::string>;

class Counter {
 public:
  void inc(double v = 1);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void add(double v);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Lock-free: observe() is on every reconcile's path, often from several threads at once.
class Histogram {
 public:
  explicit Histogram(const std::vector<double>* bounds);
  void observe(double v);
  // Several observations for the price of one: one atomic add per bucket touched.
  void observe_many(const double* values, std::size_t n);
  double sum() const { return sum_.load(std::memory_order_relaxed); }
  // Cumulative counts per bound, then +Inf (the last is the count).
  std::vector<std::uint64_t> cumulative() const;
  const std::vector<double>& bounds() const { return *bounds_; }

 private:
  const std::vector<double>* bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;  // per bound + one for +Inf
  std::atomic<double> sum_{0};
};

// A metric name with label names and one child per distinct label values.
template <class Metric>
class Family {
 public:
  Family(std::string name, std::string help, std::vector<std::string> labels,
         std::vector<double> bounds = {})
      : name_(std::move(name)), help_(std::move(help)), labels_(std::move(labels)),
        bounds_(std::move(bounds)) {}

  Metric& at(const LabelValues& values) {
    std::lock_guard lock(mu_);
    auto it = children_.find(values);
    if (it == children_.end()) it = children_.emplace(values, make()).first;
    return *it->second;
  }

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& labels() const { return labels_; }

  template <class Fn>
  void each(Fn fn) const {
    std::lock_guard lock(mu_);
    for (const auto& [values, metric] : children_) fn(values, *metric);
  }

 private:
  std::unique_ptr<Metric> make() {
    if constexpr (std::is_same_v<Metric, Histogram>) {
      return std::make_unique<Histogram>(&bounds_);
    } else {
      return std::make_unique<Metric>();
    }
  }

  const std::string name_;
  const std::string help_;
  const std::vector<std::string> labels_;
  const std::vector<double> bounds_;
  mutable std::mutex mu_;
  std::map<LabelValues, std::unique_ptr<Metric>> children_ COSI_GUARDED_BY(mu_);
};

class Registry {
 public:
  // Writes series of metrics computed at render time (store sizes, for example).
  class Writer {
   public:
    void gauge(const std::string& name, const std::string& help,
               const std::vector<std::pair<std::string, std::string>>& labels, double value);
    void counter(const std::string& name, const std::string& help,
                 const std::vector<std::pair<std::string, std::string>>& labels, double value);

   private:
    friend class Registry;
    struct Series {
      std::string type, help;
      std::vector<std::string> lines;
    };
    void add(const std::string& type, const std::string& name, const std::string& help,
             const std::vector<std::pair<std::string, std::string>>& labels, double value);
    std::map<std::string, Series> families_;
  };
  using Collector = std::function<void(Writer&)>;

  Family<Counter>& counter(const std::string& name, const std::string& help,
                           std::vector<std::string> labels);
  Family<Gauge>& gauge(const std::string& name, const std::string& help,
                       std::vector<std::string> labels);
  Family<Histogram>& histogram(const std::string& name, const std::string& help,
                               std::vector<std::string> labels, std::vector<double> bounds);
  void add_collector(Collector collector);

  std::string render() const;

  // controller-runtime's buckets for reconcile time, and the work queue's exponential ones.
  static std::vector<double> reconcile_buckets();
  static std::vector<double> workqueue_buckets();

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Family<Counter>>> counters_ COSI_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<Family<Gauge>>> gauges_ COSI_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<Family<Histogram>>> histograms_ COSI_GUARDED_BY(mu_);
  std::vector<Collector> collectors_ COSI_GUARDED_BY(mu_);
};

}  // namespace cosi::metrics
