// A local cluster as `cosictl cluster create` runs it: discoveryd and one machined per node,
// each on its own address of the --cidr block (discoveryd at .1:3000, nodes from .10 up on the
// standard ports), detached from cosictl, with their PIDs in DIR/NAME/cluster.yaml so `cluster
// destroy` stops exactly them. On loopback (the default) the nodes share the host; with
// --netns each node has a network namespace of its own on one bridge (local_network.h), and
// the control planes may share a VIP of the block.
//
//   auto layout = plan_cluster("demo", "127.5.0.0/24", 3, 2);   // names, addresses, types
//   auto vip = plan_cluster("demo", "198.51.100.0/24", 3, 2, {.netns = true, .vip = "198.51.100.5"});
//   pid_t pid = start_detached({machined, "--listen", ...}, dir + "/demo-worker-1.log");
//   save_cluster_state(dir + "/cluster.yaml", state);
//   stop_processes({{pid, "machined"}}, 10s);
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "cmd/cosictl/local_network.h"
#include "runtime/base/result.h"

namespace cosi::cosictl {

struct LocalNode {
  std::string name;  // <cluster>-controlplane-N / <cluster>-worker-N
  std::string ip;
  bool control_plane = false;
  pid_t pid = 0;
  std::string netns;  // --netns: the node's network namespace
  std::vector<std::string> argv = {};  // how create started its machined (power_on starts it so again)
};

struct LocalCluster {
  std::string name;
  std::string cidr;
  std::string discovery_ip;  // discoveryd listens on :3000 here (--netns: the bridge's address)
  pid_t discovery_pid = 0;
  std::vector<LocalNode> nodes;
  // --netns only:
  bool netns = false;
  std::string bridge;
  std::string vip;  // the control planes' shared VIP; empty: none
  int bits = 0;     // the block's prefix length
  // The namespaces and bridge are this cluster's to remove: made by this create, or loaded from
  // the state of one. False while a create has not made them (they may be another's).
  bool owns_network = false;
  // --prometheus only:
  pid_t prometheus_pid = 0;
  std::string prometheus_url;

  LocalNetwork network() const;
};

struct ClusterLayout {
  bool netns = false;
  std::string vip;
};

// The names and addresses of a cluster in `cidr`: a block with room for .1 and .10 up to the
// last node, of 127.0.0.0/8 on loopback, outside it with --netns; a VIP inside the block, on
// no node. kInvalidArgument naming the flag otherwise.
Result<LocalCluster> plan_cluster(const std::string& name, const std::string& cidr, int control_planes, int workers,
                                  const ClusterLayout& layout = {});

Status save_cluster_state(const std::string& path, const LocalCluster& cluster);
Result<LocalCluster> load_cluster_state(const std::string& path);

// Starts `argv` in its own session with stdin from /dev/null and stdout/stderr appended to
// `log_path`, holding none of cosictl's other descriptors; inside the network namespace
// `netns` when one is named.
Result<pid_t> start_detached(const std::vector<std::string>& argv, const std::string& log_path, const std::string& netns = "");

struct RunningProgram {
  pid_t pid = 0;
  std::string program;  // "machined": a PID running anything else is left alone (PIDs are reused)
};

// Whether `pid` runs (and is not a zombie).
bool alive(pid_t pid);

// SIGTERM to all at once, then SIGKILL to those still running after `grace`. True when all
// are gone.
bool stop_processes(const std::vector<RunningProgram>& targets, std::chrono::milliseconds grace);

// Where a cluster's state lives: STATE_DIR/NAME, STATE_DIR by default ~/.cosi/clusters.
std::string cluster_dir(const std::string& state_dir, const std::string& name);

// A node of the cluster powered off: SIGKILL to its machined and to everything machined runs
// (etcd, the API server stand-in share its process group), as a power cut would; or on again:
// machined started as create started it, with the state it left, its new PID in `c` (the caller
// saves it). kNotFound for an address that is no node of `c`; powering on a node that runs, or off
// one that does not, is kFailedPrecondition.
Status power_off(LocalCluster& c, const std::string& node_ip);
Status power_on(LocalCluster& c, const std::string& node_ip, const std::string& dir);

// A program next to cosictl (installed side by side, or the build tree's cmd/<name>/<name>).
Result<std::string> find_program(const std::string& name);

}  // namespace cosi::cosictl
