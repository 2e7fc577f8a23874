// The failure COSI's in-memory state dies of ("buffer overrun", talos#11561, #8157): a kind of
// 4,000 resources is written, then all of them are updated in a burst while a watcher that
// needs 1 ms per event watches through a small buffer. Here the watcher survives, memory stays
// bounded, and the watcher's mirror of the kind ends exactly equal to the store.
#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <thread>

#include "runtime/state/memory_state.h"
#include "runtime/state/state_ops.h"
#include "test/support/test_resources.h"

namespace cosi::testing {
namespace {

constexpr int kResources = 4000;
constexpr std::size_t kBuffer = 64;

// Stands for the consumer's real work: about 1 ms of CPU, not a sleep.
void one_millisecond_of_work() {
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
  while (std::chrono::steady_clock::now() < until) {
  }
}

TEST_CASE("a slow watcher survives a burst and ends with exactly the final state", "[overrun]") {
  MemoryState state;
  auto watch = *state.watch_kind(kTestKind, {.bootstrap_contents = true, .buffer = kBuffer});

  std::map<std::string, std::string> mirror;
  std::atomic<bool> writers_done{false};
  std::string error;
  std::thread consumer([&] {
    std::vector<Event> events;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (true) {
      events.clear();
      if (watch->poll(events, 16) == 0) {
        if (writers_done.load() && mirror.size() == kResources &&
            mirror == [&] {
              std::map<std::string, std::string> now;
              for (const auto& r : *state.list(kTestKind)) now[r->metadata().id()] = test_spec(r).value;
              return now;
            }()) {
          return;
        }
        if (!watch->wait(deadline)) {
          error = "watcher stopped receiving before it caught up";
          return;
        }
        continue;
      }
      for (const Event& e : events) {
        one_millisecond_of_work();
        const std::string& id = e.resource->metadata().id();
        switch (e.type) {
          case EventType::kCreated:
          case EventType::kUpdated: mirror[id] = test_spec(e.resource).value; break;
          case EventType::kDestroyed: mirror.erase(id); break;
          default: break;
        }
      }
    }
  });

  for (int i = 0; i < kResources; ++i) {
    REQUIRE(state.create(test_resource("r" + std::to_string(i), "v1"), {"o"}).ok());
  }
  for (int i = 0; i < kResources; ++i) {
    auto r = update_with_conflicts(state, kTestKind.at("r" + std::to_string(i)),
                                   [](Resource& r) {
                                     test_spec(r).value = "v2";
                                     return Status();
                                   },
                                   {"o"});
    REQUIRE(r.ok());
  }
  writers_done = true;
  // One more write wakes the consumer if it was already idle, so it re-checks the mirror.
  REQUIRE(state.create(test_resource("r-last", "v1"), {"o"}).ok());
  REQUIRE(state.destroy(kTestKind.at("r-last"), {"o"}).ok());
  consumer.join();

  INFO(error);
  CHECK(error.empty());
  CHECK(mirror.size() == kResources);
  for (const auto& [id, value] : mirror) {
    if (value != "v2") FAIL("resource " << id << " ends at " << value);
  }
  auto stats = state.stats();
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].second.coalesced_events > 0);  // it really fell behind and coalesced
}

}  // namespace
}  // namespace cosi::testing
