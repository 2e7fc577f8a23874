// MachineServer: machine.MachineService — Version, which talosctl calls before every `get`
// (and aborts on any error; its tag must be a semantic version), ApplyConfiguration, which
// hands the document to the node's ConfigApplier, Reset, which asks the node's NodeResetter,
// the etcd calls (EtcdOperator), the service calls (ServiceOperator) and Logs, which reads the
// services' log rings: the API never acts on the node itself.
#pragma once

#include <string>
#include <vector>

#include "api/service_operator.h"
#include "controllers/common/service_logs.h"
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

// etcd on this node: the actions, and views over the etcd resources. Off control planes every
// call is kUnimplemented.
class EtcdOperator {
 public:
  virtual ~EtcdOperator() = default;
  virtual Status bootstrap() = 0;
  // Bootstrap{recover_etcd}: a new cluster from the snapshot EtcdRecover uploaded.
  virtual Status bootstrap_from_snapshot() = 0;
  // Where EtcdRecover writes the upload.
  virtual Result<std::string> recover_path() = 0;
  // This member's snapshot, written to a file the caller streams and then removes.
  virtual Result<std::string> snapshot() = 0;
  virtual Result<std::vector<machine::EtcdMemberAlarm>> alarms() = 0;
  virtual Result<std::vector<machine::EtcdMemberAlarm>> disarm_alarms() = 0;
  virtual Status defragment() = 0;
  virtual Status leave() = 0;
  virtual Status remove_member(uint64_t id) = 0;
  // The new leader's name; empty when this member did not lead.
  virtual Result<std::string> forfeit_leadership() = 0;
  virtual Result<std::vector<machine::EtcdMember>> members() = 0;
  // This member's status as the node last saw it (errors included).
  virtual Result<machine::EtcdMemberStatus> status() = 0;
};

// The admin kubeconfig a control plane hands out (signed with the Kubernetes CA of its config).
class KubeconfigIssuer {
 public:
  virtual ~KubeconfigIssuer() = default;
  virtual Result<std::string> kubeconfig() = 0;
};

class MachineServer final : public machine::MachineService::CallbackService {
 public:
  // `applier` and `resetter` may be null: their calls are then UNIMPLEMENTED.
  explicit MachineServer(NodeInfo node, ConfigApplier* applier = nullptr, NodeResetter* resetter = nullptr,
                         EtcdOperator* etcd = nullptr, KubeconfigIssuer* kubeconfig = nullptr, ServiceOperator* services = nullptr,
                         controllers::ServiceLogs* logs = nullptr)
      : node_(std::move(node)),
        applier_(applier),
        resetter_(resetter),
        etcd_(etcd),
        kubeconfig_(kubeconfig),
        services_(services),
        logs_(logs) {}

  grpc::ServerUnaryReactor* Version(grpc::CallbackServerContext* ctx, const google::protobuf::Empty* req,
                                    machine::VersionResponse* resp) override;
  grpc::ServerUnaryReactor* ApplyConfiguration(grpc::CallbackServerContext* ctx, const machine::ApplyConfigurationRequest* req,
                                               machine::ApplyConfigurationResponse* resp) override;
  grpc::ServerUnaryReactor* Reset(grpc::CallbackServerContext* ctx, const machine::ResetRequest* req,
                                  machine::ResetResponse* resp) override;
  grpc::ServerUnaryReactor* Bootstrap(grpc::CallbackServerContext* ctx, const machine::BootstrapRequest* req,
                                      machine::BootstrapResponse* resp) override;
  grpc::ServerUnaryReactor* EtcdMemberList(grpc::CallbackServerContext* ctx, const machine::EtcdMemberListRequest* req,
                                           machine::EtcdMemberListResponse* resp) override;
  grpc::ServerUnaryReactor* EtcdStatus(grpc::CallbackServerContext* ctx, const google::protobuf::Empty* req,
                                       machine::EtcdStatusResponse* resp) override;
  grpc::ServerUnaryReactor* EtcdLeaveCluster(grpc::CallbackServerContext* ctx, const machine::EtcdLeaveClusterRequest* req,
                                             machine::EtcdLeaveClusterResponse* resp) override;
  grpc::ServerUnaryReactor* EtcdRemoveMemberByID(grpc::CallbackServerContext* ctx,
                                                 const machine::EtcdRemoveMemberByIDRequest* req,
                                                 machine::EtcdRemoveMemberByIDResponse* resp) override;
  grpc::ServerUnaryReactor* EtcdAlarmList(grpc::CallbackServerContext* ctx, const google::protobuf::Empty* req,
                                          machine::EtcdAlarmListResponse* resp) override;
  grpc::ServerUnaryReactor* EtcdAlarmDisarm(grpc::CallbackServerContext* ctx, const google::protobuf::Empty* req,
                                            machine::EtcdAlarmDisarmResponse* resp) override;
  grpc::ServerUnaryReactor* EtcdDefragment(grpc::CallbackServerContext* ctx, const google::protobuf::Empty* req,
                                           machine::EtcdDefragmentResponse* resp) override;
  grpc::ServerWriteReactor<common::Data>* Kubeconfig(grpc::CallbackServerContext* ctx, const google::protobuf::Empty* req) override;
  // machine_logs.cc
  grpc::ServerWriteReactor<common::Data>* Logs(grpc::CallbackServerContext* ctx, const machine::LogsRequest* req) override;
  grpc::ServerWriteReactor<common::Data>* EtcdSnapshot(grpc::CallbackServerContext* ctx,
                                                       const machine::EtcdSnapshotRequest* req) override;
  grpc::ServerReadReactor<common::Data>* EtcdRecover(grpc::CallbackServerContext* ctx, machine::EtcdRecoverResponse* resp) override;
  grpc::ServerUnaryReactor* EtcdForfeitLeadership(grpc::CallbackServerContext* ctx,
                                                  const machine::EtcdForfeitLeadershipRequest* req,
                                                  machine::EtcdForfeitLeadershipResponse* resp) override;
  grpc::ServerUnaryReactor* ServiceList(grpc::CallbackServerContext* ctx, const google::protobuf::Empty* req,
                                        machine::ServiceListResponse* resp) override;
  grpc::ServerUnaryReactor* ServiceStart(grpc::CallbackServerContext* ctx, const machine::ServiceStartRequest* req,
                                         machine::ServiceStartResponse* resp) override;
  grpc::ServerUnaryReactor* ServiceStop(grpc::CallbackServerContext* ctx, const machine::ServiceStopRequest* req,
                                        machine::ServiceStopResponse* resp) override;
  grpc::ServerUnaryReactor* ServiceRestart(grpc::CallbackServerContext* ctx, const machine::ServiceRestartRequest* req,
                                           machine::ServiceRestartResponse* resp) override;

 private:
  const NodeInfo node_;
  ConfigApplier* const applier_;
  NodeResetter* const resetter_;
  EtcdOperator* const etcd_;
  KubeconfigIssuer* const kubeconfig_;
  ServiceOperator* const services_;
  controllers::ServiceLogs* const logs_;
};

}  // namespace cosi::api
