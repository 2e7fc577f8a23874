#include "runtime/state/selection.h"

#include <catch2/catch.hpp>

#include "test/support/test_resources.h"

namespace cosi::testing {
namespace {

Event updated(Labels before, Labels after) {
  return Event{EventType::kUpdated, test_resource("a", "", std::move(after)),
               test_resource("a", "", std::move(before)), Bookmark(1, 1), nullptr};
}

TEST_CASE("a label selection rewrites updates that cross it", "[selection]") {
  auto s = Selection::of({LabelQuery{LabelTerm::equal("role", "cp")}}, std::nullopt);
  CHECK(s.view(updated({{"role", "cp"}}, {{"role", "cp"}}))->type == EventType::kUpdated);
  auto left = s.view(updated({{"role", "cp"}}, {{"role", "worker"}}));
  REQUIRE(left);
  CHECK(left->type == EventType::kDestroyed);
  CHECK(left->old == nullptr);
  auto entered = s.view(updated({{"role", "worker"}}, {{"role", "cp"}}));
  REQUIRE(entered);
  CHECK(entered->type == EventType::kCreated);
  CHECK_FALSE(s.view(updated({{"role", "x"}}, {{"role", "y"}})).has_value());
}

TEST_CASE("an id selection sees one resource", "[selection]") {
  auto s = Selection::of_id("a");
  CHECK(s.view(updated({}, {})).has_value());
  Event other{EventType::kCreated, test_resource("b"), nullptr, Bookmark(1, 1), nullptr};
  CHECK_FALSE(s.view(other).has_value());
  CHECK(Selection().selects_all());
  CHECK_FALSE(s.selects_all());
}

}  // namespace
}  // namespace cosi::testing
