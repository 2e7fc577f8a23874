// MemoryState beyond the conformance suite: writes moved in are stored without a copy,
// reads hand out the snapshot, per-kind statistics, coalescing through a real watch.
#include "runtime/state/memory_state.h"

#include <catch2/catch.hpp>

#include "runtime/state/state_ops.h"
#include "runtime/state/store_metrics.h"
#include "test/support/test_resources.h"

namespace cosi::testing {
namespace {

TEST_CASE("a write moved in is stored as is; a shared one is copied", "[memory-state]") {
  MemoryState state;
  auto r = test_resource("a", "one");
  const Resource* object = r.get();
  auto stored = state.create(std::move(r), {"o"});
  REQUIRE(stored.ok());
  CHECK(stored->get() == object);

  auto kept = test_resource("b", "two");
  auto copy = state.create(kept, {"o"});
  REQUIRE(copy.ok());
  CHECK(copy->get() != kept.get());
  CHECK_FALSE(kept->metadata().version().defined());  // the caller's object is untouched
}

TEST_CASE("reads hand out the stored snapshot", "[memory-state]") {
  MemoryState state;
  auto stored = *state.create(test_resource("a"), {"o"});
  CHECK(state.get(kTestKind.at("a"))->get() == stored.get());
  CHECK(state.list(kTestKind)->front().get() == stored.get());
}

TEST_CASE("get by kind and a view of the id answers as get by pointer", "[memory-state]") {
  MemoryState state;
  auto stored = *state.create(test_resource("a"), {"o"});
  const std::string id = "a";
  CHECK(state.get(kTestKind, std::string_view(id))->get() == stored.get());
  auto missing = state.get(kTestKind, "missing");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message() == state.get(kTestKind.at("missing")).error().message());
  auto empty = state.get(kTestKind, "");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().kind() == state.get(kTestKind.at("")).error().kind());
  auto other_kind = state.get(Kind{"default", "Others.test.cosi.dev"}, "a");
  REQUIRE_FALSE(other_kind.ok());
  CHECK(other_kind.error().kind() == ErrorKind::kNotFound);
}

TEST_CASE("timestamps come from the injected wall clock", "[memory-state]") {
  Timestamp now(std::chrono::seconds(1000));
  MemoryState state({.wall_clock = [&] { return now; }});
  auto v1 = *state.create(test_resource("a", "1"), {"o"});
  CHECK(v1->metadata().created() == now);
  now += std::chrono::seconds(5);
  auto next = v1->clone();
  test_spec(*next).value = "2";
  auto v2 = *state.update(std::move(next), {"o"});
  CHECK(v2->metadata().created() == Timestamp(std::chrono::seconds(1000)));
  CHECK(v2->metadata().updated() == now);
}

TEST_CASE("stats count resources, watchers and coalesced events per kind", "[memory-state]") {
  MemoryState state;
  REQUIRE(state.create(test_resource("a", "0"), {"o"}).ok());
  auto slow = *state.watch_kind(kTestKind, {.buffer = 2});
  for (int i = 1; i <= 10; ++i) {
    REQUIRE(update_with_conflicts(state, kTestKind.at("a"),
                                  [i](Resource& r) {
                                    test_spec(r).value = std::to_string(i);
                                    return Status();
                                  },
                                  {"o"})
                .ok());
  }
  auto stats = state.stats();
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].first == kTestKind);
  CHECK(stats[0].second.resources == 1);
  CHECK(stats[0].second.watchers == 1);
  CHECK(stats[0].second.coalesced_events == 9);

  std::vector<Event> events;
  slow->poll(events);
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == EventType::kUpdated);
  CHECK(test_spec(events[0].old).value == "0");
  CHECK(test_spec(events[0].resource).value == "10");

  slow.reset();
  CHECK(state.stats()[0].second.watchers == 0);
  CHECK(state.stats()[0].second.coalesced_events == 9);  // kept after the watcher left
}

TEST_CASE("a coalesced event's bookmark resumes after everything it covers", "[memory-state]") {
  MemoryState state;
  auto slow = *state.watch_kind(kTestKind, {.buffer = 1});
  for (const char* id : {"a", "b", "c"}) REQUIRE(state.create(test_resource(id), {"o"}).ok());
  std::vector<Event> events;
  slow->poll(events);
  REQUIRE(events.size() == 3);
  auto resumed = *state.watch_kind(kTestKind, {.start_from_bookmark = events.back().bookmark});
  REQUIRE(state.create(test_resource("d"), {"o"}).ok());
  std::vector<Event> later;
  resumed->poll(later);
  REQUIRE(later.size() == 1);
  CHECK(later[0].resource->metadata().id() == "d");
}

TEST_CASE("a filtered watch coalesces what it sees", "[memory-state]") {
  MemoryState state;
  REQUIRE(state.create(test_resource("a", "", {{"role", "cp"}}), {"o"}).ok());
  auto watch = *state.watch_kind(
      kTestKind, {.bootstrap_contents = true,
                  .label_queries = {LabelQuery{LabelTerm::equal("role", "cp")}},
                  .buffer = 1});
  std::vector<Event> events;
  watch->poll(events);
  REQUIRE(events.size() == 2);  // created:a, bootstrapped
  auto relabel = [&](const char* role) {
    REQUIRE(update_with_conflicts(state, kTestKind.at("a"),
                                  [&](Resource& r) {
                                    r.mutable_metadata().mutable_labels().set("role", role);
                                    return Status();
                                  },
                                  {"o"})
                .ok());
  };
  relabel("worker");  // leaves
  relabel("x");       // unseen
  relabel("cp");      // enters again
  REQUIRE(state.create(test_resource("b", "", {{"role", "cp"}}), {"o"}).ok());
  events.clear();
  watch->poll(events);
  // a left and came back: Destroyed(S0), Created(S1); b is new.
  REQUIRE(events.size() == 3);
  CHECK(events[0].type == EventType::kDestroyed);
  CHECK(events[1].type == EventType::kCreated);
  CHECK(events[1].resource->metadata().labels().get("role") == "cp");
  CHECK(events[2].resource->metadata().id() == "b");
}

TEST_CASE("store gauges render per kind", "[memory-state]") {
  MemoryState state;
  metrics::Registry registry;
  register_store_metrics(registry, state);
  REQUIRE(state.create(test_resource("a"), {"o"}).ok());
  REQUIRE(state.create(test_resource("b"), {"o"}).ok());
  auto watch = *state.watch_kind(kTestKind);
  const std::string text = registry.render();
  CHECK_THAT(text, Catch::Contains(
                       "cosi_store_resources{namespace=\"default\",type=\"Tests.test.cosi.dev\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("cosi_store_watchers{namespace=\"default\",type=\"Tests.test.cosi.dev\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("# TYPE cosi_store_coalesced_events_total counter\n"));
}

}  // namespace
}  // namespace cosi::testing
