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

controllers::EtcdKeyValue kv_of(const mvccpb::KeyValue& kv) {
  return {kv.key(), kv.value(), kv.mod_revision(), kv.lease(), kv.create_revision()};
}

void fill_compare(const controllers::EtcdCompare& c, etcdserverpb::Compare* out) {
  using C = controllers::EtcdCompare;
  out->set_key(c.key);
  switch (c.op) {
    case C::Op::kEqual: out->set_result(etcdserverpb::Compare::EQUAL); break;
    case C::Op::kGreater: out->set_result(etcdserverpb::Compare::GREATER); break;
    case C::Op::kLess: out->set_result(etcdserverpb::Compare::LESS); break;
    case C::Op::kNotEqual: out->set_result(etcdserverpb::Compare::NOT_EQUAL); break;
  }
  switch (c.target) {
    case C::Target::kVersion:
      out->set_target(etcdserverpb::Compare::VERSION);
      out->set_version(c.value);
      break;
    case C::Target::kCreateRevision:
      out->set_target(etcdserverpb::Compare::CREATE);
      out->set_create_revision(c.value);
      break;
    case C::Target::kModRevision:
      out->set_target(etcdserverpb::Compare::MOD);
      out->set_mod_revision(c.value);
      break;
    case C::Target::kLease:
      out->set_target(etcdserverpb::Compare::LEASE);
      out->set_lease(c.value);
      break;
  }
}

void fill_op(const controllers::EtcdTxnOp& op, etcdserverpb::RequestOp* out) {
  using K = controllers::EtcdTxnOp::Kind;
  switch (op.kind) {
    case K::kGet: out->mutable_request_range()->set_key(op.key); break;
    case K::kPut: {
      auto* put = out->mutable_request_put();
      put->set_key(op.key);
      put->set_value(op.value);
      put->set_lease(op.lease);
      break;
    }
    case K::kDelete: out->mutable_request_delete_range()->set_key(op.key); break;
  }
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
    args.SetMaxReceiveMessageSize(-1);
    // No CA: plaintext (an etcd run without TLS, as in the client's own tests).
    channel_ = grpc::CreateCustomChannel(endpoint_, tls.ca.empty() ? grpc::InsecureChannelCredentials() : grpc::SslCredentials(options),
                                         args);
    cluster_ = etcdserverpb::Cluster::NewStub(channel_);
    maintenance_ = etcdserverpb::Maintenance::NewStub(channel_);
    kv_ = etcdserverpb::KV::NewStub(channel_);
    lease_ = etcdserverpb::Lease::NewStub(channel_);
    watch_ = etcdserverpb::Watch::NewStub(channel_);
  }

  Result<bool> wait_for_disconnect(std::chrono::milliseconds for_at_most) override {
    const auto deadline = std::chrono::system_clock::now() + for_at_most;
    auto state = channel_->GetState(false);
    if (state != GRPC_CHANNEL_READY) return Error(ErrorKind::kFailedPrecondition, "etcd " + endpoint_ + ": no open connection");
    while (channel_->WaitForStateChange(state, deadline)) {
      state = channel_->GetState(false);
      if (state != GRPC_CHANNEL_READY) return true;
    }
    return false;
  }

  Result<std::vector<EtcdMemberInfo>> member_list() override {
    etcdserverpb::MemberListResponse resp;
    if (auto s = call(*cluster_, &etcdserverpb::Cluster::Stub::MemberList, "MemberList", etcdserverpb::MemberListRequest(), &resp); !s.ok()) return s.error();
    std::vector<EtcdMemberInfo> out;
    for (const auto& m : resp.members()) out.push_back(member_of(m));
    return out;
  }

  Result<uint64_t> add_learner(const std::vector<std::string>& peer_urls) override {
    etcdserverpb::MemberAddRequest req;
    for (const auto& u : peer_urls) req.add_peerurls(u);
    req.set_islearner(true);
    etcdserverpb::MemberAddResponse resp;
    if (auto s = call(*cluster_, &etcdserverpb::Cluster::Stub::MemberAdd, "MemberAdd", req, &resp); !s.ok()) return s.error();
    return resp.member().id();
  }

  Status promote(uint64_t id) override {
    etcdserverpb::MemberPromoteRequest req;
    req.set_id(id);
    etcdserverpb::MemberPromoteResponse resp;
    if (auto s = call(*cluster_, &etcdserverpb::Cluster::Stub::MemberPromote, "MemberPromote", req, &resp); !s.ok()) return s.error();
    return {};
  }

  Status remove(uint64_t id) override {
    etcdserverpb::MemberRemoveRequest req;
    req.set_id(id);
    etcdserverpb::MemberRemoveResponse resp;
    if (auto s = call(*cluster_, &etcdserverpb::Cluster::Stub::MemberRemove, "MemberRemove", req, &resp); !s.ok()) return s.error();
    return {};
  }

  Result<EtcdMemberStatus> status() override {
    etcdserverpb::StatusResponse resp;
    if (auto s = call(*maintenance_, &etcdserverpb::Maintenance::Stub::Status, "Status", etcdserverpb::StatusRequest(), &resp); !s.ok()) return s.error();
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
    etcdserverpb::AlarmRequest req;
    req.set_action(etcdserverpb::AlarmRequest::GET);
    etcdserverpb::AlarmResponse resp;
    if (auto s = call(*maintenance_, &etcdserverpb::Maintenance::Stub::Alarm, "Alarm", req, &resp); !s.ok()) return s.error();
    std::vector<controllers::EtcdAlarm> out;
    for (const auto& a : resp.alarms()) out.push_back({a.memberid(), static_cast<int>(a.alarm())});
    return out;
  }

  Status disarm(const controllers::EtcdAlarm& alarm) override {
    etcdserverpb::AlarmRequest req;
    req.set_action(etcdserverpb::AlarmRequest::DEACTIVATE);
    req.set_memberid(alarm.member_id);
    req.set_alarm(static_cast<etcdserverpb::AlarmType>(alarm.type));
    etcdserverpb::AlarmResponse resp;
    if (auto s = call(*maintenance_, &etcdserverpb::Maintenance::Stub::Alarm, "Alarm", req, &resp); !s.ok()) return s.error();
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

  Result<int64_t> put(const std::string& key, const std::string& value, int64_t lease) override {
    etcdserverpb::PutRequest req;
    req.set_key(key);
    req.set_value(value);
    req.set_lease(lease);
    etcdserverpb::PutResponse resp;
    if (auto s = call(*kv_, &etcdserverpb::KV::Stub::Put, "Put", req, &resp); !s.ok()) return s.error();
    return resp.header().revision();
  }

  Result<std::vector<controllers::EtcdKeyValue>> range(const std::string& key, const std::string& range_end) override {
    etcdserverpb::RangeRequest req;
    req.set_key(key);
    req.set_range_end(range_end);
    etcdserverpb::RangeResponse resp;
    if (auto s = call(*kv_, &etcdserverpb::KV::Stub::Range, "Range", req, &resp); !s.ok()) return s.error();
    std::vector<controllers::EtcdKeyValue> out;
    for (const auto& kv : resp.kvs()) out.push_back(kv_of(kv));
    return out;
  }

  Result<controllers::EtcdRange> range_with(const std::string& key, const controllers::EtcdRangeOptions& o) override {
    using Sort = controllers::EtcdRangeOptions::Sort;
    etcdserverpb::RangeRequest req;
    req.set_key(key);
    req.set_range_end(o.range_end);
    req.set_limit(o.limit);
    req.set_max_create_revision(o.max_create_revision);
    if (o.sort != Sort::kNone) {
      req.set_sort_target(etcdserverpb::RangeRequest::CREATE);
      req.set_sort_order(o.sort == Sort::kCreateAscending ? etcdserverpb::RangeRequest::ASCEND : etcdserverpb::RangeRequest::DESCEND);
    }
    etcdserverpb::RangeResponse resp;
    if (auto s = call(*kv_, &etcdserverpb::KV::Stub::Range, "Range", req, &resp); !s.ok()) return s.error();
    controllers::EtcdRange out;
    out.revision = resp.header().revision();
    for (const auto& kv : resp.kvs()) out.kvs.push_back(kv_of(kv));
    return out;
  }

  Result<controllers::EtcdTxnResult> txn(const std::vector<controllers::EtcdCompare>& compares,
                                         const std::vector<controllers::EtcdTxnOp>& then,
                                         const std::vector<controllers::EtcdTxnOp>& otherwise) override {
    etcdserverpb::TxnRequest req;
    for (const auto& c : compares) fill_compare(c, req.add_compare());
    for (const auto& op : then) fill_op(op, req.add_success());
    for (const auto& op : otherwise) fill_op(op, req.add_failure());
    etcdserverpb::TxnResponse resp;
    if (auto s = call(*kv_, &etcdserverpb::KV::Stub::Txn, "Txn", req, &resp); !s.ok()) return s.error();
    controllers::EtcdTxnResult out;
    out.succeeded = resp.succeeded();
    out.revision = resp.header().revision();
    for (const auto& r : resp.responses()) {
      if (!r.has_response_range()) continue;
      for (const auto& kv : r.response_range().kvs()) out.got.push_back(kv_of(kv));
    }
    return out;
  }

  Result<int64_t> remove_range(const std::string& key, const std::string& range_end) override {
    etcdserverpb::DeleteRangeRequest req;
    req.set_key(key);
    req.set_range_end(range_end);
    etcdserverpb::DeleteRangeResponse resp;
    if (auto s = call(*kv_, &etcdserverpb::KV::Stub::DeleteRange, "DeleteRange", req, &resp); !s.ok()) return s.error();
    return resp.deleted();
  }

  Result<int64_t> grant_lease(std::chrono::seconds ttl) override {
    etcdserverpb::LeaseGrantRequest req;
    req.set_ttl(ttl.count());
    etcdserverpb::LeaseGrantResponse resp;
    if (auto s = call(*lease_, &etcdserverpb::Lease::Stub::LeaseGrant, "LeaseGrant", req, &resp); !s.ok()) return s.error();
    if (!resp.error().empty()) return Error(ErrorKind::kUnavailable, "etcd " + endpoint_ + " LeaseGrant: " + resp.error());
    return resp.id();
  }

  Result<int64_t> keep_alive(int64_t lease) override {
    grpc::ClientContext ctx;
    bound(ctx);
    auto stream = lease_->LeaseKeepAlive(&ctx);
    etcdserverpb::LeaseKeepAliveRequest req;
    req.set_id(lease);
    etcdserverpb::LeaseKeepAliveResponse resp;
    const bool answered = stream->Write(req) && stream->Read(&resp);
    stream->WritesDone();
    ctx.TryCancel();
    (void)stream->Finish();
    if (!answered) return Error(ErrorKind::kUnavailable, "etcd " + endpoint_ + " LeaseKeepAlive: no answer");
    if (resp.ttl() <= 0) return Error(ErrorKind::kNotFound, "etcd lease " + std::to_string(lease) + " has expired");
    return resp.ttl();
  }

  Status revoke_lease(int64_t lease) override {
    etcdserverpb::LeaseRevokeRequest req;
    req.set_id(lease);
    etcdserverpb::LeaseRevokeResponse resp;
    if (auto s = call(*lease_, &etcdserverpb::Lease::Stub::LeaseRevoke, "LeaseRevoke", req, &resp); !s.ok()) return s.error();
    return {};
  }

  Status watch(const std::string& key, const std::string& range_end, int64_t start_revision,
               const std::function<bool(const std::vector<controllers::EtcdWatchEvent>&)>& on_events,
               std::chrono::milliseconds for_at_most) override {
    grpc::ClientContext ctx;
    const auto deadline = std::chrono::system_clock::now() + for_at_most;
    ctx.set_deadline(deadline);
    auto stream = watch_->Watch(&ctx);
    etcdserverpb::WatchRequest req;
    auto* create = req.mutable_create_request();
    create->set_key(key);
    create->set_range_end(range_end);
    create->set_start_revision(start_revision);
    if (!stream->Write(req)) return failed(endpoint_, "Watch", stream->Finish());
    etcdserverpb::WatchResponse resp;
    while (stream->Read(&resp)) {
      if (resp.canceled()) {
        ctx.TryCancel();
        (void)stream->Finish();
        return Error(ErrorKind::kFailedPrecondition, "etcd " + endpoint_ + " Watch canceled: " + resp.cancel_reason());
      }
      if (resp.events_size() == 0) continue;
      std::vector<controllers::EtcdWatchEvent> events;
      for (const auto& e : resp.events()) {
        events.push_back({e.type() == mvccpb::Event::DELETE, kv_of(e.kv())});
      }
      if (!on_events(events)) {
        stream->WritesDone();
        ctx.TryCancel();
        (void)stream->Finish();
        return {};
      }
    }
    auto s = stream->Finish();
    // A stream cut at its deadline can end with another code than DEADLINE_EXCEEDED (the
    // server's side of it closing first, on a loaded machine): past the deadline, it is that.
    if (!s.ok() && s.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED && std::chrono::system_clock::now() >= deadline) {
      return Error(ErrorKind::kDeadlineExceeded, "etcd " + endpoint_ + " Watch: no more events within " +
                                                     std::to_string(for_at_most.count()) + "ms (" + s.error_message() + ")");
    }
    if (!s.ok()) return failed(endpoint_, "Watch", s);
    return {};
  }

  Status move_leader(uint64_t to) override {
    etcdserverpb::MoveLeaderRequest req;
    req.set_targetid(to);
    etcdserverpb::MoveLeaderResponse resp;
    if (auto s = call(*maintenance_, &etcdserverpb::Maintenance::Stub::MoveLeader, "MoveLeader", req, &resp); !s.ok()) return s.error();
    return {};
  }

 private:
  void bound(grpc::ClientContext& ctx) const { ctx.set_deadline(std::chrono::system_clock::now() + deadline_); }

  // One unary call within the deadline; a failure names the endpoint and the call.
  template <class Stub, class Request, class Response>
  Status call(Stub& stub, grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&, Response*), const char* name,
              const Request& req, Response* resp) const {
    grpc::ClientContext ctx;
    bound(ctx);
    auto s = (stub.*method)(&ctx, req, resp);
    if (!s.ok()) return failed(endpoint_, name, s);
    return {};
  }

  const std::string endpoint_;
  const std::chrono::milliseconds deadline_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<etcdserverpb::Cluster::Stub> cluster_;
  std::unique_ptr<etcdserverpb::Maintenance::Stub> maintenance_;
  std::unique_ptr<etcdserverpb::KV::Stub> kv_;
  std::unique_ptr<etcdserverpb::Lease::Stub> lease_;
  std::unique_ptr<etcdserverpb::Watch::Stub> watch_;
};

}  // namespace

std::unique_ptr<controllers::EtcdClient> make_grpc_etcd_client(const std::string& endpoint, const controllers::EtcdTls& tls,
                                                               std::chrono::milliseconds deadline) {
  return std::make_unique<GrpcEtcdClient>(endpoint, tls, deadline);
}

}  // namespace cosi::etcd
