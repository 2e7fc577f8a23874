#include "runtime/controller/backoff.h"

#include <algorithm>
#include <random>

namespace cosi {

Duration Backoff::delay(int failures) const {
  if (failures < 1) failures = 1;
  double base = std::chrono::duration<double>(policy_.initial).count();
  const double cap = std::chrono::duration<double>(policy_.max).count();
  for (int i = 1; i < failures && base < cap; ++i) base *= 2;
  base = std::min(base, cap);
  double r;
  if (policy_.random) {
    r = policy_.random();
  } else {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    r = std::uniform_real_distribution<double>(0, 1)(rng);
  }
  const double seconds = std::min(cap, base * (0.8 + 0.4 * r));
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
}

}  // namespace cosi
