// Conformance: watches — one resource, a kind, bootstrap contents, tail events, bookmarks,
// filters with the Created/Destroyed rewrite, option checks, cancel and notification.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <future>

#include "runtime/resource/tombstone.h"
#include "runtime/state/state_ops.h"
#include "test/conformance/state/state_under_test.h"
#include "test/conformance/state/watch_helpers.h"
#include "test/support/test_resources.h"

namespace cosi::testing {
namespace {

const Pointer kA = kTestKind.at("a");

ResourcePtr set(State& state, const Pointer& p, std::string value) {
  return *update_with_conflicts(state, p,
                                [&](Resource& r) {
                                  test_spec(r).value = value;
                                  return Status();
                                },
                                {"o"});
}

TEST_CASE("watching an existing resource starts with its current state", "[watch]") {
  auto s = make_state_under_test();
  REQUIRE(s.state->create(test_resource("a", "one"), {"o"}).ok());
  REQUIRE(s.state->create(test_resource("b", "other"), {"o"}).ok());
  auto watch = *s.state->watch(kA);
  auto first = take(*watch, 1);
  REQUIRE(first.size() == 1);
  CHECK(first[0].type == EventType::kCreated);
  CHECK(test_spec(first[0].resource).value == "one");

  set(*s.state, kTestKind.at("b"), "ignored");  // another id: not seen
  set(*s.state, kA, "two");
  auto next = take(*watch, 1);
  REQUIRE(next.size() == 1);
  CHECK(next[0].type == EventType::kUpdated);
  CHECK(test_spec(next[0].resource).value == "two");
  CHECK(test_spec(next[0].old).value == "one");

  REQUIRE(s.state->destroy(kA, {"o"}).ok());
  auto gone = take(*watch, 1);
  REQUIRE(gone.size() == 1);
  CHECK(gone[0].type == EventType::kDestroyed);
  CHECK(test_spec(gone[0].resource).value == "two");  // the last value
}

TEST_CASE("watching a missing resource starts with a Destroyed tombstone", "[watch]") {
  auto s = make_state_under_test();
  auto watch = *s.state->watch(kA);
  auto first = take(*watch, 1);
  REQUIRE(first.size() == 1);
  CHECK(first[0].type == EventType::kDestroyed);
  CHECK(first[0].resource->metadata().id() == "a");
  CHECK(first[0].resource->metadata().type() == kTestKind.type);
  CHECK_FALSE(first[0].resource->metadata().version().defined());
  CHECK(first[0].bookmark.has_value());

  REQUIRE(s.state->create(test_resource("a", "born"), {"o"}).ok());
  auto born = take(*watch, 1);
  REQUIRE(born.size() == 1);
  CHECK(born[0].type == EventType::kCreated);
}

TEST_CASE("a kind watch with bootstrap contents sends them, then Bootstrapped", "[watch]") {
  auto s = make_state_under_test();
  for (const char* id : {"c", "a", "b"}) {
    REQUIRE(s.state->create(test_resource(id), {"o"}).ok());
  }
  auto watch = *s.state->watch_kind(kTestKind, {.bootstrap_contents = true});
  auto events = take(*watch, 4);
  REQUIRE(events.size() == 4);
  CHECK(ids(events) == "created:a,created:b,created:c,bootstrapped:");
  CHECK(events[3].resource->metadata().type() == kTestKind.type);
  CHECK(events[3].bookmark.has_value());

  REQUIRE(s.state->create(test_resource("d"), {"o"}).ok());
  CHECK(ids(take(*watch, 1)) == "created:d");
}

TEST_CASE("a kind watch without options sees only later changes", "[watch]") {
  auto s = make_state_under_test();
  REQUIRE(s.state->create(test_resource("a"), {"o"}).ok());
  auto watch = *s.state->watch_kind(kTestKind);
  REQUIRE(s.state->create(test_resource("b"), {"o"}).ok());
  set(*s.state, kA, "x");
  REQUIRE(s.state->destroy(kTestKind.at("b"), {"o"}).ok());
  auto events = take(*watch, 3);
  CHECK(ids(events) == "created:b,updated:a,destroyed:b");
}

TEST_CASE("tail events replay the newest events first", "[watch]") {
  auto s = make_state_under_test();
  REQUIRE(s.state->create(test_resource("a"), {"o"}).ok());
  REQUIRE(s.state->create(test_resource("b"), {"o"}).ok());
  set(*s.state, kA, "x");
  auto watch = *s.state->watch_kind(kTestKind, {.tail_events = 2});
  CHECK(ids(take(*watch, 2)) == "created:b,updated:a");

  auto one = *s.state->watch(kA, {.tail_events = 5});
  CHECK(ids(take(*one, 2)) == "created:a,updated:a");
}

TEST_CASE("resuming from a bookmark yields exactly the later events", "[watch]") {
  auto s = make_state_under_test();
  auto watch = *s.state->watch_kind(kTestKind);
  REQUIRE(s.state->create(test_resource("a"), {"o"}).ok());
  REQUIRE(s.state->create(test_resource("b"), {"o"}).ok());
  set(*s.state, kA, "x");
  auto events = take(*watch, 3);
  REQUIRE(events.size() == 3);
  REQUIRE(events[0].bookmark.has_value());

  auto resumed = *s.state->watch_kind(kTestKind, {.start_from_bookmark = events[0].bookmark});
  CHECK(ids(take(*resumed, 2)) == "created:b,updated:a");
  CHECK(drain_until_sentinel(*s.state, *resumed, kTestKind).empty());

  auto single = *s.state->watch(kA, {.start_from_bookmark = events[0].bookmark});
  CHECK(ids(take(*single, 1)) == "updated:a");
}

TEST_CASE("the Bootstrapped bookmark resumes after the bootstrap", "[watch]") {
  auto s = make_state_under_test();
  REQUIRE(s.state->create(test_resource("a"), {"o"}).ok());
  auto watch = *s.state->watch_kind(kTestKind, {.bootstrap_contents = true});
  auto boot = take(*watch, 2);
  REQUIRE(boot.size() == 2);
  REQUIRE(boot[1].type == EventType::kBootstrapped);
  REQUIRE(s.state->create(test_resource("b"), {"o"}).ok());
  auto resumed = *s.state->watch_kind(kTestKind, {.start_from_bookmark = boot[1].bookmark});
  CHECK(ids(take(*resumed, 1)) == "created:b");
}

TEST_CASE("foreign and out-of-history bookmarks are InvalidBookmark", "[watch]") {
  auto s = make_state_under_test();
  auto other = s.another();
  auto other_watch = *other->watch_kind(kTestKind, {.bootstrap_contents = true});
  auto foreign = take(*other_watch, 1);
  REQUIRE(foreign.size() == 1);
  auto r1 = s.state->watch_kind(kTestKind, {.start_from_bookmark = foreign[0].bookmark});
  REQUIRE_FALSE(r1.ok());
  CHECK(r1.error().kind() == ErrorKind::kInvalidBookmark);

  auto watch = *s.state->watch_kind(kTestKind);
  REQUIRE(s.state->create(test_resource("a"), {"o"}).ok());
  auto first = take(*watch, 1);
  REQUIRE(first.size() == 1);
  for (std::size_t i = 0; i < s.history + 1; ++i) set(*s.state, kA, std::to_string(i));
  auto r2 = s.state->watch_kind(kTestKind, {.start_from_bookmark = first[0].bookmark});
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().kind() == ErrorKind::kInvalidBookmark);

  // A bookmark of another kind of the same store is foreign too.
  Metadata md(kOtherKind.ns, kOtherKind.type, "x");
  REQUIRE(s.state->create(make_resource(md, TestSpec{}), {"o"}).ok());
  auto other_kind = *s.state->watch_kind(kOtherKind, {.tail_events = 1});
  auto ev = take(*other_kind, 1);
  REQUIRE(ev.size() == 1);
  CHECK(s.state->watch_kind(kTestKind, {.start_from_bookmark = ev[0].bookmark}).error().kind() ==
        ErrorKind::kInvalidBookmark);
}

TEST_CASE("a label-filtered kind watch rewrites leaving and entering", "[watch]") {
  auto s = make_state_under_test();
  REQUIRE(s.state->create(test_resource("a", "", {{"role", "cp"}}), {"o"}).ok());
  REQUIRE(s.state->create(test_resource("b", "", {{"role", "worker"}}), {"o"}).ok());
  auto watch = *s.state->watch_kind(
      kTestKind, {.bootstrap_contents = true,
                  .label_queries = {LabelQuery{LabelTerm::equal("role", "cp")}}});
  CHECK(ids(take(*watch, 2)) == "created:a,bootstrapped:");

  auto relabel = [&](const char* id, const char* role) {
    REQUIRE(update_with_conflicts(*s.state, kTestKind.at(id),
                                  [&](Resource& r) {
                                    r.mutable_metadata().mutable_labels().set("role", role);
                                    return Status();
                                  },
                                  {"o"})
                .ok());
  };
  relabel("a", "worker");  // leaves: Destroyed
  relabel("b", "cp");      // enters: Created
  set(*s.state, kTestKind.at("b"), "still cp");  // stays: Updated
  relabel("a", "other");   // outside all along: nothing
  auto events = drain_until_sentinel(*s.state, *watch, kTestKind, {{"role", "cp"}});
  CHECK(ids(events) == "destroyed:a,created:b,updated:b");
  REQUIRE(events.size() == 3);
  CHECK(events[0].resource->metadata().labels().get("role") == "worker");
}

TEST_CASE("an id-query kind watch sees only matching ids", "[watch]") {
  auto s = make_state_under_test();
  auto watch = *s.state->watch_kind(kTestKind, {.id_query = *IDQuery::compile("^node-")});
  REQUIRE(s.state->create(test_resource("lb"), {"o"}).ok());
  REQUIRE(s.state->create(test_resource("node-1"), {"o"}).ok());
  Metadata md(kTestKind.ns, kTestKind.type, "node-sentinel");
  REQUIRE(s.state->create(make_resource(md, TestSpec{}), {"o"}).ok());
  CHECK(ids(take(*watch, 2)) == "created:node-1,created:node-sentinel");
}

TEST_CASE("watch options that exclude each other are refused", "[watch]") {
  auto s = make_state_under_test();
  Bookmark b(1, 0);
  auto kind_error = [&](WatchKindOptions o) { return s.state->watch_kind(kTestKind, o).error().kind(); };
  CHECK(kind_error({.bootstrap_contents = true, .tail_events = 1}) == ErrorKind::kInvalidArgument);
  CHECK(kind_error({.bootstrap_contents = true, .start_from_bookmark = b}) ==
        ErrorKind::kInvalidArgument);
  CHECK(kind_error({.tail_events = 1, .start_from_bookmark = b}) == ErrorKind::kInvalidArgument);
  CHECK(kind_error({.tail_events = -1}) == ErrorKind::kInvalidArgument);
  CHECK(s.state->watch(kA, {.tail_events = 1, .start_from_bookmark = b}).error().kind() ==
        ErrorKind::kInvalidArgument);
  LabelTerm bad{"k", static_cast<LabelOp>(99), {}, false};
  CHECK(kind_error({.label_queries = {LabelQuery{bad}}}) == ErrorKind::kUnimplemented);
}

TEST_CASE("a cancelled watch delivers nothing", "[watch]") {
  auto s = make_state_under_test();
  auto watch = *s.state->watch_kind(kTestKind);
  watch->cancel();
  REQUIRE(s.state->create(test_resource("a"), {"o"}).ok());
  std::vector<Event> events;
  CHECK(watch->poll(events) == 0);
  CHECK_FALSE(watch->wait(in_seconds(1)));
}

TEST_CASE("set_notify is called when events arrive", "[watch]") {
  // A remote watch may wake a waiter before it calls the notifier, so wait for the call.
  // (Declared before the watch, which may call the notifier until it is destroyed.)
  std::promise<void> notified;
  std::atomic<bool> first{true};
  auto s = make_state_under_test();
  auto watch = *s.state->watch_kind(kTestKind);
  watch->set_notify([&] {
    if (first.exchange(false)) notified.set_value();
  });
  REQUIRE(s.state->create(test_resource("a"), {"o"}).ok());
  auto events = take(*watch, 1);
  REQUIRE(events.size() == 1);
  CHECK(notified.get_future().wait_for(std::chrono::seconds(5)) == std::future_status::ready);
}

}  // namespace
}  // namespace cosi::testing
