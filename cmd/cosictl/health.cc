// cosictl health: waits until the cluster is whole — etcd with quorum and every control plane a
// healthy voting member, and every node listing every member — printing progress, within
// --wait-timeout. The nodes come from the Members the first node lists.
#include <cstdio>

#include "cmd/cosictl/cluster_checks.h"
#include "cmd/cosictl/commands.h"

namespace cosi::cosictl {

Status run_health(const ConnectOptions& connect, std::chrono::seconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  auto connection = Connection::open(connect);
  if (!connection.ok()) return connection.error();
  const std::string first = connection->nodes().front();
  auto nodes = cluster_nodes(first, connect.talosconfig);
  if (!nodes.ok()) return nodes.error();
  size_t control_planes = 0;
  for (const auto& n : *nodes) control_planes += n.control_plane ? 1 : 0;
  std::printf("checking %zu nodes (%zu control planes) from %s\n", nodes->size(), control_planes, first.c_str());
  if (!wait_for_etcd(first, control_planes, connect.talosconfig, deadline)) {
    return Error(ErrorKind::kDeadlineExceeded, "etcd is not healthy with " + std::to_string(control_planes) + " voting members");
  }
  if (!wait_for_members(*nodes, connect.talosconfig, deadline)) {
    return Error(ErrorKind::kDeadlineExceeded, "not every node lists every member");
  }
  std::printf("healthy: etcd has quorum with %zu voting members; all %zu nodes list every member\n", control_planes, nodes->size());
  return {};
}

}  // namespace cosi::cosictl
