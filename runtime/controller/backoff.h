// Backoff: how long to wait before retrying a key that failed n times in a row —
// initial × 2^(n-1), capped, each delay scaled by a jitter factor in [0.8, 1.2) so that many
// failing keys do not retry in lockstep. The jitter source is injected (tests fix it).
//
//   Backoff b({.initial = 500ms, .max = 60s});
//   b.delay(1) ≈ 0.5 s, b.delay(2) ≈ 1 s, ... b.delay(20) ≈ 60 s
#pragma once

#include <functional>

#include "runtime/exec/clock.h"

namespace cosi {

struct BackoffPolicy {
  Duration initial = std::chrono::milliseconds(500);
  Duration max = std::chrono::seconds(60);
  // Returns a number in [0, 1); nullptr uses a thread-local random generator.
  std::function<double()> random;
};

class Backoff {
 public:
  explicit Backoff(BackoffPolicy policy) : policy_(std::move(policy)) {}
  Duration delay(int failures) const;

 private:
  BackoffPolicy policy_;
};

}  // namespace cosi
