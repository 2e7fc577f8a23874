// cosictl cluster create | destroy: a local cluster — secrets and configs, discoveryd and one
// machined per node (on loopback, or with --netns each in a network namespace of its own on one
// bridge, the control planes sharing a VIP), each config applied through its node's maintenance
// API, a talosconfig, and progress until every node lists every member.
#include <cstdio>
#include <filesystem>
#include <map>
#include <thread>

#include "cmd/common/files.h"
#include "cmd/cosictl/cluster_checks.h"
#include "cmd/cosictl/cluster_prometheus.h"
#include "cmd/cosictl/commands.h"
#include "cmd/cosictl/local_cluster.h"
#include "cmd/cosictl/talosconfig.h"
#include "machine.grpc.pb.h"
#include "resources/config/patch.h"

namespace cosi::cosictl {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The node's own part of its config: its hostname and, on a control plane of a cluster with a
// VIP, the VIP on eth0 (and in the API certificate's names).
std::string node_patch(const LocalNode& node, const std::string& vip) {
  if (!node.control_plane || vip.empty()) return "machine:\n  network:\n    hostname: " + node.name + "\n";
  return "machine:\n  certSANs:\n    - " + vip + "\n  network:\n    hostname: " + node.name +
         "\n    interfaces:\n      - interface: eth0\n        vip:\n          ip: " + vip + "\n";
}

// ApplyConfiguration through the node's maintenance API, retried until it listens.
Status apply_in_maintenance(const LocalNode& node, const std::string& document, Clock::time_point deadline) {
  ConnectOptions connect{.endpoints = {node.ip}, .nodes = {node.ip}, .timeout = 5s, .insecure = true};
  Error last(ErrorKind::kUnavailable, "not tried");
  while (Clock::now() < deadline) {
    auto connection = Connection::open(connect);
    if (!connection.ok()) return connection.error();
    auto stub = machine::MachineService::NewStub(connection->channel());
    auto ctx = connection->context(node.ip);
    machine::ApplyConfigurationRequest req;
    req.set_data(document);
    req.set_mode(machine::ApplyConfigurationRequest::AUTO);
    machine::ApplyConfigurationResponse resp;
    auto status = stub->ApplyConfiguration(ctx.get(), req, &resp);
    if (status.ok()) return {};
    last = connection->error(status);
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE && status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) break;
    std::this_thread::sleep_for(100ms);  // the node is still starting: ask again
  }
  return Error(last.kind(), node.name + " (" + node.ip + "): applying its config: " + last.message());
}

// The nodes first (each deletes its affiliate while discoveryd still runs), then discoveryd,
// then the namespaces and the bridge (whatever still runs there goes with them).
void stop_all(const LocalCluster& c) {
  std::vector<RunningProgram> nodes;
  for (const auto& n : c.nodes) nodes.push_back({n.pid, "machined"});
  stop_processes(nodes, 10s);
  stop_processes({{c.discovery_pid, "discoveryd"}, {c.prometheus_pid, "prometheus"}}, 10s);
  if (c.netns && c.owns_network) {
    if (auto s = destroy_network(c.network()); !s.ok()) std::fprintf(stderr, "cosictl: %s\n", s.error().message().c_str());
  }
}

// Our context in the default talosconfig, replacing one of the same name (a cluster
// re-created under its old name).
Status merge_into_default(const TalosConfig& ours, const std::string& name) {
  const std::string path = talosconfig_path("");
  TalosConfig into;
  if (auto existing = load_talosconfig(path); existing.ok()) {
    into = std::move(*existing);
  } else if (!existing.error().is(ErrorKind::kNotFound)) {
    return existing.error();
  }
  into.contexts[name] = ours.contexts.at(name);
  into.context = name;
  if (auto s = save_talosconfig(path, into); !s.ok()) return s;
  std::printf("merged context \"%s\" into %s\n", name.c_str(), path.c_str());
  return {};
}

Status create(const ClusterOptions& o, LocalCluster& c, const std::string& dir) {
  const auto deadline = Clock::now() + o.wait;
  auto machined = find_program("machined");
  if (!machined.ok()) return machined.error();
  auto discoveryd = find_program("discoveryd");
  if (!discoveryd.ok()) return discoveryd.error();

  if (c.netns) {
    std::vector<std::string> ips;
    for (const auto& n : c.nodes) ips.push_back(n.ip);
    if (auto s = create_network(c.network(), c.discovery_ip, c.bits, ips); !s.ok()) return s;
    c.owns_network = true;
  }
  GenConfigOptions gen{.cluster_name = o.name,
                       .endpoint = "https://" + (c.vip.empty() ? c.nodes.front().ip : c.vip) + ":6443",
                       .patches = o.patches,
                       .patches_control_plane = o.patches_control_plane,
                       .patches_worker = o.patches_worker,
                       .discovery_endpoint = "http://" + c.discovery_ip + ":3000",
                       .output = dir};
  if (auto s = run_gen_config(gen); !s.ok()) return s;

  auto started = start_detached({*discoveryd, "--listen", c.discovery_ip + ":3000", "--metrics-listen", c.discovery_ip + ":3001",
                                 "--rate-limit", "0", "--snapshot-path", dir + "/discoveryd.snapshot"},
                                dir + "/discoveryd.log");
  if (!started.ok()) return started.error();
  c.discovery_pid = *started;
  for (auto& n : c.nodes) {
    const std::string state = dir + "/" + n.name;
    std::filesystem::create_directories(state);
    // In a namespace the node owns its links: addresses from them, the VIP on them.
    std::vector<std::string> argv{*machined, "--listen", c.netns ? "0.0.0.0:50000" : n.ip + ":50000", "--state-dir", state,
                                  "--hostname", n.name, "--discovery-ttl", o.discovery_ttl, "--leave", "--apiserver-stand-in", "--no-install",
                                  "--kubeprism-health-check", "https-readyz"};
    if (c.netns) argv.push_back("--host-network");
    n.argv = argv;
    auto pid = start_detached(argv, dir + "/" + n.name + ".log", n.netns);
    if (!pid.ok()) return pid.error();
    n.pid = *pid;
  }
  if (auto s = save_cluster_state(dir + "/cluster.yaml", c); !s.ok()) return s;

  std::printf("%-32s %-14s %s\n", "NAME", "TYPE", "IP");
  for (const auto& n : c.nodes) std::printf("%-32s %-14s %s\n", n.name.c_str(), n.control_plane ? "controlplane" : "worker", n.ip.c_str());
  std::printf("%-32s %-14s %s\n", "discoveryd", "service", (c.discovery_ip + ":3000").c_str());
  if (c.netns) std::printf("%-32s %-14s %s\n", c.bridge.c_str(), "bridge", (c.discovery_ip + "/" + std::to_string(c.bits)).c_str());
  if (!c.vip.empty()) std::printf("%-32s %-14s %s\n", "shared VIP", "controlplanes", c.vip.c_str());
  std::fflush(stdout);

  std::map<bool, std::string> base;
  for (bool cp : {true, false}) {
    auto text = cmd::read_file(dir + (cp ? "/controlplane.yaml" : "/worker.yaml"));
    if (!text.ok()) return text.error();
    base[cp] = std::move(*text);
  }
  for (const auto& n : c.nodes) {
    auto document = config::apply_patch(base[n.control_plane], node_patch(n, c.vip));
    if (!document.ok()) return document.error();
    if (auto s = cmd::write_file_atomically(dir + "/" + n.name + ".yaml", *document, 0600); !s.ok()) return s;
    if (auto s = apply_in_maintenance(n, *document, deadline); !s.ok()) return s;
  }
  std::printf("applied each node's config through its maintenance API\n");

  auto tc = load_talosconfig(dir + "/talosconfig");
  if (!tc.ok()) return tc.error();
  TalosContext& ctx = tc->contexts.at(o.name);
  ctx.endpoints.clear();
  for (const auto& n : c.nodes) {
    if (n.control_plane) ctx.endpoints.push_back(n.ip);
  }
  ctx.nodes = {c.nodes.front().ip};
  if (auto s = save_talosconfig(dir + "/talosconfig", *tc); !s.ok()) return s;
  if (auto s = merge_into_default(*tc, o.name); !s.ok()) return s;

  std::vector<CheckedNode> checked;
  size_t control_planes = 0;
  for (const auto& n : c.nodes) {
    checked.push_back({n.name, n.ip, n.control_plane});
    control_planes += n.control_plane ? 1 : 0;
  }
  const std::string talosconfig = dir + "/talosconfig";
  if (!wait_for_members(checked, talosconfig, deadline)) {
    return Error(ErrorKind::kDeadlineExceeded, "not every node listed every member within " + std::to_string(o.wait.count()) +
                                                   " s; the logs are in " + dir);
  }
  if (o.prometheus) {
    if (auto s = start_prometheus(c, dir, deadline); !s.ok()) return s;
    if (auto s = save_cluster_state(dir + "/cluster.yaml", c); !s.ok()) return s;
    std::printf("prometheus at %s scrapes every machined and discoveryd each second (its data in %s/prometheus)\n",
                c.prometheus_url.c_str(), dir.c_str());
  }
  if (o.skip_bootstrap) {
    std::printf("cluster %s is up: every node lists all %zu members; etcd waits for `cosictl bootstrap -n %s`\n", o.name.c_str(),
                c.nodes.size(), c.nodes.front().ip.c_str());
    return {};
  }
  // etcd is born once, on the first control plane; the others join it by themselves.
  auto bootstrap = Connection::open({.endpoints = {c.nodes.front().ip}, .nodes = {c.nodes.front().ip}, .talosconfig = talosconfig});
  if (!bootstrap.ok()) return bootstrap.error();
  if (auto s = run_bootstrap(*bootstrap); !s.ok()) return s;
  if (!wait_for_etcd(c.nodes.front().ip, control_planes, talosconfig, deadline)) {
    return Error(ErrorKind::kDeadlineExceeded, "etcd did not reach " + std::to_string(control_planes) +
                                                   " healthy voting members within " + std::to_string(o.wait.count()) +
                                                   " s; the logs are in " + dir);
  }
  std::printf("cluster %s is up: every node lists all %zu members; etcd has %zu healthy voting members\n", o.name.c_str(),
              c.nodes.size(), control_planes);
  return {};
}

}  // namespace

Status run_cluster_create(const ClusterOptions& o) {
  const std::string cidr = !o.cidr.empty() ? o.cidr : o.netns ? "198.51.100.0/24" : "127.5.0.0/24";
  auto plan = plan_cluster(o.name, cidr, o.control_planes, o.workers, {.netns = o.netns, .vip = o.vip});
  if (!plan.ok()) return plan.error();
  if (o.netns) {
    if (auto s = require_root("cluster create --netns"); !s.ok()) return s;
  }
  const std::string dir = cluster_dir(o.state_dir, o.name);
  std::error_code ec;
  if (std::filesystem::exists(dir + "/cluster.yaml", ec)) {
    return Error(ErrorKind::kAlreadyExists, "cluster \"" + o.name + "\" already exists in " + dir +
                                                "; cosictl cluster destroy --name " + o.name + " first");
  }
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(ErrorKind::kInvalidArgument, "--state-dir: cannot create " + dir + ": " + ec.message());
  auto status = create(o, *plan, dir);
  if (!status.ok()) {
    // Nothing half-made stays behind, except the logs that say what went wrong.
    stop_all(*plan);
    std::filesystem::remove(dir + "/cluster.yaml", ec);
  }
  return status;
}

Status run_cluster_destroy(const ClusterOptions& o) {
  const std::string dir = cluster_dir(o.state_dir, o.name);
  auto c = load_cluster_state(dir + "/cluster.yaml");
  if (!c.ok()) {
    if (c.error().is(ErrorKind::kNotFound)) return Error(ErrorKind::kNotFound, "no cluster \"" + o.name + "\" in " + dir);
    return c.error();
  }
  stop_all(*c);
  // The context `create` merged goes too (a file left with no context goes entirely), so a
  // later cosictl does not aim at a cluster that is gone.
  const std::string default_config = talosconfig_path("");
  if (auto tc = load_talosconfig(default_config); tc.ok() && tc->contexts.erase(o.name) > 0) {
    if (tc->context == o.name) tc->context = tc->contexts.empty() ? "" : tc->contexts.begin()->first;
    if (tc->contexts.empty()) {
      std::remove(default_config.c_str());
    } else if (auto s = save_talosconfig(default_config, *tc); !s.ok()) {
      std::fprintf(stderr, "cosictl: %s\n", s.error().message().c_str());
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (ec) return Error(ErrorKind::kInternal, "removing " + dir + ": " + ec.message());
  std::printf("destroyed cluster %s (%zu nodes and discoveryd%s stopped%s, %s removed)\n", o.name.c_str(), c->nodes.size(),
              c->prometheus_pid > 0 ? ", prometheus" : "", c->netns ? (", namespaces and bridge " + c->bridge + " deleted").c_str() : "", dir.c_str());
  return {};
}

}  // namespace cosi::cosictl
