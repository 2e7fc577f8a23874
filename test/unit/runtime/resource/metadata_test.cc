#include "runtime/resource/metadata.h"

#include <catch2/catch.hpp>

#include <memory>
#include <thread>
#include <vector>

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

TEST_CASE("the tag block lives as long as its last copy", "[metadata]") {
  auto a = std::make_unique<Metadata>("ns", "Things.test.dev", "x");
  a->mutable_labels().set("k", "v");
  Metadata b = *a;
  Metadata c;
  c = b;
  a.reset();
  CHECK(b.labels().get("k") == "v");
  Metadata d = std::move(b);
  CHECK(d.labels().get("k") == "v");
  CHECK(&c.labels() == &d.labels());
  c.mutable_labels().set("k", "w");  // shared with d: copied first
  CHECK(d.labels().get("k") == "v");
  CHECK(c.labels().get("k") == "w");
}

TEST_CASE("copies made and dropped on many threads leave the block intact", "[metadata]") {
  Metadata shared("ns", "Things.test.dev", "x");
  shared.mutable_labels().set("k", "v");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&shared] {
      for (int i = 0; i < 10000; ++i) {
        Metadata copy = shared;
        if (i % 100 == 0) copy.mutable_labels().set("k", "mine");
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(shared.labels().get("k") == "v");
}

TEST_CASE("a namespace and type pair is kept once, whatever the thread", "[metadata]") {
  Metadata a("ns", "Things.test.dev", "x");
  Metadata b("ns", "Things.test.dev", "y");
  Metadata c("other", "Things.test.dev", "x");
  CHECK(&a.kind() == &b.kind());
  CHECK(&a.kind() != &c.kind());
  CHECK(c.kind() == Kind{"other", "Things.test.dev"});
  const Kind* from_thread = nullptr;
  std::thread([&] { from_thread = &Metadata("ns", "Things.test.dev", "z").kind(); }).join();
  CHECK(from_thread == &a.kind());
  CHECK(Metadata().kind() == Kind{});
}

}  // namespace
}  // namespace cosi
