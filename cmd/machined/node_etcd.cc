#include "cmd/machined/node_etcd.h"

#include "resources/etcd/etcd_resources.h"

namespace cosi::machined {

using namespace cosi::resources;

Status NodeEtcd::serving() const {
  if (!controller_->serving()) return Error(ErrorKind::kUnimplemented, "etcd is only available on control plane nodes");
  return {};
}

namespace {

std::vector<machine::EtcdMemberAlarm> to_wire(const std::vector<controllers::EtcdAlarm>& alarms) {
  std::vector<machine::EtcdMemberAlarm> out;
  for (const auto& a : alarms) {
    machine::EtcdMemberAlarm m;
    m.set_member_id(a.member_id);
    m.set_alarm(static_cast<machine::EtcdMemberAlarm::AlarmType>(a.type));
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

Result<std::string> NodeEtcd::recover_path() {
  if (auto s = serving(); !s.ok()) return s.error();
  return controller_->recover_path();
}

Result<std::string> NodeEtcd::snapshot() {
  if (auto s = serving(); !s.ok()) return s.error();
  const std::string path = controller_->recover_path() + ".out." + std::to_string(++snapshots_);
  if (auto s = controller_->snapshot(path); !s.ok()) return s.error();
  return path;
}

Result<std::vector<machine::EtcdMemberAlarm>> NodeEtcd::alarms() {
  if (auto s = serving(); !s.ok()) return s.error();
  auto a = controller_->alarms();
  if (!a.ok()) return a.error();
  return to_wire(*a);
}

Result<std::vector<machine::EtcdMemberAlarm>> NodeEtcd::disarm_alarms() {
  if (auto s = serving(); !s.ok()) return s.error();
  auto a = controller_->disarm_alarms();
  if (!a.ok()) return a.error();
  return to_wire(*a);
}

Status NodeEtcd::defragment() {
  if (auto s = serving(); !s.ok()) return s;
  return controller_->defragment();
}

Status NodeEtcd::remove_member(uint64_t id) {
  if (auto s = serving(); !s.ok()) return s;
  return controller_->remove_member(id);
}

Result<std::string> NodeEtcd::forfeit_leadership() {
  if (auto s = serving(); !s.ok()) return s.error();
  auto leader = controller_->forfeit_leadership();
  if (!leader.ok()) return leader.error();
  if (*leader == 0) return std::string();
  auto status = state_.get({kEtcdNamespace, kEtcdStatusType, controllers::member_id_hex(*leader)});
  if (status.ok()) {
    if (auto typed = resource_cast<EtcdStatusSpec>(*status)) return typed->spec().hostname();
  }
  return controllers::member_id_hex(*leader);
}

Result<std::vector<machine::EtcdMember>> NodeEtcd::members() {
  if (auto s = serving(); !s.ok()) return s.error();
  auto list = state_.list({kEtcdNamespace, kEtcdStatusType});
  if (!list.ok()) return list.error();
  if (list->empty()) return Error(ErrorKind::kFailedPrecondition, "no etcd cluster yet: bootstrap one control plane");
  std::vector<machine::EtcdMember> out;
  for (const auto& r : *list) {
    auto s = resource_cast<EtcdStatusSpec>(r);
    if (!s) continue;
    machine::EtcdMember m;
    m.set_id(s->spec().member_id());
    m.set_hostname(s->spec().hostname());
    for (const auto& u : s->spec().peer_urls()) m.add_peer_urls(u);
    for (const auto& u : s->spec().client_urls()) m.add_client_urls(u);
    m.set_is_learner(s->spec().is_learner());
    out.push_back(std::move(m));
  }
  return out;
}

Result<machine::EtcdMemberStatus> NodeEtcd::status() {
  if (auto s = serving(); !s.ok()) return s.error();
  auto local = state_.get({kEtcdNamespace, kEtcdMemberType, std::string(kEtcdMemberId)});
  if (!local.ok()) return Error(ErrorKind::kFailedPrecondition, "etcd is not running on this node yet");
  auto member = resource_cast<EtcdMemberSpec>(*local);
  if (!member) return Error(ErrorKind::kInternal, "EtcdMembers local has another spec type");
  auto found = state_.get({kEtcdNamespace, kEtcdStatusType, member->spec().member_id()});
  if (!found.ok()) return Error(ErrorKind::kFailedPrecondition, "etcd status of member " + member->spec().member_id() + " not known yet");
  auto s = resource_cast<EtcdStatusSpec>(*found);
  if (!s) return Error(ErrorKind::kInternal, "EtcdStatuses has another spec type");
  const auto& spec = s->spec();
  machine::EtcdMemberStatus out;
  out.set_protocol_version(spec.protocol_version());
  out.set_db_size(spec.db_size());
  out.set_db_size_in_use(spec.db_size_in_use());
  out.set_leader(spec.leader());
  out.set_raft_index(spec.raft_index());
  out.set_raft_term(spec.raft_term());
  out.set_raft_applied_index(spec.raft_applied_index());
  for (const auto& e : spec.errors()) out.add_errors(e);
  out.set_is_learner(spec.is_learner());
  out.set_member_id(spec.member_id());
  out.set_storage_version(spec.storage_version());
  return out;
}

}  // namespace cosi::machined
