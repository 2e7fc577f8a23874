// The one line every benchmark ends with, and how its figures are taken so that one noisy run
// cannot flip a verdict: rounds of ours and the baseline interleaved (ours, baseline, ours,
// baseline, ...; within a round, where the work divides, in slices of a few milliseconds),
// each side's median, the median of the per-round ratios for the verdict, and the spread of
// those ratios (max/min). A spread over 1.5 says NOISY instead of PASS or FAIL.
//
//   auto r = interleaved(5, [&] { return seconds(ours); }, [&] { return seconds(baseline); });
//   return report("store.get", r.scaled(1e9 / kLookups), Target::ratio(1.3));
//   -> BENCH store.get ours=41.2 baseline=33.1 ratio=1.24 spread=1.08 target=ratio<=1.3 PASS
//
// A benchmark with no baseline (a latency, bytes per item) reports its own rounds: the spread is
// then that of its own figures.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace cosi::bench {

struct Target {
  enum class On { kRatio, kOurs, kRatioAtLeast } on;  // the last: higher is better (throughput)
  double limit;
  static Target ratio(double limit) { return {On::kRatio, limit}; }
  static Target ours(double limit) { return {On::kOurs, limit}; }
  static Target ratio_at_least(double limit) { return {On::kRatioAtLeast, limit}; }
};

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

constexpr double kNoisySpread = 1.5;

// The figures of one benchmark's rounds (a baseline may be absent: empty).
struct Rounds {
  std::vector<double> ours;
  std::vector<double> baseline;

  double ours_median() const { return median(ours); }
  double baseline_median() const { return median(baseline); }
  std::vector<double> ratios() const {
    std::vector<double> r;
    for (std::size_t i = 0; i < ours.size() && i < baseline.size(); ++i) r.push_back(baseline[i] > 0 ? ours[i] / baseline[i] : 0);
    return r;
  }
  double ratio() const { return baseline.empty() ? 0 : median(ratios()); }
  // max/min of the per-round ratios, or of ours alone without a baseline.
  double spread() const {
    const auto v = baseline.empty() ? ours : ratios();
    if (v.size() < 2) return 1;  // one figure: nothing to spread
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    if (*hi <= 0) return 1;  // all zero: as steady as it gets
    return *lo > 0 ? *hi / *lo : 1e9;
  }
  // Every figure times `factor` (seconds to nanoseconds per operation, say).
  Rounds scaled(double factor) const {
    Rounds out = *this;
    for (auto& v : out.ours) v *= factor;
    for (auto& v : out.baseline) v *= factor;
    return out;
  }
};

inline double seconds(const std::function<void()>& fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// `rounds` of each measurement, alternating ours and the baseline, after one warm-up of each.
inline Rounds interleaved(int rounds, const std::function<double()>& ours, const std::function<double()>& baseline) {
  (void)ours();
  (void)baseline();
  Rounds r;
  for (int i = 0; i < rounds; ++i) {
    r.ours.push_back(ours());
    r.baseline.push_back(baseline());
  }
  return r;
}

// `rounds` rounds, each the sum of `slices` short slices of ours and of the baseline taken in
// turn (ours first in even slices, the baseline first in odd ones), after one warm-up slice of
// each. Each side is told the slice's number, to pick its share of the round's work. A shared
// VM's speed drifts by 2x within a second (measured here with a plain loop); with slices of a
// few milliseconds, both sides of a round see the same drift and their ratio holds still.
inline Rounds interleaved_slices(int rounds, int slices, const std::function<double(int)>& ours,
                                 const std::function<double(int)>& baseline) {
  (void)ours(0);
  (void)baseline(0);
  Rounds r;
  for (int i = 0; i < rounds; ++i) {
    double a = 0, b = 0;
    for (int s = 0; s < slices; ++s) {
      if (s % 2 == 0) {
        a += ours(s);
        b += baseline(s);
      } else {
        b += baseline(s);
        a += ours(s);
      }
    }
    r.ours.push_back(a);
    r.baseline.push_back(b);
  }
  return r;
}

// As interleaved_slices, for slices that stand alone (each sets up its own work): the run's
// rounds x slices pairs are taken one after the other and dealt to the rounds in turn (pair j to
// round j % rounds), so that every round spans the whole run. With consecutive slices a round
// is a few hundred milliseconds, and one that fell in a slow second of the machine for one side
// only moved its ratio alone. Each side is told the slice's number within its round.
inline Rounds dealt_slices(int rounds, int slices, const std::function<double(int)>& ours,
                           const std::function<double(int)>& baseline) {
  (void)ours(0);
  (void)baseline(0);
  Rounds r;
  r.ours.assign(static_cast<std::size_t>(rounds), 0);
  r.baseline.assign(static_cast<std::size_t>(rounds), 0);
  for (int j = 0; j < rounds * slices; ++j) {
    const auto i = static_cast<std::size_t>(j % rounds);
    const int s = j / rounds;
    if (j % 2 == 0) {
      r.ours[i] += ours(s);
      r.baseline[i] += baseline(s);
    } else {
      r.baseline[i] += baseline(s);
      r.ours[i] += ours(s);
    }
  }
  return r;
}

// `rounds` of one measurement without a baseline.
inline Rounds repeated(int rounds, const std::function<double()>& ours) {
  Rounds r;
  for (int i = 0; i < rounds; ++i) r.ours.push_back(ours());
  return r;
}

// Prints the BENCH line from the medians; returns the process exit code (0 on PASS).
inline int report(const std::string& name, const Rounds& r, Target target) {
  const double ours = r.ours_median(), baseline = r.baseline_median();
  const double ratio = r.baseline.empty() ? (baseline > 0 ? ours / baseline : 0) : r.ratio();
  const bool pass = target.on == Target::On::kRatio          ? ratio <= target.limit
                    : target.on == Target::On::kRatioAtLeast ? ratio >= target.limit
                                                             : ours <= target.limit;
  // A target on ours alone is judged by ours alone: so is its spread.
  const double spread = target.on == Target::On::kOurs ? Rounds{r.ours, {}}.spread() : r.spread();
  const bool noisy = r.ours.size() > 1 && spread > kNoisySpread;
  if (r.ours.size() > 1) {  // every round, so that a spread can be traced to its rounds
    std::printf("rounds (ours / baseline):");
    for (std::size_t i = 0; i < r.ours.size(); ++i) {
      std::printf(" %.4g", r.ours[i]);
      if (i < r.baseline.size()) std::printf("/%.4g", r.baseline[i]);
    }
    std::printf("\n");
  }
  std::printf("BENCH %s ours=%.4g baseline=%.4g ratio=%.3g spread=%.2f target=%s%g %s\n", name.c_str(), ours, baseline, ratio,
              spread, target.on == Target::On::kRatio ? "ratio<=" : target.on == Target::On::kRatioAtLeast ? "ratio>=" : "ours<=",
              target.limit, noisy ? "NOISY" : pass ? "PASS" : "FAIL");
  std::fflush(stdout);
  return pass && !noisy ? 0 : 1;
}

// One figure each (a benchmark that measures once): no spread to speak of.
inline int report(const std::string& name, double ours, double baseline, Target target) {
  Rounds r;
  r.ours.push_back(ours);
  if (baseline > 0 || target.on != Target::On::kOurs) r.baseline.push_back(baseline);
  return report(name, r, target);
}

// Seconds taken by the fastest of `rounds` runs of fn.
inline double best_of(int rounds, const std::function<void()>& fn) {
  double best = 1e300;
  for (int i = 0; i < rounds; ++i) best = std::min(best, seconds(fn));
  return best;
}

// The fastest of `rounds` runs of each, alternating, so drift in the machine's load falls
// on both sides alike.
inline std::pair<double, double> best_of_pair(int rounds, const std::function<void()>& ours,
                                              const std::function<void()>& baseline) {
  double a = 1e300, b = 1e300;
  for (int i = 0; i < rounds; ++i) {
    a = std::min(a, seconds(ours));
    b = std::min(b, seconds(baseline));
  }
  return {a, b};
}

}  // namespace cosi::bench
