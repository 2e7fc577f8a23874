// InspectServer: inspect.InspectService.ControllerRuntimeDependencies — the runtime's
// dependency graph, edge by edge; `talosctl inspect dependencies` draws it.
#pragma once

#include <string>

#include "inspect.grpc.pb.h"
#include "runtime/controller/runtime.h"

namespace cosi::api {

class InspectServer final : public inspect::InspectService::CallbackService {
 public:
  InspectServer(const Runtime& runtime, std::string hostname) : runtime_(runtime), hostname_(std::move(hostname)) {}

  grpc::ServerUnaryReactor* ControllerRuntimeDependencies(grpc::CallbackServerContext* ctx,
                                                          const google::protobuf::Empty* req,
                                                          inspect::ControllerRuntimeDependenciesResponse* resp) override;

 private:
  const Runtime& runtime_;
  const std::string hostname_;
};

}  // namespace cosi::api
