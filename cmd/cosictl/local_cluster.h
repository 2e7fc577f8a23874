// A local cluster as `cosictl cluster create` runs it: discoveryd and one machined per node,
// each on its own loopback address of the --cidr block (discoveryd at .1:3000, nodes from .10
// up on the standard ports), detached from cosictl, with their PIDs in DIR/NAME/cluster.yaml
// so `cluster destroy` stops exactly them.
//
//   auto layout = plan_cluster("demo", "127.5.0.0/24", 3, 2);   // names, addresses, types
//   pid_t pid = start_detached({machined, "--listen", ...}, dir + "/demo-worker-1.log");
//   save_cluster_state(dir + "/cluster.yaml", state);
//   stop_processes({{pid, "machined"}}, 10s);
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::cosictl {

struct LocalNode {
  std::string name;  // <cluster>-controlplane-N / <cluster>-worker-N
  std::string ip;
  bool control_plane = false;
  pid_t pid = 0;
};

struct LocalCluster {
  std::string name;
  std::string cidr;
  std::string discovery_ip;  // discoveryd listens on :3000 here
  pid_t discovery_pid = 0;
  std::vector<LocalNode> nodes;
};

// The names and addresses of a cluster in `cidr` (a block of 127.0.0.0/8 with room for .1 and
// .10 up to the last node). kInvalidArgument naming the flag otherwise.
Result<LocalCluster> plan_cluster(const std::string& name, const std::string& cidr, int control_planes, int workers);

Status save_cluster_state(const std::string& path, const LocalCluster& cluster);
Result<LocalCluster> load_cluster_state(const std::string& path);

// Starts `argv` in its own session with stdin from /dev/null and stdout/stderr appended to
// `log_path`, holding none of cosictl's other descriptors.
Result<pid_t> start_detached(const std::vector<std::string>& argv, const std::string& log_path);

struct RunningProgram {
  pid_t pid = 0;
  std::string program;  // "machined": a PID running anything else is left alone (PIDs are reused)
};

// SIGTERM to all at once, then SIGKILL to those still running after `grace`. True when all
// are gone.
bool stop_processes(const std::vector<RunningProgram>& targets, std::chrono::milliseconds grace);

// A program next to cosictl (installed side by side, or the build tree's cmd/<name>/<name>).
Result<std::string> find_program(const std::string& name);

}  // namespace cosi::cosictl
