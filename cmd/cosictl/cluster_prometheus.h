// cosictl cluster create --prometheus: Debian's prometheus, started beside a local cluster with
// a scrape of every machined (NODE_IP:9100) and of discoveryd (:3001) each second, listening
// on discoveryd's address :9090, its data in the cluster's directory. Stopped (by PID) with the
// cluster.
#pragma once

#include <string>

#include "cmd/cosictl/local_cluster.h"
#include "runtime/base/result.h"

namespace cosi::cosictl {

// The scrape configuration for the cluster's nodes and discoveryd (prometheus.yml).
std::string prometheus_config(const LocalCluster& c);

// Writes DIR/prometheus.yml, starts prometheus and waits (until `deadline`) for it to serve;
// sets c.prometheus_pid and c.prometheus_url.
Status start_prometheus(LocalCluster& c, const std::string& dir, std::chrono::steady_clock::time_point deadline);

}  // namespace cosi::cosictl
