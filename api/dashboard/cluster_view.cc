#include "api/dashboard/cluster_view.h"

#include <algorithm>
#include <cstdio>

#include "resources/cluster/cluster_resources.h"
#include "resources/common/ip.h"
#include "resources/config/config_resources.h"
#include "resources/etcd/etcd_resources.h"
#include "resources/k8s/k8s_resources.h"
#include "resources/network/network_resources.h"
#include "resources/v1alpha1/v1alpha1_resources.h"
#include "runtime/resource/typed_resource.h"

namespace cosi::dashboard {
namespace {

using namespace cosi::resources;

template <class Spec>
const Spec* spec_of(const ResourcePtr& r) {
  auto typed = resource_cast<Spec>(r);
  return typed ? &typed->spec() : nullptr;
}

std::string hex_id(uint64_t id) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(id));
  return buf;
}

std::string machine_type_text(talos::resource::definitions::enums::MachineType t) {
  switch (t) {
    case talos::resource::definitions::enums::TYPE_INIT:
    case talos::resource::definitions::enums::TYPE_CONTROL_PLANE: return "controlplane";
    case talos::resource::definitions::enums::TYPE_WORKER: return "worker";
    default: return "";
  }
}

const std::string kMembers(kMemberType);

}  // namespace

const std::vector<Kind>& watched_kinds() {
  static const std::vector<Kind> kinds = {
      {kClusterNamespace, kMemberType},          {kNetworkNamespace, kHostnameStatusType},
      {kEtcdNamespace, kEtcdClusterType},        {kEtcdNamespace, kEtcdStatusType},
      {kNetworkNamespace, kVIPStatusType},       {kK8sNamespace, kKubePrismStatusType},
      {kK8sNamespace, kKubePrismUpstreamType},   {kRuntimeNamespace, kServiceStatusType},
      {kConfigNamespace, kMachineConfigType},
  };
  return kinds;
}

std::vector<QuorumRow> quorum_table(uint32_t voting) {
  std::vector<QuorumRow> rows;
  for (uint32_t n = 1; n <= std::max<uint32_t>(5, voting); ++n) {
    const uint32_t quorum = n / 2 + 1;
    rows.push_back({n, quorum, n - quorum, n == voting});
  }
  return rows;
}

bool ClusterView::add_node(const std::string& address) {
  std::lock_guard lock(mu_);
  if (nodes_.contains(address)) return false;
  nodes_[address].error = "not watched yet";
  ++generation_;
  return true;
}

std::vector<std::string> ClusterView::nodes() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [address, _] : nodes_) out.push_back(address);
  return out;
}

void ClusterView::apply(const std::string& address, const Event& event) {
  if (event.type != EventType::kCreated && event.type != EventType::kUpdated && event.type != EventType::kDestroyed) return;
  if (!event.resource) return;
  const auto& md = event.resource->metadata();
  std::lock_guard lock(mu_);
  auto node = nodes_.find(address);
  if (node == nodes_.end()) return;
  auto key = std::make_pair(md.type().str(), md.id());
  if (event.type == EventType::kDestroyed) {
    node->second.resources.erase(key);
  } else {
    node->second.resources[key] = event.resource;
  }
  ++generation_;
}

void ClusterView::lost(const std::string& address, const Kind& kind, const std::string& error) {
  std::lock_guard lock(mu_);
  auto node = nodes_.find(address);
  if (node == nodes_.end()) return;
  auto& n = node->second;
  // Who it was stays on its card while it does not answer.
  NodeCard before = card(address, n);
  if (before.hostname != address) n.last_hostname = before.hostname;
  if (!before.machine_type.empty()) n.last_machine_type = before.machine_type;
  const std::string type = kind.type.str();
  bool changed = std::erase_if(n.resources, [&](const auto& entry) { return entry.first.first == type; }) > 0;
  changed |= n.open_kinds.erase(type) > 0;
  if (type == kMembers && n.error != error) {
    n.error = error;
    changed = true;
  }
  if (changed) ++generation_;
}

void ClusterView::opened(const std::string& address, const Kind& kind) {
  std::lock_guard lock(mu_);
  auto node = nodes_.find(address);
  if (node == nodes_.end()) return;
  node->second.open_kinds.insert(kind.type.str());
  if (kind.type.str() == kMembers) node->second.error.clear();
  ++generation_;
}

std::vector<std::string> ClusterView::undiscovered() const {
  std::lock_guard lock(mu_);
  std::set<std::string> found;
  for (const auto& [_, node] : nodes_) {
    for (const auto& [key, r] : node.resources) {
      if (key.first != kMembers) continue;
      const auto* m = spec_of<MemberSpec>(r);
      if (m == nullptr || m->addresses().empty()) continue;
      std::string ip = ip_text(m->addresses(0).ip());
      if (!ip.empty() && !nodes_.contains(ip)) found.insert(ip);
    }
  }
  return {found.begin(), found.end()};
}

uint64_t ClusterView::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

NodeCard ClusterView::card(const std::string& address, const NodeState& node) const {
  NodeCard c;
  c.address = address;
  c.reachable = node.open_kinds.contains(kMembers);
  c.error = c.reachable ? "" : node.error;
  c.hostname = node.last_hostname.empty() ? address : node.last_hostname;
  c.machine_type = node.last_machine_type;
  for (const auto& [key, r] : node.resources) {
    const auto& [type, id] = key;
    if (type == kHostnameStatusType) {
      if (const auto* h = spec_of<HostnameStatusSpec>(r); h && !h->hostname().empty()) c.hostname = h->hostname();
    } else if (type == kMachineConfigType) {
      c.config = "applied (v" + r->metadata().version().to_string() + ")";
    } else if (type == kServiceStatusType) {
      if (const auto* s = spec_of<ServiceStatusSpec>(r)) {
        c.services.push_back({id, s->state(), s->health_unknown() ? "?" : s->healthy() ? "OK" : "Fail"});
      }
    } else if (type == kKubePrismStatusType) {
      if (const auto* s = spec_of<KubePrismStatusesSpec>(r)) {
        c.kubeprism_host = s->host();
        c.kubeprism_healthy = s->healthy();
      }
    } else if (type == kKubePrismUpstreamType) {
      if (const auto* u = spec_of<KubePrismUpstreamSpec>(r)) {
        c.upstreams.push_back({id, u->healthy(), u->latency(), u->active_connections()});
      }
    }
  }
  // Its own Member says what it is: the one with its hostname, or one of its address.
  for (const auto& [key, r] : node.resources) {
    if (key.first != kMembers) continue;
    const auto* m = spec_of<MemberSpec>(r);
    if (m == nullptr) continue;
    bool mine = key.second == c.hostname;
    for (const auto& a : m->addresses()) mine = mine || ip_text(a.ip()) == address;
    if (mine) {
      c.hostname = key.second;
      c.machine_type = machine_type_text(m->machine_type());
    }
  }
  if (c.config.empty() && c.reachable) c.config = "applied";  // a node that answers mutual TLS has a config
  return c;
}

ClusterSnapshot ClusterView::snapshot() const {
  std::lock_guard lock(mu_);
  ClusterSnapshot s;
  s.generation = generation_;
  std::map<std::string, const NodeState*> by_address;
  for (const auto& [address, node] : nodes_) {
    by_address[address] = &node;
    s.nodes.push_back(card(address, node));
  }
  std::sort(s.nodes.begin(), s.nodes.end(), [](const NodeCard& a, const NodeCard& b) {
    const bool acp = a.machine_type == "controlplane", bcp = b.machine_type == "controlplane";
    if (acp != bcp) return acp;
    return a.hostname < b.hostname;
  });

  // Members, as the first reachable node (in card order) lists them.
  for (const auto& c : s.nodes) {
    if (!c.reachable) continue;
    for (const auto& [key, r] : by_address[c.address]->resources) {
      if (key.first != kMembers) continue;
      if (const auto* m = spec_of<MemberSpec>(r)) {
        MemberRow row{key.second, machine_type_text(m->machine_type()), {}};
        for (const auto& a : m->addresses()) row.addresses.push_back(ip_text(a.ip()));
        s.members.push_back(std::move(row));
      }
    }
    if (!s.members.empty()) break;
  }

  // The etcd view: a reachable control plane with EtcdClusters, one whose own member is healthy
  // first.
  const NodeState* view = nullptr;
  const NodeCard* view_card = nullptr;
  bool view_self_healthy = false;
  for (const auto& c : s.nodes) {
    const NodeState* n = by_address[c.address];
    if (!c.reachable || !n->resources.contains({std::string(kEtcdClusterType), std::string(kEtcdClusterId)})) continue;
    bool self_healthy = false;
    for (const auto& [key, r] : n->resources) {
      if (key.first != kEtcdStatusType) continue;
      const auto* st = spec_of<EtcdStatusSpec>(r);
      if (st && st->hostname() == c.hostname) self_healthy = st->errors().empty();
    }
    if (view == nullptr || (self_healthy && !view_self_healthy)) {
      view = n;
      view_card = &c;
      view_self_healthy = self_healthy;
    }
  }
  const EtcdClusterSpec* ec =
      view ? spec_of<EtcdClusterSpec>(view->resources.at({std::string(kEtcdClusterType), std::string(kEtcdClusterId)})) : nullptr;
  if (ec != nullptr) {
    QuorumView& q = s.quorum;
    q.known = true;
    q.seen_from = view_card->hostname;
    q.members = ec->members();
    q.voting = ec->voting_members();
    q.healthy = ec->healthy_members();
    q.quorum_needed = ec->quorum_needed();
    q.tolerated = ec->failures_tolerated();
    q.has_quorum = ec->has_quorum();
    q.leader = ec->leader();
    q.leader_changes = ec->leader_changes();
    q.table = quorum_table(q.voting);
    for (const auto& [key, r] : view->resources) {
      if (key.first != kEtcdStatusType) continue;
      const auto* st = spec_of<EtcdStatusSpec>(r);
      if (st == nullptr) continue;
      const std::string id = hex_id(st->member_id());
      if (id == q.leader && !st->hostname().empty()) q.leader = st->hostname();
      for (auto& c : s.nodes) {
        if (c.hostname != st->hostname()) continue;
        c.etcd_member = id;
        c.etcd_healthy = st->errors().empty();
        c.etcd_error = st->errors().empty() ? "" : st->errors(0);
        c.etcd_role = st->is_learner() ? "learner" : (id == ec->leader() ? "leader" : "follower");
      }
    }
    s.writes_available = q.has_quorum;
  }

  // The VIPs, as the etcd view's node sees them: the election runs in that etcd.
  if (view != nullptr) {
    for (const auto& [key, r] : view->resources) {
      if (key.first != kVIPStatusType) continue;
      if (const auto* v = spec_of<VIPStatusSpec>(r)) s.vips.push_back({ip_text(v->ip().ip()), v->holder()});
    }
  }
  return s;
}

}  // namespace cosi::dashboard
