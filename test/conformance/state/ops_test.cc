// Conformance: the conveniences of state_ops.h over the State under test — teardown,
// finalizers, modify, update_with_conflicts, watch_for, teardown_and_destroy.
#include <catch2/catch.hpp>

#include <mutex>
#include <thread>

#include "runtime/state/state_ops.h"
#include "test/conformance/state/state_under_test.h"
#include "test/conformance/state/watch_helpers.h"
#include "test/support/test_resources.h"

namespace cosi::testing {
namespace {

const Pointer kA = kTestKind.at("a");

class ThreadErrors {
 public:
  void add(const Error& e) {
    std::lock_guard lock(mu_);
    text_ += e.to_string() + "\n";
  }
  std::string text() {
    std::lock_guard lock(mu_);
    return text_;
  }

 private:
  std::mutex mu_;
  std::string text_;
};

EditFn set_value(std::string value) {
  return [value](Resource& r) {
    test_spec(r).value = value;
    return Status();
  };
}

TEST_CASE("teardown moves to tearingDown once and reports readiness", "[ops]") {
  auto s = make_state_under_test();
  auto r = test_resource("a");
  r->mutable_metadata().mutable_finalizers().add("keeper");
  REQUIRE(s.state->create(std::move(r), {"o"}).ok());

  auto ready = teardown(*s.state, kA, "o");
  REQUIRE(ready.ok());
  CHECK_FALSE(*ready);
  auto down = *s.state->get(kA);
  CHECK(down->metadata().phase() == Phase::kTearingDown);
  CHECK(down->metadata().version() == Version(2));

  REQUIRE(teardown(*s.state, kA, "o").ok());
  CHECK((*s.state->get(kA))->metadata().version() == Version(2));  // no second write

  REQUIRE(remove_finalizer(*s.state, kA, "keeper").ok());
  CHECK(*teardown(*s.state, kA, "o"));
}

TEST_CASE("teardown by a non-owner is an OwnerConflict", "[ops]") {
  auto s = make_state_under_test();
  REQUIRE(s.state->create(test_resource("a"), {"o"}).ok());
  auto r = teardown(*s.state, kA, "intruder");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind() == ErrorKind::kOwnerConflict);
}

TEST_CASE("finalizers are edited by anyone, in any phase", "[ops]") {
  auto s = make_state_under_test();
  REQUIRE(s.state->create(test_resource("a"), {"owner"}).ok());
  REQUIRE(add_finalizer(*s.state, kA, "f1").ok());
  REQUIRE(add_finalizer(*s.state, kA, "f2").ok());
  REQUIRE(add_finalizer(*s.state, kA, "f1").ok());  // already there: no write
  auto r = *s.state->get(kA);
  CHECK(r->metadata().finalizers() == Finalizers{"f1", "f2"});
  CHECK(r->metadata().version() == Version(3));
  CHECK(r->metadata().owner() == Atom("owner"));

  REQUIRE(teardown(*s.state, kA, "owner").ok());
  REQUIRE(remove_finalizer(*s.state, kA, "f1").ok());
  REQUIRE(remove_finalizer(*s.state, kA, "absent").ok());
  CHECK((*s.state->get(kA))->metadata().finalizers() == Finalizers{"f2"});

  CHECK(add_finalizer(*s.state, kTestKind.at("nope"), "f").error().kind() == ErrorKind::kNotFound);
}

TEST_CASE("modify creates, updates, and writes nothing when nothing changes", "[ops]") {
  auto s = make_state_under_test();
  auto created = modify(*s.state, test_resource("a"), set_value("one"), {"o"});
  REQUIRE(created.ok());
  CHECK((*created)->metadata().version() == Version(1));
  CHECK(test_spec(*created).value == "one");

  auto updated = modify(*s.state, test_resource("a"), set_value("two"), {"o"});
  REQUIRE(updated.ok());
  CHECK((*updated)->metadata().version() == Version(2));

  auto same = modify(*s.state, test_resource("a"), set_value("two"), {"o"});
  REQUIRE(same.ok());
  CHECK((*same)->metadata().version() == Version(2));

  auto foreign = modify(*s.state, test_resource("a"), set_value("three"), {"other"});
  REQUIRE_FALSE(foreign.ok());
  CHECK(foreign.error().kind() == ErrorKind::kOwnerConflict);
}

TEST_CASE("modify by pointer makes the new resource only to create it", "[ops]") {
  auto s = make_state_under_test();
  int made = 0;
  const MakeFn make = [&] {
    ++made;
    return test_resource("a");
  };
  auto created = modify(*s.state, kA, make, set_value("one"), {"o"});
  REQUIRE(created.ok());
  CHECK(made == 1);
  CHECK((*created)->metadata().version() == Version(1));
  CHECK(test_spec(*created).value == "one");

  auto updated = modify(*s.state, kA, make, set_value("two"), {"o"});
  REQUIRE(updated.ok());
  CHECK((*updated)->metadata().version() == Version(2));
  CHECK(test_spec(*updated).value == "two");
  auto same = modify(*s.state, kA, make, set_value("two"), {"o"});
  REQUIRE(same.ok());
  CHECK((*same)->metadata().version() == Version(2));
  CHECK(made == 1);  // the stored resource was edited: nothing new was built
}

TEST_CASE("modify by pointer refuses a made resource at another pointer, and writes nothing", "[ops]") {
  auto s = make_state_under_test();
  auto r = modify(*s.state, kA, [] { return test_resource("b"); }, set_value("one"), {"o"});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind() == ErrorKind::kInvalidArgument);
  CHECK(r.error().message().find(kA.to_string()) != std::string::npos);
  CHECK(r.error().message().find(kTestKind.at("b").to_string()) != std::string::npos);
  CHECK(s.state->get(kA).error().kind() == ErrorKind::kNotFound);
  CHECK(s.state->get(kTestKind.at("b")).error().kind() == ErrorKind::kNotFound);

  auto null = modify(*s.state, kA, [] { return MutableResourcePtr(); }, set_value("one"), {"o"});
  REQUIRE_FALSE(null.ok());
  CHECK(null.error().kind() == ErrorKind::kInvalidArgument);
}

TEST_CASE("an edit function's error aborts the write", "[ops]") {
  auto s = make_state_under_test();
  REQUIRE(s.state->create(test_resource("a", "one"), {"o"}).ok());
  auto r = update_with_conflicts(
      *s.state, kA, [](Resource&) { return Status(Error(ErrorKind::kInvalidArgument, "no")); },
      {"o"});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message() == "no");
  CHECK((*s.state->get(kA))->metadata().version() == Version(1));
}

TEST_CASE("concurrent writers on one resource lose no update", "[ops][concurrency]") {
  auto s = make_state_under_test();
  REQUIRE(s.state->create(test_resource("a"), {"o"}).ok());
  constexpr int kThreads = 4;
  constexpr int kIncrements = 200;
  ThreadErrors errors;  // Catch2 assertions are not thread-safe: collect, check after join
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        auto r = update_with_conflicts(*s.state, kA,
                                       [](Resource& r) {
                                         ++test_spec(r).number;
                                         return Status();
                                       },
                                       {"o"});
        if (!r.ok()) errors.add(r.error());
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(errors.text() == "");
  auto r = *s.state->get(kA);
  CHECK(test_spec(r).number == kThreads * kIncrements);
  CHECK(r->metadata().version() == Version(1 + kThreads * kIncrements));
}

TEST_CASE("concurrent finalizer edits are all kept", "[ops][concurrency]") {
  auto s = make_state_under_test();
  REQUIRE(s.state->create(test_resource("a"), {"o"}).ok());
  constexpr int kThreads = 8;
  auto run = [&](bool add) {
    ThreadErrors errors;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::string name = "controller-" + std::to_string(t);
        auto st = add ? add_finalizer(*s.state, kA, name) : remove_finalizer(*s.state, kA, name);
        if (!st.ok()) errors.add(st.error());
      });
    }
    for (auto& t : threads) t.join();
    CHECK(errors.text() == "");
  };
  run(true);
  CHECK((*s.state->get(kA))->metadata().finalizers().size() == kThreads);
  run(false);
  CHECK((*s.state->get(kA))->metadata().finalizers().empty());
}

TEST_CASE("watch_for waits for a condition, with a deadline", "[ops]") {
  auto s = make_state_under_test();
  auto timed_out = watch_for(*s.state, kA, conditions::exists(),
                             std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
  REQUIRE_FALSE(timed_out.ok());
  CHECK(timed_out.error().kind() == ErrorKind::kDeadlineExceeded);

  std::thread writer([&] { (void)s.state->create(test_resource("a", "here"), {"o"}); });
  auto seen = watch_for(*s.state, kA, conditions::exists(), in_seconds(10));
  writer.join();
  REQUIRE(seen.ok());
  CHECK(test_spec(*seen).value == "here");

  auto already = watch_for(*s.state, kA, conditions::phase_is(Phase::kRunning), in_seconds(10));
  REQUIRE(already.ok());
}

TEST_CASE("teardown_and_destroy waits for finalizers to go", "[ops]") {
  auto s = make_state_under_test();
  auto r = test_resource("a");
  r->mutable_metadata().mutable_finalizers().add("keeper");
  REQUIRE(s.state->create(std::move(r), {"o"}).ok());

  std::thread keeper([&] {
    // The keeper lets go once it sees the teardown, as a controller would.
    auto down = watch_for(*s.state, kA, conditions::phase_is(Phase::kTearingDown), in_seconds(10));
    if (down.ok()) (void)remove_finalizer(*s.state, kA, "keeper");
  });
  auto st = teardown_and_destroy(*s.state, kA, "o", in_seconds(10));
  keeper.join();
  REQUIRE(st.ok());
  CHECK(s.state->get(kA).error().kind() == ErrorKind::kNotFound);
  CHECK(teardown_and_destroy(*s.state, kA, "o", in_seconds(1)).ok());  // already gone
}

TEST_CASE("teardown_and_destroy gives up at the deadline and destroys nothing", "[ops]") {
  auto s = make_state_under_test();
  auto r = test_resource("a");
  r->mutable_metadata().mutable_finalizers().add("stubborn");
  REQUIRE(s.state->create(std::move(r), {"o"}).ok());
  auto st = teardown_and_destroy(*s.state, kA, "o",
                                 std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().kind() == ErrorKind::kDeadlineExceeded);
  CHECK(s.state->get(kA).ok());
}

}  // namespace
}  // namespace cosi::testing
