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

TEST_CASE("the queue reports waiting and working time", "[work-queue]") {
  WorkQueue q;
  q.add(kKind.at("a"), t0);
  Duration waited{}, worked{};
  auto key = q.take(t0 + std::chrono::seconds(2), &waited);
  q.done(*key, t0 + std::chrono::seconds(5), &worked);
  CHECK(waited == std::chrono::seconds(2));
  CHECK(worked == std::chrono::seconds(3));
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
