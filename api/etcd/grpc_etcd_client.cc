#include "api/etcd/grpc_etcd_client.h"

#include <grpcpp/grpcpp.h>

#include "etcd_rpc.grpc.pb.h"

namespace cosi::etcd {

namespace {

using controllers::EtcdMemberInfo;
using controllers::EtcdMemberStatus;

Error failed(const std::string& endpoint, const char* call, const grpc::Status& s) {
  const ErrorKind kind = s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ? ErrorKind::kDeadlineExceeded
                         : s.error_code() == grpc::StatusCode::UNAVAILABLE     ? ErrorKind::kUnavailable
                         : s.error_code() == grpc::StatusCode::NOT_FOUND       ? ErrorKind::kNotFound
                         : s.error_code() == grpc::StatusCode::FAILED_PRECONDITION ? ErrorKind::kFailedPrecondition
                                                                              : ErrorKind::kUnavailable;
  return Error(kind, "etcd " + endpoint + " " + call + ": " + s.error_message());
}

EtcdMemberInfo member_of(const etcdserverpb::Member& m) {
  return {m.id(), m.name(), {m.peerurls().begin(), m.peerurls().end()}, {m.clienturls().begin(), m.clienturls().end()},
          m.islearner()};
}

class GrpcEtcdClient final : public controllers::EtcdClient {
 public:
  GrpcEtcdClient(std::string endpoint, const controllers::EtcdTls& tls, std::chrono::milliseconds deadline)
      : endpoint_(std::move(endpoint)), deadline_(deadline) {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = tls.ca;
    options.pem_cert_chain = tls.crt;
    options.pem_private_key = tls.key;
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    channel_ = grpc::CreateCustomChannel(endpoint_, grpc::SslCredentials(options), args);
    cluster_ = etcdserverpb::Cluster::NewStub(channel_);
    maintenance_ = etcdserverpb::Maintenance::NewStub(channel_);
  }

  Result<std::vector<EtcdMemberInfo>> member_list() override {
    grpc::ClientContext ctx;
    bound(ctx);
    etcdserverpb::MemberListResponse resp;
    auto s = cluster_->MemberList(&ctx, etcdserverpb::MemberListRequest(), &resp);
    if (!s.ok()) return failed(endpoint_, "MemberList", s);
    std::vector<EtcdMemberInfo> out;
    for (const auto& m : resp.members()) out.push_back(member_of(m));
    return out;
  }

  Result<uint64_t> add_learner(const std::vector<std::string>& peer_urls) override {
    grpc::ClientContext ctx;
    bound(ctx);
    etcdserverpb::MemberAddRequest req;
    for (const auto& u : peer_urls) req.add_peerurls(u);
    req.set_islearner(true);
    etcdserverpb::MemberAddResponse resp;
    auto s = cluster_->MemberAdd(&ctx, req, &resp);
    if (!s.ok()) return failed(endpoint_, "MemberAdd", s);
    return resp.member().id();
  }

  Status promote(uint64_t id) override {
    grpc::ClientContext ctx;
    bound(ctx);
    etcdserverpb::MemberPromoteRequest req;
    req.set_id(id);
    etcdserverpb::MemberPromoteResponse resp;
    auto s = cluster_->MemberPromote(&ctx, req, &resp);
    if (!s.ok()) return failed(endpoint_, "MemberPromote", s);
    return {};
  }

  Status remove(uint64_t id) override {
    grpc::ClientContext ctx;
    bound(ctx);
    etcdserverpb::MemberRemoveRequest req;
    req.set_id(id);
    etcdserverpb::MemberRemoveResponse resp;
    auto s = cluster_->MemberRemove(&ctx, req, &resp);
    if (!s.ok()) return failed(endpoint_, "MemberRemove", s);
    return {};
  }

  Result<EtcdMemberStatus> status() override {
    grpc::ClientContext ctx;
    bound(ctx);
    etcdserverpb::StatusResponse resp;
    auto s = maintenance_->Status(&ctx, etcdserverpb::StatusRequest(), &resp);
    if (!s.ok()) return failed(endpoint_, "Status", s);
    EtcdMemberStatus out;
    out.version = resp.version();
    out.db_size = resp.dbsize();
    out.db_size_in_use = resp.dbsizeinuse();
    out.leader = resp.leader();
    out.raft_index = resp.raftindex();
    out.raft_term = resp.raftterm();
    out.raft_applied_index = resp.raftappliedindex();
    out.is_learner = resp.islearner();
    out.member_id = resp.header().member_id();
    out.errors.assign(resp.errors().begin(), resp.errors().end());
    return out;
  }

  Result<std::vector<controllers::EtcdAlarm>> alarms() override {
    grpc::ClientContext ctx;
    bound(ctx);
    etcdserverpb::AlarmRequest req;
    req.set_action(etcdserverpb::AlarmRequest::GET);
    etcdserverpb::AlarmResponse resp;
    auto s = maintenance_->Alarm(&ctx, req, &resp);
    if (!s.ok()) return failed(endpoint_, "Alarm", s);
    std::vector<controllers::EtcdAlarm> out;
    for (const auto& a : resp.alarms()) out.push_back({a.memberid(), static_cast<int>(a.alarm())});
    return out;
  }

  Status disarm(const controllers::EtcdAlarm& alarm) override {
    grpc::ClientContext ctx;
    bound(ctx);
    etcdserverpb::AlarmRequest req;
    req.set_action(etcdserverpb::AlarmRequest::DEACTIVATE);
    req.set_memberid(alarm.member_id);
    req.set_alarm(static_cast<etcdserverpb::AlarmType>(alarm.type));
    etcdserverpb::AlarmResponse resp;
    auto s = maintenance_->Alarm(&ctx, req, &resp);
    if (!s.ok()) return failed(endpoint_, "Alarm", s);
    return {};
  }

  Status defragment() override {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::max<std::chrono::milliseconds>(deadline_, std::chrono::seconds(30)));
    etcdserverpb::DefragmentResponse resp;
    auto s = maintenance_->Defragment(&ctx, etcdserverpb::DefragmentRequest(), &resp);
    if (!s.ok()) return failed(endpoint_, "Defragment", s);
    return {};
  }

  Status snapshot(const std::function<Status(std::string_view)>& sink) override {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::max<std::chrono::milliseconds>(deadline_, std::chrono::minutes(5)));
    auto reader = maintenance_->Snapshot(&ctx, etcdserverpb::SnapshotRequest());
    etcdserverpb::SnapshotResponse chunk;
    while (reader->Read(&chunk)) {
      if (auto s = sink(chunk.blob()); !s.ok()) {
        ctx.TryCancel();
        (void)reader->Finish();
        return s;
      }
    }
    auto s = reader->Finish();
    if (!s.ok()) return failed(endpoint_, "Snapshot", s);
    return {};
  }

  Status move_leader(uint64_t to) override {
    grpc::ClientContext ctx;
    bound(ctx);
    etcdserverpb::MoveLeaderRequest req;
    req.set_targetid(to);
    etcdserverpb::MoveLeaderResponse resp;
    auto s = maintenance_->MoveLeader(&ctx, req, &resp);
    if (!s.ok()) return failed(endpoint_, "MoveLeader", s);
    return {};
  }

 private:
  void bound(grpc::ClientContext& ctx) const { ctx.set_deadline(std::chrono::system_clock::now() + deadline_); }

  const std::string endpoint_;
  const std::chrono::milliseconds deadline_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<etcdserverpb::Cluster::Stub> cluster_;
  std::unique_ptr<etcdserverpb::Maintenance::Stub> maintenance_;
};

}  // namespace

std::unique_ptr<controllers::EtcdClient> make_grpc_etcd_client(const std::string& endpoint, const controllers::EtcdTls& tls,
                                                               std::chrono::milliseconds deadline) {
  return std::make_unique<GrpcEtcdClient>(endpoint, tls, deadline);
}

}  // namespace cosi::etcd
