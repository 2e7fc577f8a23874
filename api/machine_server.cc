#include "api/machine_server.h"

#include <sys/utsname.h>

#include <filesystem>
#include <fstream>

#include "api/status.h"
#include "api/tar_gz.h"

namespace cosi::api {

grpc::ServerUnaryReactor* MachineServer::Version(grpc::CallbackServerContext* ctx, const google::protobuf::Empty*,
                                                 machine::VersionResponse* resp) {
  auto* v = resp->add_messages();
  v->mutable_metadata()->set_hostname(node_.hostname);
  auto* info = v->mutable_version();
  info->set_tag(node_.version);
  info->set_sha(node_.sha);
  info->set_go_version("c++20");
  struct utsname u {};
  if (uname(&u) == 0) {
    info->set_os(u.sysname[0] == 'L' ? "linux" : u.sysname);
    info->set_arch(std::string(u.machine) == "x86_64" ? "amd64" : u.machine);
  }
  v->mutable_platform()->set_name(node_.platform);
  v->mutable_platform()->set_mode(node_.mode);
  v->mutable_features()->set_rbac(true);
  auto* reactor = ctx->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* MachineServer::ApplyConfiguration(grpc::CallbackServerContext* ctx,
                                                            const machine::ApplyConfigurationRequest* req,
                                                            machine::ApplyConfigurationResponse* resp) {
  auto* reactor = ctx->DefaultReactor();
  if (applier_ == nullptr) {
    reactor->Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "this node does not take machine configs"));
    return reactor;
  }
  using M = machine::ApplyConfigurationRequest;
  ApplyMode mode = ApplyMode::kAuto;
  switch (req->mode()) {
    case M::REBOOT: mode = ApplyMode::kReboot; break;
    case M::AUTO: mode = ApplyMode::kAuto; break;
    case M::NO_REBOOT: mode = ApplyMode::kNoReboot; break;
    case M::STAGED: mode = ApplyMode::kStaged; break;
    case M::TRY: mode = ApplyMode::kTry; break;
    default:
      reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "mode " + std::to_string(req->mode()) + " is not a mode"));
      return reactor;
  }
  auto outcome = applier_->apply({req->data(), mode, req->dry_run()});
  if (!outcome.ok()) {
    reactor->Finish(fail(ctx, outcome.error()));
    return reactor;
  }
  auto* m = resp->add_messages();
  m->mutable_metadata()->set_hostname(node_.hostname);
  for (const auto& w : outcome->warnings) m->add_warnings(w);
  static constexpr M::Mode kWire[] = {M::REBOOT, M::AUTO, M::NO_REBOOT, M::STAGED, M::TRY};
  m->set_mode(kWire[static_cast<int>(outcome->mode)]);
  m->set_mode_details(outcome->details);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* MachineServer::Reset(grpc::CallbackServerContext* ctx, const machine::ResetRequest* req,
                                               machine::ResetResponse* resp) {
  auto* reactor = ctx->DefaultReactor();
  if (resetter_ == nullptr) {
    reactor->Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "this node cannot be reset"));
    return reactor;
  }
  if (req->system_partitions_to_wipe_size() > 0 || req->user_disks_to_wipe_size() > 0) {
    reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                 "this node has no disks or partitions to wipe: a reset wipes its state directory"));
    return reactor;
  }
  if (auto s = resetter_->reset({.graceful = req->graceful()}); !s.ok()) {
    reactor->Finish(fail(ctx, s.error()));
    return reactor;
  }
  auto* m = resp->add_messages();
  m->mutable_metadata()->set_hostname(node_.hostname);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

namespace {

// The reply for an etcd call: UNIMPLEMENTED without etcd here, the operator's error as a status.
template <class Fill>
grpc::ServerUnaryReactor* etcd_call(grpc::CallbackServerContext* ctx, EtcdOperator* etcd, Fill fill) {
  auto* reactor = ctx->DefaultReactor();
  if (etcd == nullptr) {
    reactor->Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "etcd is only available on control plane nodes"));
    return reactor;
  }
  Status s = fill();
  reactor->Finish(s.ok() ? grpc::Status::OK : fail(ctx, s.error()));
  return reactor;
}

}  // namespace

grpc::ServerUnaryReactor* MachineServer::Bootstrap(grpc::CallbackServerContext* ctx, const machine::BootstrapRequest* req,
                                                   machine::BootstrapResponse* resp) {
  return etcd_call(ctx, etcd_, [&]() -> Status {
    if (auto s = req->recover_etcd() ? etcd_->bootstrap_from_snapshot() : etcd_->bootstrap(); !s.ok()) return s;
    resp->add_messages()->mutable_metadata()->set_hostname(node_.hostname);
    return {};
  });
}

grpc::ServerUnaryReactor* MachineServer::EtcdMemberList(grpc::CallbackServerContext* ctx, const machine::EtcdMemberListRequest*,
                                                        machine::EtcdMemberListResponse* resp) {
  return etcd_call(ctx, etcd_, [&]() -> Status {
    auto members = etcd_->members();
    if (!members.ok()) return members.error();
    auto* m = resp->add_messages();
    m->mutable_metadata()->set_hostname(node_.hostname);
    for (auto& member : *members) *m->add_members() = std::move(member);
    return {};
  });
}

grpc::ServerUnaryReactor* MachineServer::EtcdStatus(grpc::CallbackServerContext* ctx, const google::protobuf::Empty*,
                                                    machine::EtcdStatusResponse* resp) {
  return etcd_call(ctx, etcd_, [&]() -> Status {
    auto status = etcd_->status();
    if (!status.ok()) return status.error();
    auto* m = resp->add_messages();
    m->mutable_metadata()->set_hostname(node_.hostname);
    *m->mutable_member_status() = std::move(*status);
    return {};
  });
}

grpc::ServerUnaryReactor* MachineServer::EtcdLeaveCluster(grpc::CallbackServerContext* ctx, const machine::EtcdLeaveClusterRequest*,
                                                          machine::EtcdLeaveClusterResponse* resp) {
  return etcd_call(ctx, etcd_, [&]() -> Status {
    if (auto s = etcd_->leave(); !s.ok()) return s;
    resp->add_messages()->mutable_metadata()->set_hostname(node_.hostname);
    return {};
  });
}

grpc::ServerUnaryReactor* MachineServer::EtcdRemoveMemberByID(grpc::CallbackServerContext* ctx,
                                                              const machine::EtcdRemoveMemberByIDRequest* req,
                                                              machine::EtcdRemoveMemberByIDResponse* resp) {
  return etcd_call(ctx, etcd_, [&]() -> Status {
    if (auto s = etcd_->remove_member(req->member_id()); !s.ok()) return s;
    resp->add_messages()->mutable_metadata()->set_hostname(node_.hostname);
    return {};
  });
}

grpc::ServerUnaryReactor* MachineServer::EtcdForfeitLeadership(grpc::CallbackServerContext* ctx,
                                                               const machine::EtcdForfeitLeadershipRequest*,
                                                               machine::EtcdForfeitLeadershipResponse* resp) {
  return etcd_call(ctx, etcd_, [&]() -> Status {
    auto leader = etcd_->forfeit_leadership();
    if (!leader.ok()) return leader.error();
    auto* m = resp->add_messages();
    m->mutable_metadata()->set_hostname(node_.hostname);
    m->set_member(*leader);
    return {};
  });
}

grpc::ServerUnaryReactor* MachineServer::EtcdAlarmList(grpc::CallbackServerContext* ctx, const google::protobuf::Empty*,
                                                       machine::EtcdAlarmListResponse* resp) {
  return etcd_call(ctx, etcd_, [&]() -> Status {
    auto alarms = etcd_->alarms();
    if (!alarms.ok()) return alarms.error();
    auto* m = resp->add_messages();
    m->mutable_metadata()->set_hostname(node_.hostname);
    for (auto& a : *alarms) *m->add_member_alarms() = std::move(a);
    return {};
  });
}

grpc::ServerUnaryReactor* MachineServer::EtcdAlarmDisarm(grpc::CallbackServerContext* ctx, const google::protobuf::Empty*,
                                                         machine::EtcdAlarmDisarmResponse* resp) {
  return etcd_call(ctx, etcd_, [&]() -> Status {
    auto alarms = etcd_->disarm_alarms();
    if (!alarms.ok()) return alarms.error();
    auto* m = resp->add_messages();
    m->mutable_metadata()->set_hostname(node_.hostname);
    for (auto& a : *alarms) *m->add_member_alarms() = std::move(a);
    return {};
  });
}

grpc::ServerUnaryReactor* MachineServer::EtcdDefragment(grpc::CallbackServerContext* ctx, const google::protobuf::Empty*,
                                                        machine::EtcdDefragmentResponse* resp) {
  return etcd_call(ctx, etcd_, [&]() -> Status {
    if (auto s = etcd_->defragment(); !s.ok()) return s;
    resp->add_messages()->mutable_metadata()->set_hostname(node_.hostname);
    return {};
  });
}

namespace {

// Streams a snapshot file in 1 MiB messages, then removes it.
class FileStream final : public grpc::ServerWriteReactor<common::Data> {
 public:
  FileStream(std::string path, grpc::Status early) : path_(std::move(path)), in_(path_, std::ios::binary) {
    if (!early.ok()) {
      Finish(early);
      return;
    }
    next();
  }
  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
      return;
    }
    next();
  }
  void OnDone() override {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove(path_, ec);
    delete this;
  }

 private:
  void next() {
    std::string chunk(1 << 20, '\0');
    in_.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    chunk.resize(static_cast<size_t>(in_.gcount()));
    if (chunk.empty()) {
      Finish(grpc::Status::OK);
      return;
    }
    message_.set_bytes(std::move(chunk));
    StartWrite(&message_);
  }
  std::string path_;
  std::ifstream in_;
  common::Data message_;
};

// Streams bytes held in memory, a megabyte a message.
class BytesStream final : public grpc::ServerWriteReactor<common::Data> {
 public:
  BytesStream(std::string bytes, grpc::Status early) : bytes_(std::move(bytes)) {
    if (!early.ok()) {
      Finish(early);
      return;
    }
    next();
  }
  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
      return;
    }
    next();
  }
  void OnDone() override { delete this; }

 private:
  void next() {
    if (at_ >= bytes_.size()) {
      Finish(grpc::Status::OK);
      return;
    }
    const size_t n = std::min<size_t>(1 << 20, bytes_.size() - at_);
    message_.set_bytes(bytes_.substr(at_, n));
    at_ += n;
    StartWrite(&message_);
  }
  std::string bytes_;
  size_t at_ = 0;
  common::Data message_;
};

// Appends every message's bytes to a file; answers once the client has sent everything.
class UploadSink final : public grpc::ServerReadReactor<common::Data> {
 public:
  UploadSink(std::string path, machine::EtcdRecoverResponse* resp, std::string hostname)
      : path_(std::move(path)), out_(path_, std::ios::binary | std::ios::trunc), resp_(resp), hostname_(std::move(hostname)) {
    if (!out_.good()) {
      Finish(grpc::Status(grpc::StatusCode::INTERNAL, "cannot write " + path_));
      return;
    }
    StartRead(&message_);
  }
  void OnReadDone(bool ok) override {
    if (!ok) {  // the client finished sending
      out_.close();
      resp_->add_messages()->mutable_metadata()->set_hostname(hostname_);
      Finish(grpc::Status::OK);
      return;
    }
    out_.write(message_.bytes().data(), static_cast<std::streamsize>(message_.bytes().size()));
    if (!out_.good()) {
      Finish(grpc::Status(grpc::StatusCode::INTERNAL, "cannot write " + path_));
      return;
    }
    StartRead(&message_);
  }
  void OnDone() override { delete this; }

 private:
  std::string path_;
  std::ofstream out_;
  machine::EtcdRecoverResponse* resp_;
  std::string hostname_;
  common::Data message_;
};

}  // namespace

grpc::ServerWriteReactor<common::Data>* MachineServer::EtcdSnapshot(grpc::CallbackServerContext* ctx,
                                                                    const machine::EtcdSnapshotRequest*) {
  if (etcd_ == nullptr) {
    return new FileStream("", grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "etcd is only available on control plane nodes"));
  }
  auto path = etcd_->snapshot();
  if (!path.ok()) return new FileStream("", fail(ctx, path.error()));
  return new FileStream(*path, grpc::Status::OK);
}

grpc::ServerWriteReactor<common::Data>* MachineServer::Kubeconfig(grpc::CallbackServerContext* ctx, const google::protobuf::Empty*) {
  if (kubeconfig_ == nullptr) return new BytesStream("", grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "this node hands out no kubeconfig"));
  auto yaml = kubeconfig_->kubeconfig();
  if (!yaml.ok()) return new BytesStream("", fail(ctx, yaml.error()));
  return new BytesStream(tar_gz({{"kubeconfig", *yaml}}), grpc::Status::OK);
}

grpc::ServerReadReactor<common::Data>* MachineServer::EtcdRecover(grpc::CallbackServerContext* ctx,
                                                                  machine::EtcdRecoverResponse* resp) {
  struct Refused final : public grpc::ServerReadReactor<common::Data> {
    explicit Refused(grpc::Status s) { Finish(s); }
    void OnDone() override { delete this; }
  };
  if (etcd_ == nullptr) return new Refused(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "etcd is only available on control plane nodes"));
  auto path = etcd_->recover_path();
  if (!path.ok()) return new Refused(fail(ctx, path.error()));
  return new UploadSink(*path, resp, node_.hostname);
}

}  // namespace cosi::api

namespace cosi::api {

namespace {

// The reply for a service call: UNIMPLEMENTED on a node without services (maintenance mode).
template <class Fill>
grpc::ServerUnaryReactor* service_call(grpc::CallbackServerContext* ctx, ServiceOperator* services, Fill fill) {
  auto* reactor = ctx->DefaultReactor();
  if (services == nullptr) {
    reactor->Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "this node runs no services"));
    return reactor;
  }
  Status s = fill();
  reactor->Finish(s.ok() ? grpc::Status::OK : fail(ctx, s.error()));
  return reactor;
}

// ServiceStart, ServiceStop and ServiceRestart: one message, "Service \"etcd\" started" as Talos says.
template <class Response>
grpc::ServerUnaryReactor* service_action(grpc::CallbackServerContext* ctx, ServiceOperator* services, const std::string& hostname,
                                         const std::string& id, Status (ServiceOperator::*action)(const std::string&),
                                         const char* done, Response* resp) {
  return service_call(ctx, services, [&]() -> Status {
    if (id.empty()) return Error(ErrorKind::kInvalidArgument, "no service named: give the service's id (for example etcd)");
    if (auto s = (services->*action)(id); !s.ok()) return s;
    auto* m = resp->add_messages();
    m->mutable_metadata()->set_hostname(hostname);
    m->set_resp("Service \"" + id + "\" " + done);
    return {};
  });
}

}  // namespace

grpc::ServerUnaryReactor* MachineServer::ServiceList(grpc::CallbackServerContext* ctx, const google::protobuf::Empty*,
                                                     machine::ServiceListResponse* resp) {
  return service_call(ctx, services_, [&]() -> Status {
    auto list = services_->list();
    if (!list.ok()) return list.error();
    auto* m = resp->add_messages();
    m->mutable_metadata()->set_hostname(node_.hostname);
    for (auto& info : *list) *m->add_services() = std::move(info);
    return {};
  });
}

grpc::ServerUnaryReactor* MachineServer::ServiceStart(grpc::CallbackServerContext* ctx, const machine::ServiceStartRequest* req,
                                                      machine::ServiceStartResponse* resp) {
  return service_action(ctx, services_, node_.hostname, req->id(), &ServiceOperator::start, "started", resp);
}

grpc::ServerUnaryReactor* MachineServer::ServiceStop(grpc::CallbackServerContext* ctx, const machine::ServiceStopRequest* req,
                                                     machine::ServiceStopResponse* resp) {
  return service_action(ctx, services_, node_.hostname, req->id(), &ServiceOperator::stop, "stopped", resp);
}

grpc::ServerUnaryReactor* MachineServer::ServiceRestart(grpc::CallbackServerContext* ctx, const machine::ServiceRestartRequest* req,
                                                        machine::ServiceRestartResponse* resp) {
  return service_action(ctx, services_, node_.hostname, req->id(), &ServiceOperator::restart, "restarted", resp);
}

}  // namespace cosi::api
