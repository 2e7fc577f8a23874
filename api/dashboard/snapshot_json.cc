#include "api/dashboard/snapshot_json.h"

#include <boost/json.hpp>

namespace cosi::dashboard {
namespace {

namespace json = boost::json;

json::array strings(const std::vector<std::string>& values) {
  json::array out;
  for (const auto& v : values) out.emplace_back(v);
  return out;
}

json::object node_json(const NodeCard& c) {
  json::array services, upstreams;
  for (const auto& s : c.services) services.push_back(json::object{{"id", s.id}, {"state", s.state}, {"health", s.health}});
  for (const auto& u : c.upstreams) {
    upstreams.push_back(json::object{{"address", u.address}, {"healthy", u.healthy}, {"latency", u.latency}, {"active", u.active}});
  }
  return {{"address", c.address},
          {"hostname", c.hostname},
          {"machine_type", c.machine_type},
          {"reachable", c.reachable},
          {"error", c.error},
          {"config", c.config},
          {"etcd_role", c.etcd_role},
          {"etcd_healthy", c.etcd_healthy},
          {"etcd_error", c.etcd_error},
          {"etcd_member", c.etcd_member},
          {"services", std::move(services)},
          {"kubeprism_host", c.kubeprism_host},
          {"kubeprism_healthy", c.kubeprism_healthy},
          {"upstreams", std::move(upstreams)}};
}

json::object quorum_json(const QuorumView& q) {
  json::array table;
  for (const auto& row : q.table) {
    table.push_back(json::object{{"members", row.members}, {"quorum", row.quorum}, {"tolerates", row.tolerates}, {"current", row.current}});
  }
  return {{"known", q.known},       {"seen_from", q.seen_from},   {"members", q.members},
          {"voting", q.voting},     {"healthy", q.healthy},       {"quorum_needed", q.quorum_needed},
          {"tolerated", q.tolerated}, {"has_quorum", q.has_quorum}, {"leader", q.leader},
          {"leader_changes", q.leader_changes}, {"table", std::move(table)}};
}

}  // namespace

std::string snapshot_json(const ClusterSnapshot& s) {
  json::array nodes, members, vips;
  for (const auto& c : s.nodes) nodes.push_back(node_json(c));
  for (const auto& m : s.members) {
    members.push_back(json::object{{"id", m.id}, {"machine_type", m.machine_type}, {"addresses", strings(m.addresses)}});
  }
  for (const auto& v : s.vips) vips.push_back(json::object{{"ip", v.ip}, {"holder", v.holder}});
  json::object out{{"generation", s.generation}, {"nodes", std::move(nodes)}, {"members", std::move(members)},
                   {"quorum", quorum_json(s.quorum)}, {"vips", std::move(vips)}, {"writes_available", s.writes_available}};
  return json::serialize(out);
}

}  // namespace cosi::dashboard
