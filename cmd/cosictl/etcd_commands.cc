// cosictl bootstrap and cosictl etcd members|status|leave|remove-member|forfeit-leadership:
// MachineService's etcd calls on each node, printed as talosctl prints them.
#include <cinttypes>
#include <cstdio>

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

}  // namespace

Status run_bootstrap(const Connection& c) {
  return each_node<machine::BootstrapRequest, machine::BootstrapResponse>(c, &machine::MachineService::Stub::Bootstrap,
                                                                          machine::BootstrapRequest(),
                                                                          "bootstrapping etcd: a new cluster starts here");
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
               "etcd: use members, status, leave, remove-member ID or forfeit-leadership");
}

}  // namespace cosi::cosictl
