#include "api/inspect_server.h"

namespace cosi::api {

grpc::ServerUnaryReactor* InspectServer::ControllerRuntimeDependencies(
    grpc::CallbackServerContext* ctx, const google::protobuf::Empty*,
    inspect::ControllerRuntimeDependenciesResponse* resp) {
  auto* message = resp->add_messages();
  message->mutable_metadata()->set_hostname(hostname_);
  for (const auto& e : runtime_.dependencies()) {
    auto* edge = message->add_edges();
    edge->set_controller_name(e.controller);
    edge->set_edge_type(static_cast<inspect::DependencyEdgeType>(e.type));
    edge->set_resource_namespace(e.resource_namespace);
    edge->set_resource_type(e.resource_type);
    if (e.resource_id) edge->set_resource_id(*e.resource_id);
  }
  auto* reactor = ctx->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace cosi::api
