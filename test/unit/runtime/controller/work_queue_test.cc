#include "runtime/controller/work_queue.h"

#include <catch2/catch.hpp>

#include "runtime/controller/backoff.h"

namespace cosi {
namespace {

const Kind kKind{"ns", "Things.test.dev"};
const SteadyTime t0{};

TEST_CASE("keys queued twice are handed out once", "[work-queue]") {
  WorkQueue q;
  CHECK(q.add(kKind.at("a"), t0));
  CHECK_FALSE(q.add(kKind.at("a"), t0));
  CHECK(q.add(kKind.at("b"), t0));
  CHECK(q.depth() == 2);
  CHECK(q.take(t0)->id == "a");
  CHECK(q.take(t0)->id == "b");
  CHECK_FALSE(q.take(t0).has_value());
}

TEST_CASE("a key in progress is not handed out again until done", "[work-queue]") {
  WorkQueue q;
  q.add(kKind.at("a"), t0);
  auto key = q.take(t0);
  REQUIRE(key);
  CHECK(q.add(kKind.at("a"), t0));  // an update arrives during the reconcile
  CHECK_FALSE(q.take(t0).has_value());
  CHECK(q.done(*key, t0));  // ...and is not lost: queued again
  CHECK(q.take(t0)->id == "a");
  CHECK_FALSE(q.done(kKind.at("a"), t0));
  CHECK(q.idle());
}

TEST_CASE("the queue reports waiting and working time, for a key added alone or in a fill", "[work-queue]") {
  const bool fill = GENERATE(false, true);
  WorkQueue q;
  if (fill) {
    q.add_all({kKind.at("a")}, t0);  // waits since the fill
  } else {
    q.add(kKind.at("a"), t0);
  }
  Duration waited{}, worked{};
  auto key = q.take(t0 + std::chrono::seconds(2), &waited);
  q.done(*key, t0 + std::chrono::seconds(5), &worked);
  CHECK(waited == std::chrono::seconds(2));
  CHECK(worked == std::chrono::seconds(3));
}

TEST_CASE("a first fill is handed out in key order, each key once", "[work-queue]") {
  WorkQueue q;
  CHECK(q.add_all({kKind.at("c"), kKind.at("a"), kKind.at("b"), kKind.at("a")}, t0) == 3);
  CHECK(q.depth() == 3);
  CHECK_FALSE(q.add(kKind.at("b"), t0));  // already waiting in the fill
  CHECK(q.add(kKind.at("d"), t0));        // a key outside it queues behind it
  CHECK(q.take(t0)->id == "a");
  CHECK(q.take(t0)->id == "b");
  CHECK(q.take(t0)->id == "c");
  CHECK(q.take(t0)->id == "d");
  CHECK_FALSE(q.take(t0).has_value());
  CHECK_FALSE(q.idle());  // four keys in progress
  for (const char* id : {"a", "b", "c", "d"}) CHECK_FALSE(q.done(kKind.at(id), t0));
  CHECK(q.idle());
}

TEST_CASE("a key of the first fill added again while in progress comes back after done", "[work-queue]") {
  WorkQueue q;
  q.add_all({kKind.at("a"), kKind.at("b")}, t0);
  auto a = q.take(t0);
  REQUIRE(a);
  CHECK(q.add(kKind.at("a"), t0));        // changed during its reconcile
  CHECK_FALSE(q.add(kKind.at("a"), t0));  // and again: still once
  CHECK(q.take(t0)->id == "b");
  CHECK_FALSE(q.take(t0).has_value());  // a is not handed out while in progress
  CHECK(q.done(*a, t0));
  CHECK(q.take(t0)->id == "a");
  CHECK_FALSE(q.done(kKind.at("a"), t0));
  CHECK(q.done(kKind.at("b"), t0) == false);
  CHECK(q.idle());
}

TEST_CASE("a fill into a busy queue skips what is queued or in progress", "[work-queue]") {
  WorkQueue q;
  q.add(kKind.at("a"), t0);
  q.add(kKind.at("b"), t0);
  auto a = q.take(t0);
  CHECK(q.add_all({kKind.at("a"), kKind.at("b"), kKind.at("c")}, t0) == 2);  // a again (in progress), c
  CHECK(q.take(t0)->id == "b");
  CHECK(q.take(t0)->id == "c");
  CHECK(q.done(*a, t0));
  CHECK(q.take(t0)->id == "a");
}

TEST_CASE("keys in progress are many with a high concurrency, and each is found by done", "[work-queue]") {
  WorkQueue q;
  std::vector<Pointer> keys;
  for (int i = 0; i < 500; ++i) keys.push_back(kKind.at("k" + std::to_string(i)));
  q.add_all(keys, t0);
  std::vector<Pointer> taken;
  while (auto key = q.take(t0)) taken.push_back(*key);
  CHECK(taken.size() == 500);
  for (auto it = taken.rbegin(); it != taken.rend(); ++it) CHECK_FALSE(q.done(*it, t0));
  CHECK(q.idle());
}

TEST_CASE("backoff doubles from 0.5 s to a 1 min cap, with bounded jitter", "[backoff]") {
  using std::chrono::milliseconds;
  Backoff exact({.random = [] { return 0.5; }});
  CHECK(exact.delay(1) == milliseconds(500));
  CHECK(exact.delay(2) == milliseconds(1000));
  CHECK(exact.delay(3) == milliseconds(2000));
  CHECK(exact.delay(8) == milliseconds(60000));  // 64 s capped
  CHECK(exact.delay(50) == milliseconds(60000));
  Backoff low({.random = [] { return 0.0; }});
  Backoff high({.random = [] { return 0.999; }});
  CHECK(low.delay(1) == milliseconds(400));
  CHECK(high.delay(1) > milliseconds(599));
  CHECK(high.delay(1) < milliseconds(600));
  CHECK(high.delay(20) <= milliseconds(60000));
  Backoff random({});
  for (int i = 0; i < 100; ++i) {
    auto d = random.delay(1);
    CHECK(d >= milliseconds(400));
    CHECK(d < milliseconds(600));
  }
}

}  // namespace
}  // namespace cosi
