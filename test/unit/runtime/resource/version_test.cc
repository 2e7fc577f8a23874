#include "runtime/resource/version.h"

#include <catch2/catch.hpp>

#include "runtime/resource/phase.h"

namespace cosi {
namespace {

TEST_CASE("versions print and parse as on the wire", "[version]") {
  CHECK(Version().to_string() == "undefined");
  CHECK(Version(3).next() == Version(4));
  CHECK(Version(42).to_string() == "42");
  CHECK(parse_version("undefined") == Version());
  CHECK(parse_version("17") == Version(17));
  CHECK_FALSE(parse_version("").has_value());
  CHECK_FALSE(parse_version("1x").has_value());
  CHECK_FALSE(parse_version("-1").has_value());
}

TEST_CASE("phases print and parse as on the wire", "[phase]") {
  CHECK(to_string(Phase::kRunning) == "running");
  CHECK(to_string(Phase::kTearingDown) == "tearingDown");
  CHECK(parse_phase("tearingDown") == Phase::kTearingDown);
  CHECK_FALSE(parse_phase("TearingDown").has_value());
}

}  // namespace
}  // namespace cosi
