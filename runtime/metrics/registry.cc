#include "runtime/metrics/registry.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace cosi::metrics {
namespace {

std::string escape_label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string escape_help(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  return std::string(buf, ec == std::errc() ? end : buf);
}

std::string labels_text(const std::vector<std::string>& names, const LabelValues& values,
                        const std::string& extra = "") {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) {
    if (!out.empty()) out += ',';
    out += names[i] + "=\"" + escape_label(values[i]) + "\"";
  }
  if (!extra.empty()) {
    if (!out.empty()) out += ',';
    out += extra;
  }
  return out.empty() ? "" : "{" + out + "}";
}

void header(std::string& out, const std::string& name, const std::string& help,
            const std::string& type) {
  out += "# HELP " + name + " " + escape_help(help) + "\n";
  out += "# TYPE " + name + " " + type + "\n";
}

void atomic_add(std::atomic<double>& a, double v) {
  double cur = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {
  }
}

}  // namespace

void Counter::inc(double v) { atomic_add(value_, v); }
void Gauge::add(double v) { atomic_add(value_, v); }

Histogram::Histogram(const std::vector<double>* bounds)
    : bounds_(bounds), buckets_(new std::atomic<std::uint64_t>[bounds->size() + 1]) {
  for (std::size_t i = 0; i <= bounds->size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double v) {
  std::size_t i = 0;
  while (i < bounds_->size() && v > (*bounds_)[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  atomic_add(sum_, v);
}

void Histogram::observe_many(const double* values, std::size_t n) {
  if (n == 0) return;
  std::vector<std::uint64_t> local(bounds_->size() + 1, 0);
  double sum = 0;
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t i = 0;
    while (i < bounds_->size() && values[k] > (*bounds_)[i]) ++i;
    ++local[i];
    sum += values[k];
  }
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (local[i] != 0) buckets_[i].fetch_add(local[i], std::memory_order_relaxed);
  }
  atomic_add(sum_, sum);
}

std::vector<std::uint64_t> Histogram::cumulative() const {
  std::vector<std::uint64_t> out(bounds_->size() + 1);
  std::uint64_t running = 0;
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = running += buckets_[i].load(std::memory_order_relaxed);
  return out;
}

void Registry::Writer::add(const std::string& type, const std::string& name,
                           const std::string& help,
                           const std::vector<std::pair<std::string, std::string>>& labels,
                           double value) {
  auto& series = families_[name];
  series.type = type;
  series.help = help;
  std::vector<std::string> names;
  LabelValues values;
  for (const auto& [k, v] : labels) {
    names.push_back(k);
    values.push_back(v);
  }
  series.lines.push_back(name + labels_text(names, values) + " " + number(value));
}

void Registry::Writer::gauge(const std::string& name, const std::string& help,
                             const std::vector<std::pair<std::string, std::string>>& labels,
                             double value) {
  add("gauge", name, help, labels, value);
}

void Registry::Writer::counter(const std::string& name, const std::string& help,
                               const std::vector<std::pair<std::string, std::string>>& labels,
                               double value) {
  add("counter", name, help, labels, value);
}

Family<Counter>& Registry::counter(const std::string& name, const std::string& help,
                                   std::vector<std::string> labels) {
  std::lock_guard lock(mu_);
  auto& slot = counters_[name];
  if (!slot) slot = std::make_unique<Family<Counter>>(name, help, std::move(labels));
  return *slot;
}

Family<Gauge>& Registry::gauge(const std::string& name, const std::string& help,
                               std::vector<std::string> labels) {
  std::lock_guard lock(mu_);
  auto& slot = gauges_[name];
  if (!slot) slot = std::make_unique<Family<Gauge>>(name, help, std::move(labels));
  return *slot;
}

Family<Histogram>& Registry::histogram(const std::string& name, const std::string& help,
                                       std::vector<std::string> labels,
                                       std::vector<double> bounds) {
  std::lock_guard lock(mu_);
  auto& slot = histograms_[name];
  if (!slot) {
    slot = std::make_unique<Family<Histogram>>(name, help, std::move(labels), std::move(bounds));
  }
  return *slot;
}

void Registry::add_collector(Collector collector) {
  std::lock_guard lock(mu_);
  collectors_.push_back(std::move(collector));
}

std::string Registry::render() const {
  std::map<std::string, std::string> blocks;  // by family name, so the output is sorted
  std::vector<Collector> collectors;
  {
    std::lock_guard lock(mu_);
    collectors = collectors_;
    for (const auto& [name, family] : counters_) {
      std::string out;
      header(out, name, family->help(), "counter");
      family->each([&](const LabelValues& v, const Counter& c) {
        out += name + labels_text(family->labels(), v) + " " + number(c.value()) + "\n";
      });
      blocks[name] = out;
    }
    for (const auto& [name, family] : gauges_) {
      std::string out;
      header(out, name, family->help(), "gauge");
      family->each([&](const LabelValues& v, const Gauge& g) {
        out += name + labels_text(family->labels(), v) + " " + number(g.value()) + "\n";
      });
      blocks[name] = out;
    }
    for (const auto& [name, family] : histograms_) {
      std::string out;
      header(out, name, family->help(), "histogram");
      family->each([&](const LabelValues& v, const Histogram& h) {
        auto cumulative = h.cumulative();
        for (std::size_t i = 0; i < cumulative.size(); ++i) {
          std::string le = i < h.bounds().size() ? number(h.bounds()[i]) : "+Inf";
          out += name + "_bucket" + labels_text(family->labels(), v, "le=\"" + le + "\"") + " " +
                 std::to_string(cumulative[i]) + "\n";
        }
        out += name + "_sum" + labels_text(family->labels(), v) + " " + number(h.sum()) + "\n";
        out += name + "_count" + labels_text(family->labels(), v) + " " +
               std::to_string(cumulative.back()) + "\n";
      });
      blocks[name] = out;
    }
  }
  Writer writer;
  for (const auto& collect : collectors) collect(writer);
  for (const auto& [name, series] : writer.families_) {
    std::string out;
    header(out, name, series.help, series.type);
    for (const auto& line : series.lines) out += line + "\n";
    blocks[name] = out;
  }
  std::string text;
  for (const auto& [name, block] : blocks) text += block;
  return text;
}

std::vector<double> Registry::reconcile_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
          0.7,   0.8,  0.9,   1.0,  1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5,
          6,     7,    8,     9,    10,  15,  20,  25,  30,  40,  50,  60};
}

std::vector<double> Registry::workqueue_buckets() {
  std::vector<double> out;
  double v = 1e-8;
  for (int i = 0; i < 12; ++i, v *= 10) out.push_back(v);
  return out;
}

}  // namespace cosi::metrics
