// Runtime conformance: the sample controllers on the manual harness and on a real thread
// pool. Every case runs in both worlds.
#include <catch2/catch.hpp>

#include "test/conformance/runtime/runtime_env.h"
#include "test/conformance/runtime/sample_controllers.h"

namespace cosi::testing {
namespace {

std::unique_ptr<RuntimeEnv> env_for(const std::string& world) {
  return world == "manual" ? make_manual_env() : make_threaded_env();
}

#define EACH_WORLD() \
  auto world = GENERATE(std::string("manual"), std::string("threaded")); \
  INFO("world: " << world); \
  auto env = env_for(world)

TEST_CASE("a chain of controllers follows its inputs", "[runtime]") {
  EACH_WORLD();
  REQUIRE(env->runtime().add(std::make_unique<IntToString>()).ok());
  REQUIRE(env->runtime().add(std::make_unique<StringToSentence>()).ok());
  REQUIRE(env->put(make_int("a", 1)).ok());
  REQUIRE(env->start().ok());

  auto sentence_is = [&](const std::string& id, const std::string& text) {
    auto r = env->get(kSentences.at(id));
    return r && text_of(r) == text;
  };
  CHECK(env->settle([&] { return sentence_is("a", "The number is 1."); }));

  REQUIRE(env->put(make_int("a", 7)).ok());
  REQUIRE(env->put(make_int("b", 2)).ok());
  CHECK(env->settle([&] { return sentence_is("a", "The number is 7.") && sentence_is("b", "The number is 2."); }));

  // An input that goes away takes its outputs with it, down the chain.
  REQUIRE(env->remove(kInts.at("a")).ok());
  CHECK(env->settle([&] { return !env->exists(kStrings.at("a")) && !env->exists(kSentences.at("a")); }));
  CHECK(env->exists(kSentences.at("b")));
  CHECK(env->get(kStrings.at("b"))->metadata().owner() == Atom("IntToString"));
}

TEST_CASE("a controller of many inputs sees them all, woken far fewer times", "[runtime]") {
  EACH_WORLD();
  auto sum = std::make_unique<Sum>();
  Sum* s = sum.get();
  REQUIRE(env->runtime().add(std::move(sum)).ok());
  REQUIRE(env->start().ok());
  REQUIRE(env->settle([&] { return env->exists(kSums.at("total")); }));
  const int before = s->passes.load();

  int expected = 0;
  for (int i = 1; i <= 200; ++i) {
    REQUIRE(env->put(make_int("n" + std::to_string(i), i)).ok());
    expected += i;
  }
  CHECK(env->settle([&] {
    auto total = env->get(kSums.at("total"));
    return total && int_value(total) == expected;
  }));
  const int passes = s->passes.load() - before;
  CHECK(passes >= 1);
  if (env->deterministic()) {
    CHECK(passes == 1);  // 200 writes, one coalesced wake-up
  } else {
    CHECK(passes < 200);
  }
}

TEST_CASE("a failing controller backs off and never stops the others", "[runtime]") {
  EACH_WORLD();
  auto fails = std::make_unique<AlwaysFails>();
  AlwaysFails* f = fails.get();
  REQUIRE(env->runtime().add(std::move(fails)).ok());
  REQUIRE(env->runtime().add(std::make_unique<IntToString>()).ok());
  REQUIRE(env->start().ok());
  REQUIRE(env->settle([&] { return f->attempts.load() >= 1; }));

  if (env->deterministic()) {
    CHECK(f->attempts.load() == 1);
    env->settle([] { return true; }, std::chrono::milliseconds(499));
    CHECK(f->attempts.load() == 1);  // 0.5 s have not passed
    env->settle([] { return true; }, std::chrono::milliseconds(1));
    CHECK(f->attempts.load() == 2);
    env->settle([] { return true; }, std::chrono::milliseconds(999));
    CHECK(f->attempts.load() == 2);  // the second wait is 1 s
    env->settle([] { return true; }, std::chrono::milliseconds(1));
    CHECK(f->attempts.load() == 3);
  } else {
    CHECK(env->settle([&] { return f->attempts.load() >= 3; }));
  }
  REQUIRE(env->put(make_int("a", 5)).ok());
  CHECK(env->settle([&] { return env->exists(kStrings.at("a")); }));
  CHECK(env->metric("controller_runtime_reconcile_errors_total{controller=\"AlwaysFails\"}") >= 2);
}

TEST_CASE("an exception is a crash: counted, retried, harmless to others", "[runtime]") {
  EACH_WORLD();
  auto throws = std::make_unique<Throws>();
  Throws* t = throws.get();
  REQUIRE(env->runtime().add(std::move(throws)).ok());
  REQUIRE(env->runtime().add(std::make_unique<IntToString>()).ok());
  REQUIRE(env->start().ok());
  REQUIRE(env->settle([&] { return t->attempts.load() >= 1; }));
  env->settle([] { return true; }, env->first_backoff() * 2);
  CHECK(env->settle([&] { return t->attempts.load() >= 2; }));
  CHECK(env->metric("controller_runtime_reconcile_panics_total{controller=\"Throws\"}") >= 1);
  REQUIRE(env->put(make_int("a", 5)).ok());
  CHECK(env->settle([&] { return env->exists(kStrings.at("a")); }));
}

TEST_CASE("a per-key controller reconciles each key, never one key twice at once", "[runtime]") {
  EACH_WORLD();
  auto keyed = std::make_unique<KeyedIntToString>(2);
  KeyedIntToString* k = keyed.get();
  for (int i = 0; i < 20; ++i) REQUIRE(env->put(make_int("k" + std::to_string(i), i)).ok());
  REQUIRE(env->runtime().add(std::move(keyed)).ok());
  REQUIRE(env->start().ok());
  CHECK(env->settle([&] { return env->count(kKeyedStrings) == 20; }));
  CHECK(k->max_running.load() <= 2);

  for (int round = 0; round < 5; ++round) REQUIRE(env->put(make_int("k3", 100 + round)).ok());
  CHECK(env->settle([&] {
    auto r = env->get(kKeyedStrings.at("k3"));
    return r && text_of(r) == "104";  // the last update is never lost
  }));
  REQUIRE(env->remove(kInts.at("k3")).ok());
  CHECK(env->settle([&] { return !env->exists(kKeyedStrings.at("k3")); }));
}

TEST_CASE("a per-key controller maps changes of another input to its keys", "[runtime]") {
  EACH_WORLD();
  REQUIRE(env->runtime().add(std::make_unique<GroupTotal>()).ok());
  auto grouped = [](const std::string& id, int v, const std::string& group) {
    auto r = make_int(id, v);
    r->mutable_metadata().mutable_labels().set("group", group);
    return r;
  };
  REQUIRE(env->put(make_resource(Metadata(kGroups.ns, kGroups.type, "red"), IntSpec{})).ok());
  REQUIRE(env->put(make_resource(Metadata(kGroups.ns, kGroups.type, "blue"), IntSpec{})).ok());
  REQUIRE(env->put(grouped("a", 1, "red")).ok());
  REQUIRE(env->start().ok());
  auto total_is = [&](const std::string& group, int want) {
    auto r = env->get(kGroupTotals.at(group));
    return r && int_value(r) == want;
  };
  CHECK(env->settle([&] { return total_is("red", 1) && total_is("blue", 0); }));
  REQUIRE(env->put(grouped("b", 10, "red")).ok());   // a mapped input: red is reconciled
  REQUIRE(env->put(grouped("c", 100, "blue")).ok());
  CHECK(env->settle([&] { return total_is("red", 11) && total_is("blue", 100); }));
}

TEST_CASE("a controller holding finalizers on its inputs lets them go on teardown", "[runtime]") {
  EACH_WORLD();
  REQUIRE(env->runtime().add(std::make_unique<Guard>()).ok());
  REQUIRE(env->put(make_int("a", 3)).ok());
  REQUIRE(env->start().ok());
  REQUIRE(env->settle([&] {
    auto r = env->get(kInts.at("a"));
    return r && r->metadata().finalizers().has("Guard") && env->exists(kGuards.at("a"));
  }));
  // The owner cannot destroy it while the guard holds it.
  CHECK(env->state().destroy(kInts.at("a"), {"test"}).error().kind() == ErrorKind::kPendingFinalizers);

  REQUIRE(env->remove(kInts.at("a")).ok());  // teardown
  CHECK(env->settle([&] {
    auto r = env->get(kInts.at("a"));
    return r && r->metadata().finalizers().empty() && !env->exists(kGuards.at("a"));
  }));
  CHECK(env->state().destroy(kInts.at("a"), {"test"}).ok());
}

TEST_CASE("outputs no longer wanted are torn down and destroyed once released", "[runtime]") {
  EACH_WORLD();
  REQUIRE(env->runtime().add(std::make_unique<Lease>()).ok());
  REQUIRE(env->runtime().add(std::make_unique<LeaseHolder>()).ok());
  REQUIRE(env->put(make_int("a", 1)).ok());
  REQUIRE(env->put(make_int("b", 2)).ok());
  REQUIRE(env->start().ok());
  REQUIRE(env->settle([&] {
    auto r = env->get(kLeases.at("a"));
    return r && r->metadata().finalizers().has("LeaseHolder") && env->exists(kLeases.at("b"));
  }));

  REQUIRE(env->remove(kInts.at("a")).ok());
  // The runtime tears the unwanted lease down; the holder lets go; the runtime destroys it.
  CHECK(env->settle([&] { return !env->exists(kLeases.at("a")); }));
  CHECK(env->exists(kLeases.at("b")));
}

}  // namespace
}  // namespace cosi::testing
