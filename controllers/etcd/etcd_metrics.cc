#include "controllers/etcd/etcd_metrics.h"

#include "resources/etcd/etcd_resources.h"

namespace cosi::controllers {

using namespace cosi::resources;

void register_etcd_metrics(metrics::Registry& registry, State& state) {
  registry.add_collector([&state](metrics::Registry::Writer& w) {
    auto r = state.get({kEtcdNamespace, kEtcdClusterType, std::string(kEtcdClusterId)});
    if (!r.ok()) return;
    auto cluster = resource_cast<EtcdClusterSpec>(*r);
    if (!cluster) return;
    const auto& s = cluster->spec();
    w.gauge("cosi_etcd_members", "etcd members, learners included", {}, s.members());
    w.gauge("cosi_etcd_voting_members", "etcd voting members", {}, s.voting_members());
    w.gauge("cosi_etcd_healthy_members", "etcd members that answer Status", {}, s.healthy_members());
    w.gauge("cosi_etcd_quorum_needed", "etcd voting members needed for quorum", {}, s.quorum_needed());
    w.gauge("cosi_etcd_has_quorum", "1 when etcd has quorum and a leader", {}, s.has_quorum() ? 1 : 0);
    w.counter("cosi_etcd_leader_changes_seen_total", "etcd leader changes this node saw", {},
              static_cast<double>(s.leader_changes()));
  });
}

}  // namespace cosi::controllers
