#include "runtime/resource/label_query.h"

#include <catch2/catch.hpp>

#include "runtime/resource/id_query.h"

namespace cosi {
namespace {

const Labels kLabels{{"role", "cp"}, {"mem", "4Gi"}, {"zone", "b"}, {"bad", "x12"}};

TEST_CASE("exists and its inversion", "[label-query]") {
  CHECK(LabelTerm::exists("role").matches(kLabels));
  CHECK_FALSE(LabelTerm::exists("arch").matches(kLabels));
  CHECK(LabelTerm::exists("arch").inverted().matches(kLabels));
  CHECK_FALSE(LabelTerm::exists("role").inverted().matches(kLabels));
  LabelTerm not_exists{"arch", LabelOp::kNotExists, {}, false};
  CHECK(not_exists.matches(kLabels));
  CHECK_FALSE(not_exists.inverted().matches(kLabels));
}

TEST_CASE("comparisons on a missing label are false even inverted", "[label-query]") {
  for (const auto& term :
       {LabelTerm::equal("arch", "x"), LabelTerm::in("arch", {"x"}), LabelTerm::lt("arch", "x"),
        LabelTerm::lte("arch", "x"), LabelTerm::lt_numeric("arch", "1"),
        LabelTerm::lte_numeric("arch", "1")}) {
    CHECK_FALSE(term.matches(kLabels));
    CHECK_FALSE(term.inverted().matches(kLabels));
  }
}

TEST_CASE("equal, in and their inversions", "[label-query]") {
  CHECK(LabelTerm::equal("role", "cp").matches(kLabels));
  CHECK_FALSE(LabelTerm::equal("role", "worker").matches(kLabels));
  CHECK(LabelTerm::equal("role", "worker").inverted().matches(kLabels));
  CHECK(LabelTerm::in("role", {"worker", "cp"}).matches(kLabels));
  CHECK_FALSE(LabelTerm::in("role", {}).matches(kLabels));
  CHECK(LabelTerm::in("role", {"worker"}).inverted().matches(kLabels));
}

TEST_CASE("lexical comparisons", "[label-query]") {
  CHECK(LabelTerm::lt("zone", "c").matches(kLabels));
  CHECK_FALSE(LabelTerm::lt("zone", "b").matches(kLabels));
  CHECK(LabelTerm::lte("zone", "b").matches(kLabels));
  CHECK(LabelTerm::lt("zone", "b").inverted().matches(kLabels));
  // Lexical, not numeric: "4Gi" < "5" but "10" < "9" too.
  CHECK(LabelTerm::lt("mem", "5").matches(kLabels));
}

TEST_CASE("numeric comparisons read units", "[label-query]") {
  CHECK(LabelTerm::lt_numeric("mem", "5Gi").matches(kLabels));
  CHECK_FALSE(LabelTerm::lt_numeric("mem", "4Gi").matches(kLabels));
  CHECK(LabelTerm::lte_numeric("mem", "4Gi").matches(kLabels));
  CHECK(LabelTerm::lte_numeric("mem", "4294967296").matches(kLabels));
  CHECK_FALSE(LabelTerm::lt_numeric("mem", "4G").matches(kLabels));  // 4Gi > 4G
  CHECK(LabelTerm::lt_numeric("mem", "4G").inverted().matches(kLabels));
  // A label that is not a number matches no numeric term, inverted or not.
  CHECK_FALSE(LabelTerm::lt_numeric("bad", "100").matches(kLabels));
  CHECK_FALSE(LabelTerm::lt_numeric("bad", "100").inverted().matches(kLabels));
}

TEST_CASE("quantities", "[label-query]") {
  CHECK(*parse_quantity("10") == 10);
  CHECK(*parse_quantity("-3") == -3);
  CHECK(*parse_quantity("5k") == 5000);
  CHECK(*parse_quantity("5K") == 5000);
  CHECK(*parse_quantity("2Ki") == 2048);
  CHECK(*parse_quantity("3m") == 3000000);
  CHECK(*parse_quantity("1g") == 1000000000);
  CHECK(*parse_quantity("1Ti") == (1LL << 40));
  CHECK(*parse_quantity("1p") == 1000000000000000LL);
  CHECK(*parse_quantity("1Pi") == (1LL << 50));
  CHECK_FALSE(parse_quantity("").ok());
  CHECK_FALSE(parse_quantity("k").ok());
  CHECK_FALSE(parse_quantity("5x").ok());
  CHECK_FALSE(parse_quantity("5kib").ok());
  CHECK_FALSE(parse_quantity("99999999Pi").ok());  // overflow
}

TEST_CASE("a query ANDs its terms; queries OR", "[label-query]") {
  LabelQuery both{LabelTerm::equal("role", "cp"), LabelTerm::equal("zone", "b")};
  LabelQuery wrong_zone{LabelTerm::equal("role", "cp"), LabelTerm::equal("zone", "a")};
  CHECK(both.matches(kLabels));
  CHECK_FALSE(wrong_zone.matches(kLabels));
  CHECK(LabelQuery{}.matches(kLabels));
  std::vector<LabelQuery> any{wrong_zone, both};
  CHECK(matches_any(any, kLabels));
  std::vector<LabelQuery> none{wrong_zone};
  CHECK_FALSE(matches_any(none, kLabels));
  CHECK(matches_any({}, kLabels));
}

TEST_CASE("validation names the key and the problem", "[label-query]") {
  CHECK(LabelQuery{LabelTerm::equal("role", "cp")}.validate().ok());
  auto bad_number = LabelQuery{LabelTerm::lt_numeric("mem", "much")}.validate();
  REQUIRE_FALSE(bad_number.ok());
  CHECK(bad_number.error().kind() == ErrorKind::kInvalidArgument);
  CHECK(bad_number.error().message().find("\"mem\"") != std::string::npos);
  LabelTerm two_values{"role", LabelOp::kEqual, {"a", "b"}, false};
  CHECK(two_values.validate().error().kind() == ErrorKind::kInvalidArgument);
  LabelTerm unknown{"role", static_cast<LabelOp>(8), {}, false};
  CHECK(unknown.validate().error().kind() == ErrorKind::kUnimplemented);
}

TEST_CASE("id queries are unanchored RE2 patterns", "[id-query]") {
  auto q = IDQuery::compile("node-[0-9]+");
  REQUIRE(q.ok());
  CHECK(q->matches("node-12"));
  CHECK(q->matches("my-node-1-x"));
  CHECK_FALSE(q->matches("node-"));
  auto anchored = IDQuery::compile("^a$");
  CHECK(anchored->matches("a"));
  CHECK_FALSE(anchored->matches("ab"));
  auto bad = IDQuery::compile("(unclosed");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind() == ErrorKind::kInvalidArgument);
  CHECK(bad.error().message().find("(unclosed") != std::string::npos);
}

}  // namespace
}  // namespace cosi
