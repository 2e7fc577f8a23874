// Waits on a condition with a deadline: checks `condition` every `every` until it holds or the
// deadline passes. For states another process or thread reaches on its own time; never a
// sleep for a guessed duration.
//
//   REQUIRE(eventually([&] { return members(node).size() == 5; }, in_seconds(20)));
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace cosi::testing {

inline bool eventually(const std::function<bool()>& condition, std::chrono::steady_clock::time_point deadline,
                       std::chrono::milliseconds every = std::chrono::milliseconds(20)) {
  while (true) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(every);
  }
}

}  // namespace cosi::testing
