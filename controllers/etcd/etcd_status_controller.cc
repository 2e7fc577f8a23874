#include "controllers/etcd/etcd_status_controller.h"

#include <future>

#include "controllers/etcd/etcd_view.h"
#include "resources/etcd/etcd_resources.h"

namespace cosi::controllers {

using namespace cosi::resources;
using namespace std::chrono_literals;

namespace {

// "3.4.23" → "3.4.0" (etcd 3.4 reports no storage version).
std::string storage_version(const std::string& version) {
  const auto first = version.find('.');
  const auto second = version.find('.', first == std::string::npos ? 0 : first + 1);
  if (first == std::string::npos || second == std::string::npos) return version;
  return version.substr(0, second) + ".0";
}

}  // namespace

std::vector<Input> EtcdStatusController::inputs() const {
  auto in = etcd_view_inputs();
  in.push_back({kEtcdNamespace, kEtcdMemberType, std::string(kEtcdMemberId)});
  return in;
}

std::vector<Output> EtcdStatusController::outputs() const { return {{kEtcdStatusType}, {kEtcdClusterType}}; }

ReconcileResult EtcdStatusController::reconcile(ControllerContext& ctx) {
  auto v = read_etcd_view(ctx, client_port_, peer_port_);
  if (!v) {
    last_members_.clear();
    connections_.reset();
    kept_.clear();
    return ReconcileResult::done();
  }
  std::vector<std::string> candidates{v->self};
  candidates.insert(candidates.end(), v->peers.begin(), v->peers.end());
  bool listed = false;
  for (const auto& endpoint : candidates) {
    auto client = kept_.get(endpoint, v->tls);
    auto members = client->member_list();
    if (!members.ok()) kept_.forget(endpoint, client);
    if (members.ok()) {
      last_members_ = std::move(*members);
      listed = true;
      break;
    }
  }
  if (last_members_.empty()) return ReconcileResult::requeue_after(every_);  // no cluster yet

  // Every member's status at once, each with its own deadline.
  std::vector<std::future<Result<EtcdMemberStatus>>> calls;
  for (const auto& m : last_members_) {
    calls.push_back(std::async(std::launch::async, [&, m]() -> Result<EtcdMemberStatus> {
      if (m.client_urls.empty()) return Error(ErrorKind::kUnavailable, "not started yet (no client URL)");
      const auto endpoint = endpoint_of(m.client_urls.front());
      auto client = kept_.get(endpoint, v->tls);
      auto status = client->status();
      if (!status.ok()) kept_.forget(endpoint, client);
      return status;
    }));
  }
  for (auto& call : calls) call.wait();
  // The connections those calls used are watched from now on (a member lost between this poll
  // and the next is seen at once).
  if (!connections_ && ctx.waker()) connections_ = std::make_unique<MemberConnections>(kept_, ctx.waker());
  if (connections_) {
    std::vector<std::string> endpoints;
    for (const auto& m : last_members_) {
      if (!m.client_urls.empty()) endpoints.push_back(endpoint_of(m.client_urls.front()));
    }
    connections_->watch(endpoints, v->tls);
  }
  uint32_t voting = 0, healthy = 0, healthy_voting = 0;
  uint64_t leader = 0;
  for (size_t i = 0; i < last_members_.size(); ++i) {
    const auto& m = last_members_[i];
    auto status = calls[i].get();
    if (!m.is_learner) ++voting;
    if (status.ok()) {
      ++healthy;
      if (!m.is_learner) ++healthy_voting;
      if (status->leader != 0) leader = status->leader;
    }
    auto written = ctx.modify<EtcdStatusSpec>(
        Metadata(kEtcdNamespace, kEtcdStatusType, member_id_hex(m.id)), [&](EtcdStatusSpec& s) {
          s.Clear();
          s.set_member_id(m.id);
          s.set_hostname(m.name);
          s.set_is_learner(m.is_learner);
          for (const auto& u : m.peer_urls) s.add_peer_urls(u);
          for (const auto& u : m.client_urls) s.add_client_urls(u);
          if (!status.ok()) {
            s.add_errors(status.error().message());
            return;
          }
          s.set_protocol_version(status->version);
          s.set_storage_version(storage_version(status->version));
          s.set_db_size(status->db_size);
          s.set_db_size_in_use(status->db_size_in_use);
          s.set_leader(status->leader);
          s.set_raft_index(status->raft_index);
          s.set_raft_term(status->raft_term);
          s.set_raft_applied_index(status->raft_applied_index);
          s.set_is_learner(status->is_learner);
          for (const auto& e : status->errors) s.add_errors(e);
        });
    if (!written.ok()) return ReconcileResult::retry(written.error());
  }
  const uint32_t quorum = voting / 2 + 1;
  const std::string shown = leader != 0 && healthy_voting >= quorum ? member_id_hex(leader) : "";
  if (seen_leader_ && shown != last_leader_) ++leader_changes_;  // the first leader is no change
  seen_leader_ = seen_leader_ || !shown.empty();
  last_leader_ = shown;
  auto written = ctx.modify<EtcdClusterSpec>(Metadata(kEtcdNamespace, kEtcdClusterType, std::string(kEtcdClusterId)),
                                             [&](EtcdClusterSpec& s) {
                                               s.set_members(static_cast<uint32_t>(last_members_.size()));
                                               s.set_voting_members(voting);
                                               s.set_healthy_members(healthy);
                                               s.set_quorum_needed(quorum);
                                               s.set_failures_tolerated(voting >= quorum ? voting - quorum : 0);
                                               s.set_has_quorum(listed && healthy_voting >= quorum && leader != 0);
                                               s.set_leader(shown);
                                               s.set_leader_changes(leader_changes_);
                                             });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  return ReconcileResult::requeue_after(every_);
}

}  // namespace cosi::controllers
