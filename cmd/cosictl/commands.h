// cosictl's commands. Each returns what went wrong as one Error; main prints it on one line
// and exits non-zero.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "cmd/cosictl/connection.h"

namespace cosi::cosictl {

struct GetOptions {
  std::string type;
  std::string id;  // empty: every resource of the type
  std::string ns;  // empty: the type's default namespace
  std::string output = "table";
  bool watch = false;
};

struct GenConfigOptions {
  std::string cluster_name;
  std::string endpoint;  // https://host:port of the Kubernetes API
  std::string with_secrets;
  std::vector<std::string> patches;  // "@file" or inline YAML, each
  std::vector<std::string> patches_control_plane;
  std::vector<std::string> patches_worker;
  std::string discovery_endpoint;
  std::string install_disk = "/dev/sda";  // --install-disk, Talos's default
  std::vector<std::string> output_types;  // controlplane, worker, talosconfig (default: all)
  std::string output;                     // a directory, or the file when one type is asked for
  bool force = false;
};

// Where the talosconfig commands read and write.
struct ConfigOptions {
  std::string talosconfig;  // --talosconfig; empty: $TALOSCONFIG, then ~/.talos/config
  std::string context;      // --context; empty: the file's current context
};

struct ApplyOptions {
  std::string file;
  std::string mode = "auto";
  bool dry_run = false;
};

struct ClusterOptions {
  std::string name = "cosi";
  int control_planes = 3;
  int workers = 2;
  std::string cidr;  // empty: 127.5.0.0/24, or 198.51.100.0/24 with netns
  bool netns = false;
  std::string vip;
  std::string state_dir;  // empty: ~/.cosi/clusters
  std::string discovery_ttl = "30m";
  std::chrono::seconds wait{180};
  std::vector<std::string> patches;  // as gen config's --config-patch*
  std::vector<std::string> patches_control_plane;
  std::vector<std::string> patches_worker;
  bool skip_bootstrap = false;  // leave etcd for `cosictl bootstrap`
  bool prometheus = false;      // start Debian's prometheus scraping the cluster
};

struct DashboardOptions {
  bool web = false;
  std::string listen = "127.0.0.1:8080";  // --web: loopback only
  std::string state_dir;  // where `cluster create` keeps clusters (default ~/.cosi/clusters): the buttons need one
};

struct LogsOptions {
  std::string service;
  bool follow = false;  // -f, --follow
  int tail = -1;        // --tail: the last N lines; every line kept when negative
};

struct KubeconfigOptions {
  std::string path;  // empty: ~/.kube/config
  bool merge = true;
  bool force = false;
};

Status run_apply_config(const Connection& c, const ApplyOptions& o);
Status run_kubeconfig(const Connection& c, const KubeconfigOptions& o);
Status run_reset(const Connection& c, bool graceful);
Status run_bootstrap(const Connection& c, const std::string& recover_from = "");
Status run_health(const ConnectOptions& connect, std::chrono::seconds wait);
Status run_etcd(const Connection& c, const std::vector<std::string>& args);
// service [ID [start|stop|restart|status]]
Status run_service(const Connection& c, const std::vector<std::string>& args);
// 83 → "1m23s", as Go prints a time.Duration of whole seconds.
std::string go_duration_seconds(int64_t seconds);
Status run_cluster_create(const ClusterOptions& o);
Status run_cluster_destroy(const ClusterOptions& o);
Status run_gen_secrets(const std::string& output, bool force);
Status run_gen_config(const GenConfigOptions& o);
Status run_machineconfig_patch(const std::string& file, const std::vector<std::string>& patches, const std::string& output);
Status run_config(const ConfigOptions& o, const std::vector<std::string>& args);

Status run_version(const Connection& c);
Status run_get(const Connection& c, const GetOptions& o);
Status run_inspect_dependencies(const Connection& c);
// logs SERVICE [-f] [--tail N]
Status run_logs(const Connection& c, const LogsOptions& o);
// disks: the seed's older table of the node's disks (DEV MODEL SERIAL TYPE ...), from its Disks.
Status run_disks(const Connection& c);
// The controller graph of `node` as DOT.
Result<std::string> fetch_dependencies_dot(const Connection& c, const std::string& node);
// dashboard [--web [--listen 127.0.0.1:8080]]
Status run_dashboard(const ConnectOptions& connect, const DashboardOptions& o);

}  // namespace cosi::cosictl
