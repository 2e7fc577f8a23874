// Waiting on watches in tests: collect a number of events within a deadline, or prove that
// nothing arrived by writing a sentinel and seeing it come first.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "runtime/resource/labels.h"
#include "runtime/state/state.h"

namespace cosi::testing {

inline std::chrono::steady_clock::time_point in_seconds(int s) {
  return std::chrono::steady_clock::now() + std::chrono::seconds(s);
}

// Exactly `count` events, or fewer if the deadline passes (the caller's REQUIRE then fails).
inline std::vector<Event> take(Watch& watch, std::size_t count, int seconds = 10) {
  std::vector<Event> events;
  auto deadline = in_seconds(seconds);
  while (events.size() < count && watch.wait(deadline)) {
    watch.poll(events, count - events.size());
  }
  return events;
}

// Creates a sentinel resource in `kind` with `labels` (the watch must select it) and returns
// every event that arrived before it: how a test shows that a write produced no event, on any
// State, local or remote.
std::vector<Event> drain_until_sentinel(State& state, Watch& watch, const Kind& kind,
                                        Labels labels = {});

inline std::string ids(const std::vector<Event>& events) {
  std::string out;
  for (const auto& e : events) {
    if (!out.empty()) out += ",";
    out += std::string(to_string(e.type)) + ":" + (e.resource ? e.resource->metadata().id() : "?");
  }
  return out;
}

}  // namespace cosi::testing
