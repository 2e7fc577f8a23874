// cosictl inspect dependencies: the controller runtime's dependency graph as DOT.
#include <cstdio>

#include "cmd/cosictl/commands.h"
#include "inspect.grpc.pb.h"
#include "runtime/controller/dependency_graph.h"

namespace cosi::cosictl {

Result<std::string> fetch_dependencies_dot(const Connection& c, const std::string& node) {
  auto stub = inspect::InspectService::NewStub(c.channel());
  auto ctx = c.context(node);
  google::protobuf::Empty req;
  inspect::ControllerRuntimeDependenciesResponse resp;
  grpc::Status s = stub->ControllerRuntimeDependencies(ctx.get(), req, &resp);
  if (!s.ok()) return c.error(s);
  std::vector<DependencyEdge> edges;
  for (const auto& m : resp.messages()) {
    for (const auto& e : m.edges()) {
      edges.push_back({e.controller_name(), static_cast<DependencyEdgeType>(e.edge_type()), e.resource_namespace(),
                       e.resource_type(),
                       e.resource_id().empty() ? std::nullopt : std::optional<std::string>(e.resource_id())});
    }
  }
  return dependencies_dot(edges);
}

Status run_inspect_dependencies(const Connection& c) {
  auto dot = fetch_dependencies_dot(c, c.nodes().front());
  if (!dot.ok()) return dot.error();
  std::fputs(dot->c_str(), stdout);
  return {};
}

}  // namespace cosi::cosictl
