#include "runtime/resource/atom.h"

#include <catch2/catch.hpp>

#include <thread>
#include <vector>

namespace cosi {
namespace {

TEST_CASE("atoms of equal strings are the same pointer", "[atom]") {
  Atom a = "cluster";
  Atom b(std::string("clus") + "ter");
  CHECK(a == b);
  CHECK(a.identity() == b.identity());
  CHECK(a.view() == "cluster");
  CHECK(Atom("k8s") != a);
  CHECK(Atom().empty());
  CHECK(Atom("") == Atom());
  CHECK(Atom("a") < Atom("b"));
}

TEST_CASE("atoms are interned consistently from many threads", "[atom]") {
  std::vector<const void*> seen(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) Atom("noise-" + std::to_string(i % 50));
      seen[static_cast<std::size_t>(t)] = Atom("shared-atom").identity();
    });
  }
  for (auto& t : threads) t.join();
  for (auto p : seen) CHECK(p == seen[0]);
}

}  // namespace
}  // namespace cosi
