// The runtime through the test harness: registration, enforcement, result handling, inputs
// changed at run time, isolation of runtimes, shutdown, metrics and logs.
#include "runtime/controller/runtime.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <thread>

#include "runtime/controller/context.h"
#include "runtime/exec/thread_pool.h"
#include "runtime/state/memory_state.h"
#include "runtime/testing/harness.h"
#include "test/conformance/runtime/sample_controllers.h"

namespace cosi::testing {
namespace {

#define REQUIRE_OK(expr)                                 \
  do {                                                   \
    auto status_ = (expr);                               \
    INFO((status_.ok() ? "" : status_.error().to_string())); \
    REQUIRE(status_.ok());                               \
  } while (0)

// Runs one function as its reconcile; declares what the test says.
class Scripted final : public Controller {
 public:
  using Body = std::function<ReconcileResult(ControllerContext&)>;
  Scripted(std::string name, std::vector<Input> in, std::vector<Output> out, Body body)
      : name_(std::move(name)), in_(std::move(in)), out_(std::move(out)), body_(std::move(body)) {}
  std::string name() const override { return name_; }
  std::vector<Input> inputs() const override { return in_; }
  std::vector<Output> outputs() const override { return out_; }
  ReconcileResult reconcile(ControllerContext& ctx) override {
    ++passes;
    return body_(ctx);
  }
  std::atomic<int> passes{0};

 private:
  std::string name_;
  std::vector<Input> in_;
  std::vector<Output> out_;
  Body body_;
};

TEST_CASE("every controller reconciles once at start", "[runtime]") {
  Harness h;
  auto c = std::make_unique<Scripted>("C", std::vector<Input>{{kInts.ns, kInts.type}}, std::vector<Output>{},
                                      [](ControllerContext&) { return ReconcileResult::done(); });
  auto* raw = c.get();
  REQUIRE_OK(h.add(std::move(c)));
  REQUIRE_OK(h.start());
  CHECK(raw->passes == 1);
  h.run_until_idle();
  CHECK(raw->passes == 1);
}

TEST_CASE("controllers are added before start, with checked declarations", "[runtime]") {
  Harness h;
  REQUIRE_OK(h.add(std::make_unique<IntToString>()));
  auto dup = h.add(std::make_unique<IntToString>());
  CHECK(dup.error().message() == "controller name \"IntToString\" is already taken");
  REQUIRE_OK(h.start());
  auto late = h.add(std::make_unique<Sum>());
  CHECK(late.error().kind() == ErrorKind::kInvalidArgument);
}

TEST_CASE("two runtimes in one process share nothing", "[runtime]") {
  Harness a, b;
  REQUIRE_OK(a.add(std::make_unique<IntToString>()));
  REQUIRE_OK(b.add(std::make_unique<IntToString>()));  // same name: a different runtime
  REQUIRE_OK(a.start());
  REQUIRE_OK(b.start());
  REQUIRE(a.put(make_int("x", 1)).ok());
  CHECK(a.expect(kStrings.at("x")).ok());
  CHECK(b.expect_absent(kStrings.at("x")).ok());
  CHECK(b.runtime().metrics().render().find("IntToString") != std::string::npos);
  CHECK(a.runtime().dependencies().size() == b.runtime().dependencies().size());
}

TEST_CASE("every call is checked against the declarations, naming controller and resource", "[runtime]") {
  Harness h;
  std::vector<std::string> errors;
  REQUIRE_OK(h.add(std::make_unique<Scripted>(
      "Nosy", std::vector<Input>{{kInts.ns, kInts.type, std::string("one")}},
      std::vector<Output>{{kStrings.type}}, [&](ControllerContext& ctx) {
        errors.clear();
        auto note = [&](const Status& s) { errors.push_back(s.ok() ? "ok" : s.error().to_string()); };
        note(ctx.get(kInts.at("two")).ok() ? Status() : ctx.get(kInts.at("two")).error());
        note(ctx.list(kInts).ok() ? Status() : ctx.list(kInts).error());
        auto w = ctx.create(make_int("mine", 1));
        note(w.ok() ? Status() : w.error());
        note(ctx.add_finalizer(kInts.at("one")));
        auto own = ctx.modify<TextSpec>(Metadata(kStrings.ns, kStrings.type, "s"), [](TextSpec& t) { t.text = "x"; });
        note(own.ok() ? Status() : own.error());
        return ReconcileResult::done();
      })));
  REQUIRE(h.put(make_int("one", 1)).ok());
  REQUIRE_OK(h.start());
  REQUIRE(errors.size() == 5);
  CHECK(errors[0] == "permission denied: controller \"Nosy\" may not read Ints.test.cosi.dev(default/two): it is "
                     "not among its inputs or outputs");
  CHECK_THAT(errors[1], Catch::Contains("may not list Ints.test.cosi.dev(default)"));
  CHECK_THAT(errors[2], Catch::Contains("may not write Ints.test.cosi.dev(default/mine)"));
  CHECK_THAT(errors[3], Catch::Contains("may not edit finalizers of Ints.test.cosi.dev(default/one)"));
  CHECK(errors[4] == "ok");
  CHECK(h.expect(kStrings.at("s"), [](const ResourcePtr& r) { return r->metadata().owner() == Atom("Nosy"); }).ok());
  CHECK(h.expect_absent(kInts.at("mine")).ok());
}

TEST_CASE("requeue_after runs again after the delay", "[runtime]") {
  Harness h;
  auto c = std::make_unique<Scripted>("Poller", std::vector<Input>{}, std::vector<Output>{},
                                      [](ControllerContext&) { return ReconcileResult::requeue_after(std::chrono::seconds(30)); });
  auto* raw = c.get();
  REQUIRE_OK(h.add(std::move(c)));
  REQUIRE_OK(h.start());
  CHECK(raw->passes == 1);
  h.advance(std::chrono::seconds(29));
  CHECK(raw->passes == 1);
  h.advance(std::chrono::seconds(1));
  CHECK(raw->passes == 2);
  CHECK_THAT(h.runtime().metrics().render(),
             Catch::Contains("controller_runtime_reconcile_total{controller=\"Poller\",result=\"requeue_after\"} 2"));
}

TEST_CASE("a terminal error is not retried until an input changes", "[runtime]") {
  Harness h;
  auto c = std::make_unique<Scripted>("Picky", std::vector<Input>{{kInts.ns, kInts.type}}, std::vector<Output>{},
                                      [](ControllerContext&) {
                                        return ReconcileResult::terminal(Error(ErrorKind::kInvalidArgument, "bad config"));
                                      });
  auto* raw = c.get();
  REQUIRE_OK(h.add(std::move(c)));
  REQUIRE_OK(h.start());
  h.advance(std::chrono::minutes(10));
  CHECK(raw->passes == 1);
  REQUIRE(h.put(make_int("a", 1)).ok());
  CHECK(raw->passes == 2);
  bool logged = false;
  for (const auto& r : h.logs()) {
    if (r.message == "reconcile failed; not retrying") {
      logged = r.fields.front() == LogField{"controller", "Picky"};
    }
  }
  CHECK(logged);
}

TEST_CASE("injected store errors are retried with backoff until the store recovers", "[runtime]") {
  Harness h;
  REQUIRE_OK(h.add(std::make_unique<IntToString>()));
  REQUIRE_OK(h.start());
  h.fail_next_writes(kStrings, 2, Error(ErrorKind::kUnavailable, "injected"));
  REQUIRE(h.put(make_int("a", 1)).ok());
  CHECK(h.expect_absent(kStrings.at("a")).ok());        // first write failed
  h.advance(std::chrono::milliseconds(500));
  CHECK(h.expect_absent(kStrings.at("a")).ok());        // second too
  h.advance(std::chrono::seconds(1));
  CHECK(h.expect(kStrings.at("a")).ok());               // third succeeds
  CHECK_THAT(h.runtime().metrics().render(),
             Catch::Contains("workqueue_retries_total{name=\"IntToString\"} 2"));
}

TEST_CASE("inputs can change at run time", "[runtime]") {
  Harness h;
  auto c = std::make_unique<Scripted>(
      "Follower", std::vector<Input>{}, std::vector<Output>{}, [](ControllerContext& ctx) {
        if (!ctx.get(kInts.at("late")).ok()) {
          // Not an input yet: start following it.
          auto s = ctx.update_inputs({{kInts.ns, kInts.type, std::string("late")}});
          if (!s.ok()) return ReconcileResult::terminal(s.error());
        }
        return ReconcileResult::done();
      });
  auto* raw = c.get();
  REQUIRE_OK(h.add(std::move(c)));
  REQUIRE_OK(h.start());
  const int after_start = raw->passes;
  REQUIRE(h.put(make_int("late", 1)).ok());
  CHECK(raw->passes > after_start);
  CHECK(h.runtime().dependencies().front().resource_id == "late");
}

TEST_CASE("wake-ups during a pass coalesce into one more pass", "[runtime]") {
  Harness h;
  Harness* hp = &h;
  auto c = std::make_unique<Scripted>(
      "Busy", std::vector<Input>{{kInts.ns, kInts.type}}, std::vector<Output>{}, [hp](ControllerContext&) {
        static int calls = 0;
        if (++calls == 2) {
          // Three input changes land while this pass runs.
          for (int i = 0; i < 3; ++i) (void)hp->store().create(make_int("during-" + std::to_string(i), i), {"test"});
        }
        return ReconcileResult::done();
      });
  auto* raw = c.get();
  REQUIRE_OK(h.add(std::move(c)));
  REQUIRE_OK(h.start());
  REQUIRE(h.put(make_int("a", 1)).ok());
  CHECK(raw->passes == 3);  // start, the put, one more for all three changes
}

TEST_CASE("stop lets running reconciles finish within the grace period", "[runtime]") {
  MemoryState state;
  ThreadPool pool(2);
  Runtime runtime(state, pool, pool);
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false, release = false;
  REQUIRE_OK(runtime.add(std::make_unique<Scripted>("Slow", std::vector<Input>{}, std::vector<Output>{},
                                                   [&](ControllerContext&) {
                                                     std::unique_lock lock(mu);
                                                     entered = true;
                                                     cv.notify_all();
                                                     cv.wait(lock, [&] { return release; });
                                                     return ReconcileResult::done();
                                                   })));
  REQUIRE_OK(runtime.start());
  {
    std::unique_lock lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return entered; }));
  }
  auto early = runtime.stop(std::chrono::milliseconds(20));
  CHECK(early.error().kind() == ErrorKind::kDeadlineExceeded);
  {
    std::lock_guard lock(mu);
    release = true;
    cv.notify_all();
  }
  REQUIRE_OK(runtime.stop(std::chrono::seconds(10)));
  pool.stop();
}

TEST_CASE("metrics carry controller-runtime's names", "[runtime]") {
  Harness h;
  REQUIRE_OK(h.add(std::make_unique<IntToString>()));
  REQUIRE_OK(h.add(std::make_unique<KeyedIntToString>(1)));
  REQUIRE_OK(h.start());
  REQUIRE(h.put(make_int("a", 1)).ok());
  const std::string text = h.runtime().metrics().render();
  for (const char* name :
       {"controller_runtime_reconcile_total{controller=\"IntToString\",result=\"success\"} 2",
        "controller_runtime_reconcile_time_seconds_count{controller=\"KeyedIntToString\"} 1",
        "controller_runtime_active_workers{controller=\"KeyedIntToString\"} 0", "workqueue_depth{name=",
        "workqueue_adds_total{name=\"KeyedIntToString\"} 1", "workqueue_queue_duration_seconds_bucket",
        "workqueue_work_duration_seconds_bucket", "# TYPE controller_runtime_reconcile_errors_total counter",
        "# TYPE controller_runtime_reconcile_panics_total counter"}) {
    CHECK_THAT(text, Catch::Contains(name));
  }
}

TEST_CASE("a waker asks for another pass from outside, and does nothing once the runtime is gone", "[runtime]") {
  ControllerContext::Waker waker;
  {
    Harness h;
    auto c = std::make_unique<Scripted>("Source", std::vector<Input>{}, std::vector<Output>{}, [&](ControllerContext& ctx) {
      waker = ctx.waker();
      return ReconcileResult::done();
    });
    auto* raw = c.get();
    REQUIRE_OK(h.add(std::move(c)));
    REQUIRE_OK(h.start());
    h.run_until_idle();
    REQUIRE(raw->passes == 1);
    REQUIRE(waker);
    waker();
    waker();  // woken twice before it runs: one pass
    h.run_until_idle();
    CHECK(raw->passes == 2);
    std::thread([&] { waker(); }).join();  // from another thread
    h.run_until_idle();
    CHECK(raw->passes == 3);
  }
  waker();  // the runtime is gone
}

}  // namespace
}  // namespace cosi::testing
