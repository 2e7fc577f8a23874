#include "runtime/exec/manual.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/exec/thread_pool.h"

namespace cosi {
namespace {

TEST_CASE("the manual executor runs posted work, and work it posts, on run_until_idle", "[manual]") {
  ManualExecutor ex;
  std::string trace;
  ex.post([&] {
    trace += "a";
    ex.post([&] { trace += "c"; });
  });
  ex.post([&] { trace += "b"; });
  CHECK(trace.empty());
  CHECK(ex.run_until_idle() == 3);
  CHECK(trace == "abc");
}

TEST_CASE("the manual clock fires timers in time order as time moves", "[manual]") {
  ManualExecutor ex;
  ManualClock clock(ex);
  const SteadyTime start = clock.now();
  std::string trace;
  clock.schedule(start + std::chrono::seconds(2), [&] { trace += "2"; });
  clock.schedule(start + std::chrono::seconds(1), [&] {
    trace += "1";
    // A timer set by a timer, still within the advance, fires in the same advance.
    clock.schedule(clock.now() + std::chrono::milliseconds(500), [&] { trace += "1.5"; });
  });
  TimerId cancelled = clock.schedule(start + std::chrono::seconds(1), [&] { trace += "x"; });
  clock.cancel(cancelled);
  clock.advance(std::chrono::milliseconds(999));
  CHECK(trace.empty());
  clock.advance(std::chrono::seconds(2));
  CHECK(trace == "11.52");
  CHECK(clock.now() == start + std::chrono::milliseconds(2999));
  CHECK(clock.pending_timers() == 0);
}

TEST_CASE("the thread pool runs tasks and fires timers", "[thread-pool]") {
  ThreadPool pool(2);
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  auto finish = [&] {
    std::lock_guard lock(mu);
    ++done;
    cv.notify_all();
  };
  pool.post(finish);
  pool.schedule(pool.now() + std::chrono::milliseconds(10), finish);
  TimerId never = pool.schedule(pool.now() + std::chrono::hours(1), finish);
  pool.cancel(never);
  std::unique_lock lock(mu);
  CHECK(cv.wait_for(lock, std::chrono::seconds(10), [&] { return done == 2; }));
}

TEST_CASE("a task deferred from a pool thread runs on that thread once the current task returns",
          "[thread-pool]") {
  ThreadPool pool(2);
  std::mutex mu;
  std::condition_variable cv;
  std::thread::id poster, runner;
  bool poster_done = false, ran = false, ran_after = false, outside = false;
  pool.defer([&] {  // from outside the pool: like post
    std::lock_guard lock(mu);
    outside = true;
    cv.notify_all();
  });
  {
    std::unique_lock lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return outside; }));
  }
  pool.post([&] {
    pool.defer([&] {
      std::lock_guard lock(mu);
      runner = std::this_thread::get_id();
      ran_after = poster_done;  // never beside the task that deferred it
      ran = true;
      cv.notify_all();
    });
    std::lock_guard lock(mu);
    poster = std::this_thread::get_id();
    poster_done = true;
  });
  std::unique_lock lock(mu);
  REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return ran; }));
  CHECK(ran_after);
  CHECK(runner == poster);
}

}  // namespace
}  // namespace cosi
