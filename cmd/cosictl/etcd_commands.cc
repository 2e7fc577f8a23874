// cosictl bootstrap and cosictl etcd members|status|leave|remove-member|forfeit-leadership:
// MachineService's etcd calls on each node, printed as talosctl prints them.
#include <cinttypes>
#include <cstdio>
#include <google/protobuf/empty.pb.h>

#include "cmd/cosictl/commands.h"
#include "cmd/cosictl/output.h"
#include "machine.grpc.pb.h"

namespace cosi::cosictl {

namespace {

std::string hex(uint64_t id) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, id);
  return buf;
}

// Bytes as Go's humanize.Bytes writes them: SI units, one decimal below 10.
std::string human_bytes(int64_t n) {
  if (n < 10) return std::to_string(n) + " B";
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  double v = static_cast<double>(n);
  int unit = 0;
  while (v >= 1000 && unit < 5) {
    v /= 1000;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.1f %s" : "%.0f %s", v, kUnits[unit]);
  return buf;
}

std::string join(const google::protobuf::RepeatedPtrField<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : separator) + i;
  return out;
}

Error node_error(const Connection& c, const std::string& node, const grpc::Status& s) {
  Error e = c.error(s);
  return Error(e.kind(), node + ": " + e.message());
}

Status members(const Connection& c) {
  auto stub = machine::MachineService::NewStub(c.channel());
  TabWriter table;
  table.row({"NODE", "ID", "HOSTNAME", "PEER URLS", "CLIENT URLS", "LEARNER"});
  for (const auto& node : c.nodes()) {
    auto ctx = c.context(node);
    machine::EtcdMemberListResponse resp;
    auto s = stub->EtcdMemberList(ctx.get(), machine::EtcdMemberListRequest(), &resp);
    if (!s.ok()) return node_error(c, node, s);
    for (const auto& m : resp.messages()) {
      for (const auto& member : m.members()) {
        table.row({node, hex(member.id()), member.hostname(), join(member.peer_urls(), ","), join(member.client_urls(), ","),
                   member.is_learner() ? "true" : "false"});
      }
    }
  }
  std::fputs(table.render().c_str(), stdout);
  return {};
}

Status status(const Connection& c) {
  auto stub = machine::MachineService::NewStub(c.channel());
  TabWriter table;
  table.row({"NODE", "MEMBER", "DB SIZE", "IN USE", "LEADER", "RAFT INDEX", "RAFT TERM", "RAFT APPLIED INDEX", "LEARNER",
             "PROTOCOL", "STORAGE", "ERRORS"});
  Status first_error;
  for (const auto& node : c.nodes()) {
    auto ctx = c.context(node);
    machine::EtcdStatusResponse resp;
    auto s = stub->EtcdStatus(ctx.get(), google::protobuf::Empty(), &resp);
    if (!s.ok()) {
      // One node's failure is its row; the others still print.
      table.row({node, "", "", "", "", "", "", "", "", "", "", c.error(s).message()});
      if (first_error.ok()) first_error = node_error(c, node, s);
      continue;
    }
    for (const auto& m : resp.messages()) {
      const auto& st = m.member_status();
      char in_use[64];
      std::snprintf(in_use, sizeof in_use, "%s (%.2f%%)", human_bytes(st.db_size_in_use()).c_str(),
                    st.db_size() > 0 ? 100.0 * static_cast<double>(st.db_size_in_use()) / static_cast<double>(st.db_size()) : 0.0);
      table.row({node, hex(st.member_id()), human_bytes(st.db_size()), in_use, hex(st.leader()), std::to_string(st.raft_index()),
                 std::to_string(st.raft_term()), std::to_string(st.raft_applied_index()), st.is_learner() ? "true" : "false",
                 st.protocol_version(), st.storage_version(), join(st.errors(), ", ")});
    }
  }
  std::fputs(table.render().c_str(), stdout);
  return first_error;
}

template <class Request, class Response>
using Call = grpc::Status (machine::MachineService::Stub::*)(grpc::ClientContext*, const Request&, Response*);

template <class Request, class Response>
Status each_node(const Connection& c, Call<Request, Response> call, const Request& req, const char* done) {
  auto stub = machine::MachineService::NewStub(c.channel());
  for (const auto& node : c.nodes()) {
    auto ctx = c.context(node);
    Response resp;
    auto s = (stub.get()->*call)(ctx.get(), req, &resp);
    if (!s.ok()) return node_error(c, node, s);
    std::printf("%s: %s\n", node.c_str(), done);
  }
  return {};
}

std::string alarm_name(int type) { return type == 1 ? "NOSPACE" : type == 2 ? "CORRUPT" : "NONE"; }

Status alarms(const Connection& c, bool disarm) {
  auto stub = machine::MachineService::NewStub(c.channel());
  TabWriter table;
  table.row({"NODE", "MEMBER", "ALARM"});
  for (const auto& node : c.nodes()) {
    auto ctx = c.context(node);
    grpc::Status s;
    google::protobuf::RepeatedPtrField<machine::EtcdMemberAlarm> found;
    if (disarm) {
      machine::EtcdAlarmDisarmResponse resp;
      s = stub->EtcdAlarmDisarm(ctx.get(), google::protobuf::Empty(), &resp);
      for (const auto& m : resp.messages()) found.MergeFrom(m.member_alarms());
    } else {
      machine::EtcdAlarmListResponse resp;
      s = stub->EtcdAlarmList(ctx.get(), google::protobuf::Empty(), &resp);
      for (const auto& m : resp.messages()) found.MergeFrom(m.member_alarms());
    }
    if (!s.ok()) return node_error(c, node, s);
    for (const auto& a : found) table.row({node, hex(a.member_id()), alarm_name(a.alarm())});
  }
  std::fputs(table.render().c_str(), stdout);
  return {};
}

// EtcdSnapshot of the first node into `path` (written whole or not at all).
Status snapshot(const Connection& c, const std::string& path) {
  const std::string node = c.nodes().front();
  const std::string partial = path + ".part";
  std::FILE* out = std::fopen(partial.c_str(), "wb");
  if (out == nullptr) return Error(ErrorKind::kInvalidArgument, "etcd snapshot: cannot write " + partial);
  auto stub = machine::MachineService::NewStub(c.channel());
  auto ctx = c.context(node, false);
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::minutes(5));
  auto reader = stub->EtcdSnapshot(ctx.get(), machine::EtcdSnapshotRequest());
  common::Data chunk;
  size_t total = 0;
  while (reader->Read(&chunk)) {
    std::fwrite(chunk.bytes().data(), 1, chunk.bytes().size(), out);
    total += chunk.bytes().size();
  }
  auto s = reader->Finish();
  const bool written = std::fclose(out) == 0;
  if (!s.ok() || !written || total == 0) {
    std::remove(partial.c_str());
    if (!s.ok()) return node_error(c, node, s);
    return Error(ErrorKind::kInternal, "etcd snapshot: " + std::string(total == 0 ? "the node sent nothing" : "cannot write " + path));
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) return Error(ErrorKind::kInternal, "etcd snapshot: cannot write " + path);
  std::printf("etcd snapshot saved to \"%s\" (%zu bytes)\n", path.c_str(), total);
  return {};
}

// EtcdRecover: uploads `path` to the first node.
Status upload(const Connection& c, const std::string& path) {
  const std::string node = c.nodes().front();
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (in == nullptr) return Error(ErrorKind::kInvalidArgument, "--recover-from: cannot read " + path);
  auto stub = machine::MachineService::NewStub(c.channel());
  auto ctx = c.context(node, false);
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::minutes(5));
  machine::EtcdRecoverResponse resp;
  auto writer = stub->EtcdRecover(ctx.get(), &resp);
  std::string buf(1 << 20, '\0');
  size_t n;
  bool ok = true;
  while (ok && (n = std::fread(buf.data(), 1, buf.size(), in)) > 0) {
    common::Data chunk;
    chunk.set_bytes(buf.data(), n);
    ok = writer->Write(chunk);
  }
  std::fclose(in);
  writer->WritesDone();
  auto s = writer->Finish();
  if (!s.ok()) return node_error(c, node, s);
  return {};
}

}  // namespace

Status run_bootstrap(const Connection& c, const std::string& recover_from) {
  machine::BootstrapRequest req;
  if (!recover_from.empty()) {
    if (auto s = upload(c, recover_from); !s.ok()) return s;
    req.set_recover_etcd(true);
  }
  return each_node<machine::BootstrapRequest, machine::BootstrapResponse>(
      c, &machine::MachineService::Stub::Bootstrap, req,
      recover_from.empty() ? "bootstrapping etcd: a new cluster starts here"
                           : "bootstrapping etcd from the snapshot: a new single-member cluster starts here");
}

Status run_etcd(const Connection& c, const std::vector<std::string>& args) {
  const std::string sub = args.empty() ? "" : args[0];
  if (sub == "members" && args.size() == 1) return members(c);
  if (sub == "status" && args.size() == 1) return status(c);
  if (sub == "leave" && args.size() == 1) {
    return each_node<machine::EtcdLeaveClusterRequest, machine::EtcdLeaveClusterResponse>(
        c, &machine::MachineService::Stub::EtcdLeaveCluster, machine::EtcdLeaveClusterRequest(), "left the etcd cluster");
  }
  if (sub == "remove-member" && args.size() == 2) {
    machine::EtcdRemoveMemberByIDRequest req;
    try {
      size_t used = 0;
      req.set_member_id(std::stoull(args[1], &used, 16));
      if (used != args[1].size()) throw std::invalid_argument("trailing");
    } catch (...) {
      return Error(ErrorKind::kInvalidArgument, "etcd remove-member: \"" + args[1] + "\" is not a member id (16 hex digits)");
    }
    return each_node<machine::EtcdRemoveMemberByIDRequest, machine::EtcdRemoveMemberByIDResponse>(
        c, &machine::MachineService::Stub::EtcdRemoveMemberByID, req, ("removed member " + args[1]).c_str());
  }
  if (sub == "snapshot" && args.size() == 2) return snapshot(c, args[1]);
  if (sub == "alarm" && args.size() == 2 && args[1] == "list") return alarms(c, false);
  if (sub == "alarm" && args.size() == 2 && args[1] == "disarm") return alarms(c, true);
  if (sub == "defrag" && args.size() == 1) {
    return each_node<google::protobuf::Empty, machine::EtcdDefragmentResponse>(c, &machine::MachineService::Stub::EtcdDefragment,
                                                                              google::protobuf::Empty(), "defragmented");
  }
  if (sub == "forfeit-leadership" && args.size() == 1) {
    auto stub = machine::MachineService::NewStub(c.channel());
    for (const auto& node : c.nodes()) {
      auto ctx = c.context(node);
      machine::EtcdForfeitLeadershipResponse resp;
      auto s = stub->EtcdForfeitLeadership(ctx.get(), machine::EtcdForfeitLeadershipRequest(), &resp);
      if (!s.ok()) return node_error(c, node, s);
      for (const auto& m : resp.messages()) {
        std::printf("%s: %s\n", node.c_str(),
                    m.member().empty() ? "not the leader; nothing to forfeit" : ("leadership moved to " + m.member()).c_str());
      }
    }
    return {};
  }
  return Error(ErrorKind::kInvalidArgument,
               "etcd: use members, status, snapshot FILE, leave, remove-member ID, forfeit-leadership, alarm list|disarm or defrag");
}

}  // namespace cosi::cosictl
