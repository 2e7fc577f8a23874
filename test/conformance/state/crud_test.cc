// Conformance: create, get, update, destroy — versions, owners, phases, finalizers, no-op writes.
#include <catch2/catch.hpp>

#include "runtime/state/state_ops.h"
#include "test/conformance/state/state_under_test.h"
#include "test/conformance/state/watch_helpers.h"
#include "test/support/test_resources.h"

namespace cosi::testing {
namespace {

bool mentions(const Error& e, const std::string& text) {
  return e.message().find(text) != std::string::npos;
}

TEST_CASE("create stores version 1 with the owner, running, created == updated", "[crud]") {
  auto s = make_state_under_test();
  auto created = s.state->create(test_resource("a", "alpha"), {"owner-a"});
  REQUIRE(created.ok());
  const Metadata& md = (*created)->metadata();
  CHECK(md.version() == Version(1));
  CHECK(md.owner() == Atom("owner-a"));
  CHECK(md.phase() == Phase::kRunning);
  CHECK(md.created() == md.updated());
  CHECK(md.created() != Timestamp{});

  auto got = s.state->get(kTestKind.at("a"));
  REQUIRE(got.ok());
  CHECK(test_spec(*got).value == "alpha");
  CHECK((*got)->metadata().version() == Version(1));
}

TEST_CASE("create of an existing id is AlreadyExists and changes nothing", "[crud]") {
  auto s = make_state_under_test();
  REQUIRE(s.state->create(test_resource("a", "first"), {"o"}).ok());
  auto again = s.state->create(test_resource("a", "second"), {"o"});
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().kind() == ErrorKind::kAlreadyExists);
  CHECK(mentions(again.error(), "Tests.test.cosi.dev(default/a)"));
  CHECK(test_spec(*s.state->get(kTestKind.at("a"))).value == "first");
}

TEST_CASE("get of a missing resource is NotFound naming it", "[crud]") {
  auto s = make_state_under_test();
  auto got = s.state->get(kTestKind.at("missing"));
  REQUIRE_FALSE(got.ok());
  CHECK(got.error().kind() == ErrorKind::kNotFound);
  CHECK(mentions(got.error(), "Tests.test.cosi.dev(default/missing)"));
}

TEST_CASE("resources of the same id in other namespaces are separate", "[crud]") {
  auto s = make_state_under_test();
  REQUIRE(s.state->create(test_resource("a", "here"), {"o"}).ok());
  Metadata other(kOtherKind.ns, kOtherKind.type, "a");
  REQUIRE(s.state->create(make_resource(other, TestSpec{"there"}), {"o"}).ok());
  CHECK(test_spec(*s.state->get(kTestKind.at("a"))).value == "here");
  CHECK(test_spec(*s.state->get(kOtherKind.at("a"))).value == "there");
}

TEST_CASE("update stores version+1 and keeps created", "[crud]") {
  auto s = make_state_under_test();
  auto v1 = *s.state->create(test_resource("a", "one"), {"o"});
  auto next = v1->clone();
  test_spec(*next).value = "two";
  auto v2 = s.state->update(std::move(next), {"o"});
  REQUIRE(v2.ok());
  CHECK((*v2)->metadata().version() == Version(2));
  CHECK((*v2)->metadata().created() == v1->metadata().created());
  CHECK((*v2)->metadata().updated() >= v1->metadata().updated());
  CHECK(test_spec(*s.state->get(kTestKind.at("a"))).value == "two");
  CHECK(test_spec(v1).value == "one");  // the old snapshot never changes
}

TEST_CASE("update with a stale version is a Conflict and changes nothing", "[crud]") {
  auto s = make_state_under_test();
  auto v1 = *s.state->create(test_resource("a", "one"), {"o"});
  auto first = v1->clone();
  test_spec(*first).value = "two";
  REQUIRE(s.state->update(std::move(first), {"o"}).ok());

  auto stale = v1->clone();
  test_spec(*stale).value = "three";
  auto result = s.state->update(std::move(stale), {"o"});
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind() == ErrorKind::kConflict);
  CHECK(mentions(result.error(), "Tests.test.cosi.dev(default/a)"));
  CHECK(test_spec(*s.state->get(kTestKind.at("a"))).value == "two");
}

TEST_CASE("update by another owner is an OwnerConflict", "[crud]") {
  auto s = make_state_under_test();
  auto v1 = *s.state->create(test_resource("a", "one"), {"owner-a"});
  auto next = v1->clone();
  test_spec(*next).value = "two";
  auto result = s.state->update(std::move(next), {"owner-b"});
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind() == ErrorKind::kOwnerConflict);
  CHECK(mentions(result.error(), "owner-a"));
  CHECK(test_spec(*s.state->get(kTestKind.at("a"))).value == "one");
}

TEST_CASE("update expects running unless told otherwise", "[crud]") {
  auto s = make_state_under_test();
  auto v1 = *s.state->create(test_resource("a", "one"), {"o"});
  auto down = v1->clone();
  down->mutable_metadata().set_phase(Phase::kTearingDown);
  auto v2 = *s.state->update(std::move(down), {"o"});
  CHECK(v2->metadata().phase() == Phase::kTearingDown);

  auto edit = v2->clone();
  test_spec(*edit).value = "two";
  auto refused = s.state->update(edit, {"o"});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind() == ErrorKind::kPhaseConflict);

  auto expected = s.state->update(edit, {"o", Phase::kTearingDown});
  REQUIRE(expected.ok());
  auto edit2 = (*expected)->clone();
  test_spec(*edit2).value = "three";
  auto any = s.state->update(std::move(edit2), {"o", std::nullopt});
  REQUIRE(any.ok());
  CHECK((*any)->metadata().version() == Version(4));
}

TEST_CASE("an update that changes nothing is not a write", "[crud]") {
  auto s = make_state_under_test();
  auto v1 = *s.state->create(test_resource("a", "one", {{"k", "v"}}), {"o"});
  auto watch = *s.state->watch_kind(kTestKind);

  auto same = v1->clone();
  auto result = s.state->update(std::move(same), {"o"});
  REQUIRE(result.ok());
  CHECK((*result)->metadata().version() == Version(1));
  CHECK((*result)->metadata().updated() == v1->metadata().updated());
  CHECK(drain_until_sentinel(*s.state, *watch, kTestKind).empty());

  auto label = v1->clone();
  label->mutable_metadata().mutable_labels().set("k", "w");
  auto relabeled = s.state->update(std::move(label), {"o"});
  REQUIRE(relabeled.ok());
  CHECK((*relabeled)->metadata().version() == Version(2));
}

TEST_CASE("destroy checks existence, owner and finalizers", "[crud]") {
  auto s = make_state_under_test();
  auto missing = s.state->destroy(kTestKind.at("a"), {"o"});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind() == ErrorKind::kNotFound);

  auto r = test_resource("a", "one");
  r->mutable_metadata().mutable_finalizers().add("keeper");
  REQUIRE(s.state->create(std::move(r), {"o"}).ok());

  auto wrong_owner = s.state->destroy(kTestKind.at("a"), {"someone"});
  REQUIRE_FALSE(wrong_owner.ok());
  CHECK(wrong_owner.error().kind() == ErrorKind::kOwnerConflict);

  auto pending = s.state->destroy(kTestKind.at("a"), {"o"});
  REQUIRE_FALSE(pending.ok());
  CHECK(pending.error().kind() == ErrorKind::kPendingFinalizers);
  CHECK(mentions(pending.error(), "keeper"));
  CHECK(s.state->get(kTestKind.at("a")).ok());

  REQUIRE(remove_finalizer(*s.state, kTestKind.at("a"), "keeper").ok());
  REQUIRE(s.state->destroy(kTestKind.at("a"), {"o"}).ok());
  CHECK(s.state->get(kTestKind.at("a")).error().kind() == ErrorKind::kNotFound);
}

TEST_CASE("a destroyed id can be created again from version 1", "[crud]") {
  auto s = make_state_under_test();
  auto v1 = *s.state->create(test_resource("a", "one"), {"o"});
  auto edit = v1->clone();
  test_spec(*edit).value = "two";
  REQUIRE(s.state->update(std::move(edit), {"o"}).ok());
  REQUIRE(s.state->destroy(kTestKind.at("a"), {"o"}).ok());
  auto again = s.state->create(test_resource("a", "new"), {"o2"});
  REQUIRE(again.ok());
  CHECK((*again)->metadata().version() == Version(1));
  CHECK((*again)->metadata().owner() == Atom("o2"));
}

TEST_CASE("bad pointers are InvalidArgument", "[crud]") {
  auto s = make_state_under_test();
  CHECK(s.state->get(kTestKind.at("")).error().kind() == ErrorKind::kInvalidArgument);
  CHECK(s.state->create(test_resource(""), {"o"}).error().kind() == ErrorKind::kInvalidArgument);
  CHECK(s.state->list(Kind{"", "Tests.test.cosi.dev"}).error().kind() ==
        ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace cosi::testing
