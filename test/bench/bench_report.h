// The one line every benchmark ends with, and a best-of-N timer.
//
//   auto [ours, base] = best_of_pair(5, [&] { ...ours... }, [&] { ...baseline... });
//   report("store.get", ours_ns, base_ns, Target::ratio(2.0));
//   -> BENCH store.get ours=41.2 baseline=30.1 ratio=1.37 target=ratio<=2 PASS
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>

namespace cosi::bench {

struct Target {
  enum class On { kRatio, kOurs, kRatioAtLeast } on;  // the last: higher is better (throughput)
  double limit;
  static Target ratio(double limit) { return {On::kRatio, limit}; }
  static Target ours(double limit) { return {On::kOurs, limit}; }
  static Target ratio_at_least(double limit) { return {On::kRatioAtLeast, limit}; }
};

// Prints the BENCH line; returns the process exit code (0 on PASS).
inline int report(const std::string& name, double ours, double baseline, Target target) {
  const double ratio = baseline > 0 ? ours / baseline : 0;
  const bool pass = target.on == Target::On::kRatio          ? ratio <= target.limit
                    : target.on == Target::On::kRatioAtLeast ? ratio >= target.limit
                                                             : ours <= target.limit;
  std::printf("BENCH %s ours=%.4g baseline=%.4g ratio=%.3g target=%s%g %s\n", name.c_str(), ours, baseline, ratio,
              target.on == Target::On::kRatio ? "ratio<=" : target.on == Target::On::kRatioAtLeast ? "ratio>=" : "ours<=",
              target.limit, pass ? "PASS" : "FAIL");
  std::fflush(stdout);
  return pass ? 0 : 1;
}

inline double seconds(const std::function<void()>& fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
