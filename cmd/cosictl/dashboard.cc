// cosictl dashboard [--web [--listen 127.0.0.1:8080]]: the cluster at a glance, in the terminal or
// in a browser. The nodes are -n (else the talosconfig context's) and every node their Members
// name; each is watched over a connection of its own (api/dashboard). For a cluster `cosictl
// cluster create` made (the talosconfig context's name under --state-dir), the web page offers
// buttons: stop or start a member's etcd, power a node off or on.
#include <google/protobuf/empty.pb.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "api/dashboard/cluster_watches.h"
#include "api/dashboard/terminal_dashboard.h"
#include "api/dashboard/web_dashboard.h"
#include "cmd/common/files.h"
#include "controllers/common/spawn.h"
#include "cmd/cosictl/commands.h"
#include "cmd/cosictl/local_cluster.h"
#include "cmd/cosictl/talosconfig.h"
#include "machine.grpc.pb.h"
#include "resources/catalog.h"

namespace cosi::cosictl {
namespace {

using namespace std::chrono_literals;

// A connection straight to `node`, with the caller's credentials.
Result<Connection> connect_to(const ConnectOptions& connect, const std::string& node) {
  ConnectOptions direct = connect;
  direct.endpoints = {node};
  direct.nodes = {node};
  return Connection::open(direct);
}

template <class Request, class Response>
using ServiceCall = grpc::Status (machine::MachineService::Stub::*)(grpc::ClientContext*, const Request&, Response*);

template <class Request, class Response>
Status service_call(const ConnectOptions& connect, const std::string& node, ServiceCall<Request, Response> call) {
  auto c = connect_to(connect, node);
  if (!c.ok()) return c.error();
  auto stub = machine::MachineService::NewStub(c->channel());
  auto ctx = c->context(node);
  Request req;
  req.set_id("etcd");
  Response resp;
  auto s = (stub.get()->*call)(ctx.get(), req, &resp);
  if (!s.ok()) return c->error(s);
  return {};
}

// The buttons of a cluster cosictl made: its state file says where its nodes' processes are.
class LocalClusterActions {
 public:
  LocalClusterActions(ConnectOptions connect, std::string dir) : connect_(std::move(connect)), dir_(std::move(dir)) {}

  Status act(const std::string& node, const std::string& action) {
    if (action == "etcd-stop") return service_call(connect_, node, &machine::MachineService::Stub::ServiceStop);
    if (action == "etcd-start") return service_call(connect_, node, &machine::MachineService::Stub::ServiceStart);
    std::lock_guard lock(mu_);  // one power change at a time: each rewrites the state file
    auto cluster = load_cluster_state(dir_ + "/cluster.yaml");
    if (!cluster.ok()) return cluster.error();
    Status done;
    if (action == "power-off") {
      done = power_off(*cluster, node);
    } else if (action == "power-on") {
      done = power_on(*cluster, node, dir_);
    } else {
      return Error(ErrorKind::kInvalidArgument, "unknown action \"" + action + "\"");
    }
    if (!done.ok()) return done;
    return save_cluster_state(dir_ + "/cluster.yaml", *cluster);
  }

 private:
  ConnectOptions connect_;
  std::string dir_;
  std::mutex mu_;
};

// The controller graph of the first node that answers, drawn by graphviz's dot.
Result<std::string> graph_svg(const ConnectOptions& connect, const std::vector<std::string>& nodes) {
  Error last(ErrorKind::kUnavailable, "no node to ask");
  for (const auto& node : nodes) {
    auto c = connect_to(connect, node);
    if (!c.ok()) return c.error();
    auto dot = fetch_dependencies_dot(*c, node);
    if (!dot.ok()) {
      last = dot.error();
      continue;
    }
    const std::string base = std::filesystem::temp_directory_path() / ("cosictl-graph-" + std::to_string(getpid()));
    if (auto s = cmd::write_file_atomically(base + ".dot", *dot, 0600); !s.ok()) return s.error();
    auto ran = controllers::run_command({"dot", "-Tsvg", "-o", base + ".svg", base + ".dot"}, 20s);
    std::remove((base + ".dot").c_str());
    if (!ran.ok()) return Error(ran.error().kind(), "graphviz: " + ran.error().message());
    auto svg = cmd::read_file(base + ".svg");
    std::remove((base + ".svg").c_str());
    return svg;
  }
  return last;
}

}  // namespace

Status run_dashboard(const ConnectOptions& connect, const DashboardOptions& o) {
  if (o.web) {
    if (auto s = dashboard::check_loopback_listen(o.listen); !s.ok()) return s;
  } else if (!::isatty(STDIN_FILENO)) {
    return Error(ErrorKind::kFailedPrecondition, "dashboard: standard input is not a terminal (try --web)");
  }
  auto first = Connection::open(connect);
  if (!first.ok()) return first.error();

  // The cluster's name is its talosconfig context's; cosictl made it when its state is there.
  std::string title = "cluster";
  if (auto tc = load_talosconfig(talosconfig_path(connect.talosconfig)); tc.ok()) {
    title = connect.context.empty() ? tc->context : connect.context;
  }
  const std::string dir = cluster_dir(o.state_dir, title);
  const bool local = load_cluster_state(dir + "/cluster.yaml").ok();

  ResourceTypes types;
  resources::register_types(types);
  dashboard::ClusterView view;
  for (const auto& node : first->nodes()) view.add_node(node);
  auto dial = [connect](const std::string& node) -> Result<std::shared_ptr<grpc::Channel>> {
    auto c = connect_to(connect, node);
    if (!c.ok()) return c.error();
    return c->channel();
  };

  if (!o.web) {
    dashboard::TerminalDashboard tui(view, title);
    dashboard::ClusterWatches watches(view, dial, types, [&] { tui.changed(); });
    watches.start();
    return tui.run();
  }

  // Ctrl-C and SIGTERM wait for sigwait below, not for whichever thread they would hit.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto actions = std::make_shared<LocalClusterActions>(connect, dir);
  dashboard::DashboardActions offered{
      .enabled = local,
      .act = [actions](const std::string& node, const std::string& action) { return actions->act(node, action); },
      .graph_svg = [connect, &view] { return graph_svg(connect, view.nodes()); }};
  auto web = dashboard::WebDashboard::start(o.listen, view, std::move(offered), title);
  if (!web.ok()) return web.error();
  dashboard::ClusterWatches watches(view, dial, types, [&] { (*web)->changed(); });
  watches.start();
  std::printf("dashboard of %s at %s (%s); Ctrl-C stops it\n", title.c_str(), (*web)->url().c_str(),
              local ? "made by cosictl cluster create: buttons on" : "not made by cosictl: view only");
  std::fflush(stdout);
  int received = 0;
  sigwait(&signals, &received);
  return {};
}

}  // namespace cosi::cosictl
