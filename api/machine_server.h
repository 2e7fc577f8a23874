// MachineServer: machine.MachineService — for now Version, which talosctl calls before every
// `get` (and aborts on any error; its tag must be a semantic version).
#pragma once

#include <string>

#include "machine.grpc.pb.h"

namespace cosi::api {

struct NodeInfo {
  std::string hostname;    // reported in every reply's metadata
  std::string version = "v0.1.0";
  std::string sha;
  std::string platform = "local";
  std::string mode = "container";
};

class MachineServer final : public machine::MachineService::CallbackService {
 public:
  explicit MachineServer(NodeInfo node) : node_(std::move(node)) {}

  grpc::ServerUnaryReactor* Version(grpc::CallbackServerContext* ctx, const google::protobuf::Empty* req,
                                    machine::VersionResponse* resp) override;

 private:
  const NodeInfo node_;
};

}  // namespace cosi::api
