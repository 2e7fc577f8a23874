// Conformance: List — sorting, label queries (OR of AND-ed terms), id queries, bad queries.
#include <catch2/catch.hpp>

#include "test/conformance/state/state_under_test.h"
#include "test/support/test_resources.h"

namespace cosi::testing {
namespace {

std::string ids_of(const std::vector<ResourcePtr>& list) {
  std::string out;
  for (const auto& r : list) {
    if (!out.empty()) out += ",";
    out += r->metadata().id();
  }
  return out;
}

void fill(State& state) {
  REQUIRE(state.create(test_resource("node-3", "", {{"role", "worker"}, {"mem", "2Gi"}}), {"o"}).ok());
  REQUIRE(state.create(test_resource("node-1", "", {{"role", "cp"}, {"mem", "4Gi"}}), {"o"}).ok());
  REQUIRE(state.create(test_resource("node-2", "", {{"role", "cp"}, {"mem", "512Mi"}}), {"o"}).ok());
  REQUIRE(state.create(test_resource("lb", "", {}), {"o"}).ok());
}

TEST_CASE("list is sorted by id", "[list]") {
  auto s = make_state_under_test();
  fill(*s.state);
  CHECK(ids_of(*s.state->list(kTestKind)) == "lb,node-1,node-2,node-3");
}

TEST_CASE("list of an empty kind is empty", "[list]") {
  auto s = make_state_under_test();
  auto list = s.state->list(Kind{"nowhere", "Tests.test.cosi.dev"});
  REQUIRE(list.ok());
  CHECK(list->empty());
}

TEST_CASE("list with label queries", "[list]") {
  auto s = make_state_under_test();
  fill(*s.state);
  auto list = [&](std::vector<LabelQuery> queries) {
    return ids_of(*s.state->list(kTestKind, {.label_queries = std::move(queries)}));
  };
  CHECK(list({LabelQuery{LabelTerm::equal("role", "cp")}}) == "node-1,node-2");
  CHECK(list({LabelQuery{LabelTerm::equal("role", "cp").inverted()}}) == "node-3");
  CHECK(list({LabelQuery{LabelTerm::exists("role").inverted()}}) == "lb");
  CHECK(list({LabelQuery{LabelTerm::equal("role", "cp"), LabelTerm::lt_numeric("mem", "1Gi")}}) ==
        "node-2");
  // Two queries are OR-ed.
  CHECK(list({LabelQuery{LabelTerm::equal("role", "worker")},
              LabelQuery{LabelTerm::lte_numeric("mem", "512Mi")}}) == "node-2,node-3");
  CHECK(list({LabelQuery{LabelTerm::in("role", {"cp", "worker"})}}) == "node-1,node-2,node-3");
}

TEST_CASE("list with an id query", "[list]") {
  auto s = make_state_under_test();
  fill(*s.state);
  auto q = IDQuery::compile("^node-[12]$");
  REQUIRE(q.ok());
  CHECK(ids_of(*s.state->list(kTestKind, {.id_query = *q})) == "node-1,node-2");
  auto unanchored = IDQuery::compile("3");
  CHECK(ids_of(*s.state->list(kTestKind, {.id_query = *unanchored})) == "node-3");
}

TEST_CASE("list with a bad label query is refused", "[list]") {
  auto s = make_state_under_test();
  fill(*s.state);
  LabelTerm bad_op{"role", static_cast<LabelOp>(42), {}, false};
  auto r1 = s.state->list(kTestKind, {.label_queries = {LabelQuery{bad_op}}});
  REQUIRE_FALSE(r1.ok());
  CHECK(r1.error().kind() == ErrorKind::kUnimplemented);
  auto r2 = s.state->list(kTestKind, {.label_queries = {LabelQuery{LabelTerm::lt_numeric("mem", "lots")}}});
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().kind() == ErrorKind::kInvalidArgument);
  CHECK(r2.error().message().find("mem") != std::string::npos);
}

}  // namespace
}  // namespace cosi::testing
