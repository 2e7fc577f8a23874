#include "runtime/resource/labels.h"

#include <catch2/catch.hpp>

#include "runtime/resource/finalizers.h"

namespace cosi {
namespace {

TEST_CASE("labels stay sorted and report changes", "[labels]") {
  Labels l{{"zone", "a"}, {"role", "cp"}};
  CHECK(l.begin()->first == "role");
  CHECK(l.get("zone") == "a");
  CHECK_FALSE(l.get("missing").has_value());
  CHECK_FALSE(l.set("zone", "a"));
  CHECK(l.set("zone", "b"));
  CHECK(l.set("arch", "x86"));
  CHECK(l.begin()->first == "arch");
  CHECK(l.erase("arch"));
  CHECK_FALSE(l.erase("arch"));
  CHECK(l == Labels{{"role", "cp"}, {"zone", "b"}});
}

TEST_CASE("finalizers are a set in insertion order", "[finalizers]") {
  Finalizers f;
  CHECK(f.add("b"));
  CHECK(f.add("a"));
  CHECK_FALSE(f.add("b"));
  CHECK(*f.begin() == "b");
  CHECK(f.has("a"));
  CHECK(f.remove("b"));
  CHECK_FALSE(f.remove("b"));
  CHECK(f == Finalizers{"a"});
}

}  // namespace
}  // namespace cosi
