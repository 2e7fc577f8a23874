#include "runtime/resource/metadata.h"

#include <catch2/catch.hpp>

namespace cosi {
namespace {

TEST_CASE("metadata names its resource", "[metadata]") {
  Metadata md("cluster", "Members.cluster.talos.dev", "node-1");
  CHECK(md.describe() == "Members.cluster.talos.dev(cluster/node-1)");
  CHECK(md.kind() == Kind{"cluster", "Members.cluster.talos.dev"});
  CHECK(md.pointer() == Kind{"cluster", "Members.cluster.talos.dev"}.at("node-1"));
  CHECK(md.phase() == Phase::kRunning);
  CHECK_FALSE(md.version().defined());
  CHECK(md.labels().empty());
}

TEST_CASE("copies share labels until one of them writes", "[metadata]") {
  Metadata a("ns", "Things.test.dev", "x");
  a.mutable_labels().set("k", "v");
  a.mutable_finalizers().add("f");
  Metadata b = a;
  CHECK(&a.labels() == &b.labels());  // shared block
  b.mutable_labels().set("k", "w");
  CHECK(&a.labels() != &b.labels());
  CHECK(a.labels().get("k") == "v");
  CHECK(b.labels().get("k") == "w");
  CHECK(b.finalizers().has("f"));  // the rest was copied along
}

TEST_CASE("same_content compares what writes can change", "[metadata]") {
  Metadata a("ns", "Things.test.dev", "x");
  Metadata b = a;
  b.set_version(Version(9));
  b.set_updated(Timestamp(std::chrono::seconds(5)));
  CHECK(a.same_content(b));
  b.mutable_annotations().set("note", "1");
  CHECK_FALSE(a.same_content(b));
  Metadata c = a;
  c.set_phase(Phase::kTearingDown);
  CHECK_FALSE(a.same_content(c));
  Metadata d = a;
  d.set_owner("someone");
  CHECK_FALSE(a.same_content(d));
  Metadata e = a;
  e.mutable_labels();  // an empty block equals no block
  CHECK(a.same_content(e));
}

}  // namespace
}  // namespace cosi
