#include "runtime/controller/dependency_graph.h"

#include <catch2/catch.hpp>

namespace cosi {
namespace {

const Atom kMembers = "Members.cluster.talos.dev";
const Atom kEndpoints = "Endpoints.k8s.talos.dev";

TEST_CASE("registration refuses conflicting declarations with clear errors", "[graph]") {
  DependencyGraph g;
  REQUIRE(g.add("A", {{"cluster", kMembers}}, {{kEndpoints}}).ok());

  auto dup = g.add("A", {}, {});
  CHECK(dup.error().message() == "controller name \"A\" is already taken");

  auto second = g.add("B", {}, {{kEndpoints}});
  CHECK_THAT(second.error().message(), Catch::Contains("\"A\" already owns it exclusively"));

  auto mixed = g.add("C", {}, {{kEndpoints, OutputKind::kShared}});
  CHECK_THAT(mixed.error().message(), Catch::Contains("exclusive and shared writers cannot mix"));

  auto twice = g.add("D", {{"cluster", kMembers}, {"cluster", kMembers}}, {});
  CHECK_THAT(twice.error().message(), Catch::Contains("declares input Members.cluster.talos.dev(cluster) twice"));

  CHECK(g.add("", {}, {}).error().kind() == ErrorKind::kInvalidArgument);
  // Shared writers may share.
  REQUIRE(g.add("E", {}, {{"Addresses.net.talos.dev", OutputKind::kShared}}).ok());
  REQUIRE(g.add("F", {}, {{"Addresses.net.talos.dev", OutputKind::kShared}}).ok());
  // The same input with different ids is not a duplicate.
  REQUIRE(g.add("G", {{"cluster", kMembers, "a"}, {"cluster", kMembers, "b"}}, {}).ok());
}

TEST_CASE("edges use the wire's numbering and DOT the Talos style", "[graph]") {
  DependencyGraph g;
  REQUIRE(g.add("MemberController", {{"cluster", "Affiliates.cluster.talos.dev", std::nullopt, InputKind::kStrong}},
                {{kMembers}})
              .ok());
  REQUIRE(g.add("EndpointController",
                {{"cluster", kMembers, "cp-1"}, {"cluster", "Gone.cluster.talos.dev", std::nullopt, InputKind::kDestroyReady}},
                {{kEndpoints, OutputKind::kShared}})
              .ok());
  auto edges = g.edges();
  REQUIRE(edges.size() == 5);
  CHECK(edges[0] == DependencyEdge{"MemberController", DependencyEdgeType::kInputStrong, "cluster",
                                   "Affiliates.cluster.talos.dev", std::nullopt});
  CHECK(static_cast<int>(edges[1].type) == 0);  // OUTPUT_EXCLUSIVE
  CHECK(edges[2].resource_id == "cp-1");
  CHECK(static_cast<int>(edges[4].type) == 3);  // OUTPUT_SHARED

  std::string dot = g.dot();
  CHECK_THAT(dot, Catch::StartsWith("digraph {"));
  CHECK_THAT(dot, Catch::Contains("[label=\"MemberController\", shape=box]"));
  CHECK_THAT(dot, Catch::Contains("[label=\"Members.cluster.talos.dev\", shape=note, style=filled, fillcolor=azure2]"));
  CHECK_THAT(dot, Catch::Contains("[style=bold]"));
  CHECK_THAT(dot, Catch::Contains("[style=dotted, label=\"cp-1\"]"));
  CHECK_THAT(dot, !Catch::Contains("Gone.cluster.talos.dev"));  // destroy-ready edges are left out
}

}  // namespace
}  // namespace cosi
