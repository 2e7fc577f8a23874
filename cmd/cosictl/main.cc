// cosictl: the command line for cosi-cpp nodes, with talosctl's commands and output.
//
//   cosictl gen config demo https://127.0.5.10:6443
//   cosictl apply-config --insecure -n 127.0.5.10 -f controlplane.yaml
//   cosictl --talosconfig ./talosconfig -e 127.0.5.10 -n 127.0.5.10 get members -o yaml
//   cosictl -e 127.0.7.1 inspect dependencies | dot -Tpng > deps.png
#include <algorithm>
#include <cstdio>

#include "api/grpc_process.h"
#include "cmd/common/flags.h"
#include "cmd/cosictl/commands.h"

namespace {

using namespace cosi;

constexpr const char* kUsage =
    "usage: cosictl [global flags] <command> [flags]\n"
    "\n"
    "commands that talk to nodes:\n"
    "  version                          client and node versions\n"
    "  get <type|alias> [id]            resources (-o table|yaml|json, -w to watch, --namespace NS)\n"
    "  apply-config -f FILE             send a machine config (--mode auto|no-reboot|reboot|staged, --dry-run)\n"
    "  inspect dependencies             the controller dependency graph as DOT\n"
    "  reset [--graceful=false]         leave the cluster, wipe the node, back to maintenance mode\n"
    "  kubeconfig [PATH] [--merge=false] [--force]   an admin kubeconfig from a control plane, merged into ~/.kube/config\n"
    "  bootstrap [--recover-from F]     start etcd's cluster on this control plane (once per cluster)\n"
    "  health [--wait-timeout S]        wait for etcd quorum, healthy members and every member discovered\n"
    "  etcd members | status | snapshot F | leave | remove-member ID | forfeit-leadership |\n"
    "       alarm list | alarm disarm | defrag\n"
    "  service [ID [start|stop|restart|status]]   the node's services (etcd, trustd, kubeprism, apiserver)\n"
    "  logs SERVICE [-f] [--tail N]     a service's log (etcd, machined, apiserver) on each node, lines prefixed NODE:\n"
    "  disks                            the node's disks as the seed's table (also: get disks); --insecure in maintenance mode\n"
    "  dashboard [--web [--listen 127.0.0.1:8080]]   the cluster at a glance: in the terminal ([ ] switch nodes,\n"
    "                                   q quits), or as a web page on loopback (buttons for clusters cluster create made)\n"
    "local commands:\n"
    "  gen secrets [-o FILE]            a new secrets bundle (default secrets.yaml)\n"
    "  gen config NAME https://HOST:PORT  controlplane.yaml, worker.yaml and talosconfig (-o DIR, --install-disk /dev/vda)\n"
    "  machineconfig patch FILE --patch @P [-o OUT]   strategic-merge patch a config\n"
    "  config merge FILE | endpoint A.. | node A.. | context NAME | contexts | info\n"
    "                                   edit the talosconfig\n"
    "  cluster create [--name N] [--controlplanes 3] [--workers 2] [--cidr 127.5.0.0/24] [--state-dir D]\n"
    "                                   a local cluster on loopback: discoveryd and one machined per node\n"
    "                                   (--prometheus: and a prometheus scraping them, on discoveryd's address :9090)\n"
    "  cluster create --netns [--cidr 198.51.100.0/24] [--vip 198.51.100.5] ...\n"
    "                                   (root) each node in a network namespace of its own on one bridge;\n"
    "                                   the control planes share the VIP, the cluster endpoint\n"
    "  cluster destroy [--name N] [--state-dir D]   stop it and remove its state\n"
    "\n"
    "flags:\n";

int fail(const std::string& message) {
  std::fprintf(stderr, "cosictl: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  cosi::api::configure_grpc_process();
  cosictl::ConnectOptions connect;
  std::string timeout = "10";
  std::string output;
  bool help = false;
  bool force = false;
  cosictl::GetOptions get;
  cosictl::GenConfigOptions gen;
  cosictl::ApplyOptions apply;
  std::vector<std::string> patches;
  bool graceful = true;
  std::string recover_from;
  cosictl::ClusterOptions cluster;
  cosictl::KubeconfigOptions kubeconfig;
  cosictl::DashboardOptions dashboard;
  cosictl::LogsOptions logs;
  std::string tail = "-1";
  std::string control_planes = "3", workers = "2", wait = "180";
  cmd::Flags flags;
  flags.list("endpoints", 'e', &connect.endpoints, "endpoint to dial: host or host:port (port 50000 by default)");
  flags.list("nodes", 'n', &connect.nodes, "nodes to target (sent as node metadata; default: the endpoint)");
  flags.value("talosconfig", 0, &connect.talosconfig, "the client config (default $TALOSCONFIG, then ~/.talos/config)");
  flags.value("context", 0, &connect.context, "the talosconfig context to use (default: its current one)");
  flags.boolean("insecure", 'i', &connect.insecure, "TLS without verifying the node and without a client certificate (maintenance mode)");
  flags.value("cert-fingerprint", 0, &connect.cert_fingerprint, "with --insecure: the node's certificate fingerprint to insist on");
  flags.value("timeout", 0, &timeout, "seconds before a call gives up (default 10)");
  flags.value("output", 'o', &output, "get: table, yaml or json; gen, machineconfig patch: where to write");
  flags.value("namespace", 0, &get.ns, "get: the namespace (default: the type's)");
  flags.boolean("watch", 'w', &get.watch, "get: watch for changes");
  flags.value("file", 'f', &apply.file, "apply-config: the machine config");
  flags.value("mode", 'm', &apply.mode, "apply-config: auto (default), no-reboot, reboot, staged or try");
  flags.boolean("dry-run", 0, &apply.dry_run, "apply-config: report what would change, change nothing");
  flags.value("with-secrets", 0, &gen.with_secrets, "gen config: the secrets bundle to use (default: a new one)");
  flags.repeated("config-patch", 0, &gen.patches, "gen config, cluster create: a patch (@file or YAML) for every config");
  flags.repeated("config-patch-control-plane", 0, &gen.patches_control_plane, "gen config: a patch for controlplane.yaml");
  flags.repeated("config-patch-worker", 0, &gen.patches_worker, "gen config: a patch for worker.yaml");
  flags.value("discovery-endpoint", 0, &gen.discovery_endpoint, "gen config: the discovery service URL (default: none)");
  flags.value("install-disk", 0, &gen.install_disk, "gen config: the disk to install to (default /dev/sda)");
  flags.list("output-types", 't', &gen.output_types, "gen config: controlplane, worker, talosconfig (default: all)");
  flags.repeated("patch", 'p', &patches, "machineconfig patch: a patch (@file or YAML)");
  flags.boolean("force", 0, &force, "gen, kubeconfig: overwrite existing files");
  flags.boolean("merge", 0, &kubeconfig.merge, "kubeconfig: merge into an existing file (default true)");
  flags.boolean("graceful", 0, &graceful, "reset: leave the cluster first (default true)");
  flags.value("recover-from", 0, &recover_from, "bootstrap: start the new cluster from this etcd snapshot");
  flags.value("name", 0, &cluster.name, "cluster: the cluster's name (default cosi)");
  flags.value("controlplanes", 0, &control_planes, "cluster create: control-plane nodes (default 3)");
  flags.value("workers", 0, &workers, "cluster create: worker nodes (default 2)");
  flags.value("cidr", 0, &cluster.cidr, "cluster create: the nodes' block (default 127.5.0.0/24; with --netns 198.51.100.0/24)");
  flags.boolean("netns", 0, &cluster.netns, "cluster create: each node in a network namespace of its own, on one bridge (root)");
  flags.value("vip", 0, &cluster.vip, "cluster create --netns: a shared VIP of the block for the control planes");
  flags.value("state-dir", 0, &cluster.state_dir, "cluster: where clusters live (default ~/.cosi/clusters)");
  flags.value("discovery-ttl", 0, &cluster.discovery_ttl, "cluster create: each node's discovery TTL (default 30m)");
  flags.boolean("skip-bootstrap", 0, &cluster.skip_bootstrap, "cluster create: leave etcd for `cosictl bootstrap`");
  flags.boolean("prometheus", 0, &cluster.prometheus,
                "cluster create: also run Debian's prometheus, scraping every node and discoveryd each second (prints its URL)");
  flags.value("wait-timeout", 0, &wait, "cluster create: seconds to wait for the cluster (default 180)");
  flags.boolean("follow", 0, &logs.follow, "logs: follow what comes (as -f after `logs`)");
  flags.value("tail", 0, &tail, "logs: the last N lines (default -1: all kept)");
  flags.boolean("web", 0, &dashboard.web, "dashboard: serve the dashboard as a web page instead (loopback only)");
  flags.value("listen", 0, &dashboard.listen, "dashboard --web: where to serve it (default 127.0.0.1:8080; loopback only)");
  flags.boolean("help", 'h', &help, "this help");
  // talosctl's `logs -f` follows (its flags are per command); elsewhere -f names a file.
  std::vector<std::string> raw(argv + 1, argv + argc);
  if (auto logs_at = std::find(raw.begin(), raw.end(), "logs"); logs_at != raw.end()) {
    std::replace(logs_at, raw.end(), std::string("-f"), std::string("--follow"));
  }
  auto args = flags.parse(raw);
  if (!args.ok()) return fail(args.error().message());
  if (help || args->empty()) {
    std::printf("%s%s", kUsage, flags.usage().c_str());
    return help ? 0 : 1;
  }
  const std::vector<std::string>& a = *args;
  const std::string& command = a.front();

  // Local commands: no node involved.
  Status result;
  if (command == "gen" && a.size() == 2 && a[1] == "secrets") {
    result = cosictl::run_gen_secrets(output, force);
  } else if (command == "gen" && a.size() == 4 && a[1] == "config") {
    gen.cluster_name = a[2];
    gen.endpoint = a[3];
    gen.output = output;
    gen.force = force;
    result = cosictl::run_gen_config(gen);
  } else if (command == "gen") {
    return fail("gen: use `gen secrets` or `gen config NAME https://HOST:PORT`");
  } else if (command == "machineconfig" && a.size() == 3 && a[1] == "patch") {
    result = cosictl::run_machineconfig_patch(a[2], patches, output);
  } else if (command == "config") {
    result = cosictl::run_config({connect.talosconfig, connect.context}, {a.begin() + 1, a.end()});
  } else if (command == "cluster" && a.size() == 2 && (a[1] == "create" || a[1] == "destroy")) {
    try {
      cluster.control_planes = std::stoi(control_planes);
      cluster.workers = std::stoi(workers);
      cluster.wait = std::chrono::seconds(std::stoi(wait));
    } catch (...) {
      return fail("--controlplanes, --workers and --wait-timeout take whole numbers");
    }
    cluster.patches = gen.patches;
    cluster.patches_control_plane = gen.patches_control_plane;
    cluster.patches_worker = gen.patches_worker;
    result = a[1] == "create" ? cosictl::run_cluster_create(cluster) : cosictl::run_cluster_destroy(cluster);
  } else {
    int seconds = 0;
    try {
      seconds = std::stoi(timeout);
    } catch (...) {
      return fail("--timeout \"" + timeout + "\" is not a number of seconds");
    }
    if (seconds <= 0) return fail("--timeout must be at least 1 second");
    connect.timeout = std::chrono::seconds(seconds);
    auto connection = cosictl::Connection::open(connect);
    if (!connection.ok()) return fail(connection.error().message());
    if (command == "version" && a.size() == 1) {
      result = cosictl::run_version(*connection);
    } else if (command == "get" && (a.size() == 2 || a.size() == 3)) {
      get.type = a[1];
      if (a.size() == 3) get.id = a[2];
      if (!output.empty()) get.output = output;
      result = cosictl::run_get(*connection, get);
    } else if (command == "apply-config" && a.size() == 1) {
      result = cosictl::run_apply_config(*connection, apply);
    } else if (command == "health" && a.size() == 1) {
      try {
        result = cosictl::run_health(connect, std::chrono::seconds(std::stoi(wait)));
      } catch (...) {
        return fail("--wait-timeout takes a whole number of seconds");
      }
    } else if (command == "bootstrap" && a.size() == 1) {
      result = cosictl::run_bootstrap(*connection, recover_from);
    } else if (command == "etcd") {
      result = cosictl::run_etcd(*connection, {a.begin() + 1, a.end()});
    } else if (command == "service" || command == "services") {
      result = cosictl::run_service(*connection, {a.begin() + 1, a.end()});
    } else if (command == "kubeconfig" && a.size() <= 2) {
      kubeconfig.path = a.size() == 2 ? a[1] : "";
      kubeconfig.force = force;
      result = cosictl::run_kubeconfig(*connection, kubeconfig);
    } else if (command == "reset" && a.size() == 1) {
      result = cosictl::run_reset(*connection, graceful);
    } else if (command == "logs" && a.size() == 2) {
      logs.service = a[1];
      try {
        logs.tail = std::stoi(tail);
      } catch (...) {
        return fail("--tail \"" + tail + "\" is not a whole number of lines");
      }
      result = cosictl::run_logs(*connection, logs);
    } else if (command == "disks" && a.size() == 1) {
      result = cosictl::run_disks(*connection);
    } else if (command == "dashboard" && a.size() == 1) {
      dashboard.state_dir = cluster.state_dir;
      result = cosictl::run_dashboard(connect, dashboard);
    } else if (command == "inspect" && a.size() == 2 && a[1] == "dependencies") {
      result = cosictl::run_inspect_dependencies(*connection);
    } else {
      return fail("unknown command \"" + command + "\" or wrong arguments; cosictl --help lists them");
    }
  }
  if (!result.ok()) return fail(result.error().message());
  return 0;
}
