// MachineServer: machine.MachineService — Version, which talosctl calls before every `get`
// (and aborts on any error; its tag must be a semantic version), ApplyConfiguration, which
// hands the document to the node's ConfigApplier, and Reset, which asks the node's
// NodeResetter (the API never acts on the node itself).
#pragma once

#include <string>
#include <vector>

#include "machine.grpc.pb.h"
#include "runtime/base/result.h"

namespace cosi::api {

struct NodeInfo {
  std::string hostname;    // reported in every reply's metadata
  std::string version = "v0.1.0";
  std::string sha;
  std::string platform = "local";
  std::string mode = "container";
};

enum class ApplyMode { kReboot, kAuto, kNoReboot, kStaged, kTry };

struct ApplyRequest {
  std::string document;
  ApplyMode mode = ApplyMode::kAuto;
  bool dry_run = false;
};

struct ApplyOutcome {
  std::vector<std::string> warnings;
  ApplyMode mode = ApplyMode::kAuto;  // the mode it was applied with
  std::string details;                // a sentence for the user: what happened, or would
};

// Validates, persists and publishes a machine config. A rejected config changes nothing.
class ConfigApplier {
 public:
  virtual ~ConfigApplier() = default;
  virtual Result<ApplyOutcome> apply(const ApplyRequest& request) = 0;
};

struct ResetRequest {
  bool graceful = true;  // leave the cluster first (discovery, later etcd)
};

// Leaves (when graceful) before it returns, then wipes the node's state and returns it to
// maintenance mode once the reply is on its way.
class NodeResetter {
 public:
  virtual ~NodeResetter() = default;
  virtual Status reset(const ResetRequest& request) = 0;
};

class MachineServer final : public machine::MachineService::CallbackService {
 public:
  // `applier` and `resetter` may be null: their calls are then UNIMPLEMENTED.
  explicit MachineServer(NodeInfo node, ConfigApplier* applier = nullptr, NodeResetter* resetter = nullptr)
      : node_(std::move(node)), applier_(applier), resetter_(resetter) {}

  grpc::ServerUnaryReactor* Version(grpc::CallbackServerContext* ctx, const google::protobuf::Empty* req,
                                    machine::VersionResponse* resp) override;
  grpc::ServerUnaryReactor* ApplyConfiguration(grpc::CallbackServerContext* ctx, const machine::ApplyConfigurationRequest* req,
                                               machine::ApplyConfigurationResponse* resp) override;
  grpc::ServerUnaryReactor* Reset(grpc::CallbackServerContext* ctx, const machine::ResetRequest* req,
                                  machine::ResetResponse* resp) override;

 private:
  const NodeInfo node_;
  ConfigApplier* const applier_;
  NodeResetter* const resetter_;
};

}  // namespace cosi::api
