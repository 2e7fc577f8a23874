// machined: the node agent. Starts the store, the controller runtime with the node's
// controllers, the API (a view over the store, behind the authenticating front) and the HTTP
// health/metrics endpoint, then runs until SIGTERM or SIGINT (with --leave it first deletes
// its discovery affiliate). Without a machine config in --state-dir it starts in maintenance
// mode and waits for `cosictl apply-config --insecure`. A Reset wipes --state-dir and execs
// machined again, in maintenance mode.
//
//   machined --listen 127.0.5.10:50000 --state-dir /tmp/cp1 [--discovery-ttl 30m] [--leave]
//   machined --insecure-dev --listen 127.0.7.1:50000 --state-dir /tmp/node1
//   machined --host-network --listen 0.0.0.0:50000 --state-dir /var/lib/machined [--vip-lease-ttl 2s]
//
// A node shares its host with others (the default: its address is --node-ip or the --listen
// address, and it never touches the host's links), or owns it (--host-network: its links and
// addresses come from the kernel, and a control plane puts a shared VIP on its link while it
// holds it).
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "api/admin_kubeconfig.h"
#include "api/api_listener.h"
#include "api/grpc_process.h"
#include "api/host_port.h"
#include "api/http_server.h"
#include "api/inspect_server.h"
#include "api/install_disk_check.h"
#include "api/machine_server.h"
#include "api/service_operator.h"
#include "api/state_server.h"
#include "api/discovery/grpc_discovery_client.h"
#include "api/etcd/grpc_etcd_client.h"
#include "api/trustd/trustd_client.h"
#include "cmd/common/flag_values.h"
#include "cmd/common/flags.h"
#include "controllers/common/child_process.h"
#include "cmd/machined/node_config.h"
#include "cmd/machined/node_etcd.h"
#include "cmd/machined/node_identity.h"
#include "cmd/machined/node_reset.h"
#include "controllers/block/disks_controller.h"
#include "controllers/common/service_logs.h"
#include "controllers/cluster/affiliate_merge_controller.h"
#include "controllers/cluster/control_plane_endpoints_controller.h"
#include "controllers/cluster/discovery_config_controller.h"
#include "controllers/cluster/discovery_service_controller.h"
#include "controllers/cluster/identity_controller.h"
#include "controllers/cluster/info_controller.h"
#include "controllers/cluster/local_affiliate_controller.h"
#include "controllers/cluster/member_controller.h"
#include "controllers/etcd/etcd_certificate_controller.h"
#include "controllers/etcd/etcd_config_controller.h"
#include "controllers/etcd/etcd_controller.h"
#include "controllers/etcd/etcd_metrics.h"
#include "controllers/etcd/etcd_spec_controller.h"
#include "controllers/etcd/etcd_status_controller.h"
#include "controllers/k8s/apiserver_stand_in_controller.h"
#include "controllers/k8s/kubeprism_config_controller.h"
#include "controllers/k8s/kubeprism_controller.h"
#include "controllers/k8s/kubeprism_endpoints_controller.h"
#include "controllers/network/address_spec_controller.h"
#include "controllers/network/address_status_controller.h"
#include "controllers/network/etcd_vip_election.h"
#include "controllers/network/libnl_kernel.h"
#include "controllers/network/link_status_controller.h"
#include "controllers/network/node_address_controller.h"
#include "controllers/network/node_identity_controller.h"
#include "controllers/network/operator_config_controller.h"
#include "controllers/network/vip_operator_controller.h"
#include "controllers/secrets/api_certificate_controller.h"
#include "controllers/services/service_status_controller.h"
#include "resources/catalog.h"
#include "runtime/controller/runtime.h"
#include "runtime/exec/thread_pool.h"
#include "runtime/resource/meta/namespace.h"
#include "runtime/state/memory_state.h"
#include "runtime/state/store_metrics.h"

namespace {

using namespace cosi;

struct Options {
  std::string listen = "0.0.0.0:50000";
  std::string node_ip;
  std::string hostname;
  std::string state_dir = "/var/lib/machined";
  std::string state_socket;
  std::string metrics_listen;
  std::string trustd_port = "50001";
  std::string discovery_ttl = "30m";
  std::string etcd_binary = "etcd";
  std::string vip_lease_ttl = "2s";
  std::string kubeprism_health_check = "tcp";
  std::string sysfs_root = "/sys";
  std::string udev_data = "/run/udev/data";
  std::string log_ring_size = "1MiB";
  bool host_network = false;
  bool no_install = false;
  bool apiserver_stand_in = false;
  bool insecure_dev = false;
  bool leave = false;
  bool help = false;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "machined: %s\n", message.c_str());
  return 2;
}

// Every ResourceDefinition and Namespace, owned by "meta".
Status publish_meta(State& state) {
  for (const auto& spec : resources::definitions()) {
    if (auto r = state.create(make_definition_resource(spec), {kMetaOwner}); !r.ok()) return r.error();
  }
  for (const auto& [name, description] : resources::namespaces()) {
    if (auto r = state.create(make_namespace(name, description), {kMetaOwner}); !r.ok()) return r.error();
  }
  return {};
}

// A server for `services`: on `address` (plaintext: the trusted unix socket), or with no
// address at all, reached only through its in-process channel (the node's own services, behind
// the front).
std::unique_ptr<grpc::Server> serve(const std::string& address, std::vector<grpc::Service*> services) {
  grpc::ServerBuilder builder;
  if (!address.empty()) builder.AddListeningPort(address, grpc::InsecureServerCredentials());
  for (auto* s : services) builder.RegisterService(s);
  return builder.BuildAndStart();
}

// Workers get their API certificate from a control plane's trustd.
controllers::CertificateSigner trustd_signer() {
  return [](const controllers::TrustdRequest& r) -> Result<controllers::IssuedCertificate> {
    auto signed_cert = api::request_certificate({r.host, r.port}, r.token, r.csr_pem, r.ca_pem, std::chrono::seconds(5));
    if (!signed_cert.ok()) return signed_cert.error();
    return controllers::IssuedCertificate{signed_cert->ca, signed_cert->crt};
  };
}

int run(const Options& o, char** argv) {
  auto listen = api::parse_host_port(o.listen, 50000);
  if (!listen.ok()) return fail("--listen " + listen.error().message());
  if (o.host_network && !o.node_ip.empty()) {
    return fail("--host-network reads the node's addresses from its links; --node-ip names the address of a node that shares "
                "its host: give one or the other");
  }
  std::string node_ip = o.node_ip.empty() ? listen->host : o.node_ip;
  if (!o.host_network && (node_ip == "0.0.0.0" || node_ip == "::")) {
    return fail("--listen is a wildcard: say which address is the node's with --node-ip (or, on a host the node owns, --host-network)");
  }
  auto vip_lease_ttl = cmd::parse_duration("--vip-lease-ttl", o.vip_lease_ttl);
  if (!vip_lease_ttl.ok()) return fail(vip_lease_ttl.error().message());
  // etcd leases are whole seconds, and the holder keeps the address's kernel lifetime (whole
  // seconds too, at least one) inside the lease less a margin: 2 s is the least that works.
  if (*vip_lease_ttl < std::chrono::seconds(2) || *vip_lease_ttl % std::chrono::seconds(1) != std::chrono::milliseconds(0)) {
    return fail("--vip-lease-ttl \"" + o.vip_lease_ttl + "\" must be whole seconds, at least 2s");
  }
  std::optional<controllers::HealthCheck> kubeprism_check;
  if (o.kubeprism_health_check == "tcp") kubeprism_check = controllers::HealthCheck::kTcpConnect;
  if (o.kubeprism_health_check == "https-readyz") kubeprism_check = controllers::HealthCheck::kHttpsReadyz;
  if (!kubeprism_check) {
    return fail("--kubeprism-health-check \"" + o.kubeprism_health_check + "\" is neither tcp nor https-readyz");
  }
  auto metrics = api::parse_host_port(o.metrics_listen.empty() ? listen->host + ":9100" : o.metrics_listen, 9100);
  if (!metrics.ok()) return fail("--metrics-listen " + metrics.error().message());
  int trustd_port = 0;
  try {
    trustd_port = std::stoi(o.trustd_port);
  } catch (...) {
  }
  if (trustd_port < 1 || trustd_port > 65535) return fail("--trustd-port \"" + o.trustd_port + "\" is not a port number");
  auto discovery_ttl = cmd::parse_duration("--discovery-ttl", o.discovery_ttl);
  if (!discovery_ttl.ok()) return fail(discovery_ttl.error().message());
  if (discovery_ttl->count() <= 0 || *discovery_ttl > std::chrono::minutes(30)) {
    return fail("--discovery-ttl must be more than 0 and at most 30m (the discovery service's limit)");
  }
  if (o.insecure_dev && (!api::is_loopback(listen->host) || !api::is_loopback(metrics->host))) {
    return fail("--insecure-dev serves plaintext gRPC and is refused unless every listen address is loopback (--listen " +
                listen->to_string() + ", --metrics-listen " + metrics->to_string() + ")");
  }
  std::string hostname = o.hostname;
  if (hostname.empty()) {
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    hostname = buf;
  }
  std::error_code ec;
  std::filesystem::create_directories(o.state_dir, ec);
  if (ec) return fail("--state-dir " + o.state_dir + ": " + ec.message());
  const std::string socket = o.state_socket.empty() ? o.state_dir + "/machined.sock" : o.state_socket;
  std::filesystem::remove(socket, ec);

  auto ring_bytes = cmd::parse_bytes("--log-ring-size", o.log_ring_size);
  if (!ring_bytes.ok()) return fail(ring_bytes.error().message());
  // Each service's output, and machined's own log beside stderr, in a ring of that size.
  controllers::ServiceLogs service_logs(*ring_bytes);
  auto to_stderr = stderr_sink();
  auto& own_log = service_logs.ring("machined");
  Logger log([to_stderr, &own_log](const LogRecord& record) {
    to_stderr(record);
    if (record.level >= LogLevel::kInfo) own_log.write(format_log_line(record) + "\n");
  });
  log = log.with_fields({{"node", hostname}});
  auto launch = [&service_logs](const std::vector<std::string>& argv, const std::string& name) {
    return controllers::ChildProcess::start(argv, service_logs.ring(name));
  };
  auto run_to_end = [&service_logs](const std::vector<std::string>& argv, const std::string& name, std::chrono::milliseconds deadline) {
    return controllers::ChildProcess::run(argv, service_logs.ring(name), deadline);
  };

  MemoryState state;
  if (auto s = publish_meta(state); !s.ok()) return fail(s.error().to_string());
  ResourceTypes types;
  resources::register_types(types);

  ThreadPool pool(2);
  RuntimeOptions runtime_options;
  runtime_options.logger = log;
  Runtime runtime(state, pool, pool, runtime_options);
  register_store_metrics(runtime.metrics(), state);
  controllers::register_etcd_metrics(runtime.metrics(), state);
  runtime.metrics().add_collector([&service_logs](metrics::Registry::Writer& w) {
    w.gauge("cosi_service_log_followers", "clients following a service log (cosictl logs -f)", {}, service_logs.followers());
  });
  std::vector<std::string> static_addresses;
  if (!o.host_network) static_addresses.push_back(node_ip + (node_ip.find(':') == std::string::npos ? "/32" : "/128"));
  if (auto s = runtime.add(std::make_unique<controllers::NodeIdentityController>(controllers::NodeIdentity{hostname, static_addresses}));
      !s.ok()) {
    return fail(s.error().to_string());
  }
  // The links and addresses of a host the node owns; never those of a host it shares.
  std::unique_ptr<controllers::NetworkKernel> kernel;
  std::vector<std::unique_ptr<Controller>> network_controllers;
  if (o.host_network) {
    auto opened = controllers::LibnlKernel::open();
    if (!opened.ok()) return fail("--host-network: " + opened.error().message());
    kernel = std::move(*opened);
    network_controllers.push_back(std::make_unique<controllers::LinkStatusController>(*kernel));
    network_controllers.push_back(std::make_unique<controllers::AddressStatusController>(*kernel));
    network_controllers.push_back(std::make_unique<controllers::AddressSpecController>(*kernel));
    network_controllers.push_back(std::make_unique<controllers::NodeAddressController>());
  }
  network_controllers.push_back(std::make_unique<controllers::OperatorConfigController>());
  auto vip = std::make_unique<controllers::VIPOperatorController>(
      [](controllers::VipElectionOptions options) {
        return controllers::make_etcd_vip_election(std::move(options), etcd::make_grpc_etcd_client);
      },
      controllers::VIPOperatorOptions{.lease_ttl = std::chrono::duration_cast<std::chrono::seconds>(*vip_lease_ttl)});
  auto* vip_operator = vip.get();
  network_controllers.push_back(std::move(vip));
  // KubePrism: 127.0.0.1 on a host the node owns; where nodes share the host's loopback, each
  // listens on its own address.
  network_controllers.push_back(std::make_unique<controllers::KubePrismEndpointsController>());
  network_controllers.push_back(std::make_unique<controllers::KubePrismConfigController>(o.host_network ? "127.0.0.1" : node_ip));
  network_controllers.push_back(std::make_unique<controllers::KubePrismController>(*kubeprism_check));
  if (o.apiserver_stand_in) {
    network_controllers.push_back(std::make_unique<controllers::APIServerStandInController>(
        controllers::APIServerStandInOptions{.state_dir = o.state_dir, .listen_host = o.host_network ? "" : node_ip},
        launch));
  }
  for (auto& c : network_controllers) {
    if (auto s = runtime.add(std::move(c)); !s.ok()) return fail(s.error().to_string());
  }
  if (auto s = runtime.add(std::make_unique<controllers::ApiCertificateController>(trustd_signer(), trustd_port)); !s.ok()) {
    return fail(s.error().to_string());
  }
  if (auto s = runtime.add(std::make_unique<controllers::ServiceStatusController>()); !s.ok()) return fail(s.error().to_string());
  // Disks, read again on every block uevent (in maintenance mode too: they choose the install disk).
  controllers::SysfsBlockDevices block_devices({.sys = o.sysfs_root, .udev_data = o.udev_data});
  auto uevents = controllers::UeventMonitor::start("block", [&](const controllers::Uevent& e) { block_devices.uevent(e); });
  if (!uevents.ok()) log.warn("disks are read once: no uevents", {{"error", uevents.error().message()}});
  if (auto s = runtime.add(std::make_unique<controllers::DisksController>(block_devices)); !s.ok()) return fail(s.error().to_string());
  auto discovery = std::make_unique<controllers::DiscoveryServiceController>(discovery::make_grpc_discovery_client, *discovery_ttl);
  auto* discovery_controller = discovery.get();
  std::vector<std::unique_ptr<Controller>> cluster_controllers;
  cluster_controllers.push_back(std::make_unique<controllers::InfoController>());
  cluster_controllers.push_back(std::make_unique<controllers::DiscoveryConfigController>());
  cluster_controllers.push_back(std::make_unique<controllers::LocalAffiliateController>());
  cluster_controllers.push_back(std::move(discovery));
  cluster_controllers.push_back(std::make_unique<controllers::AffiliateMergeController>());
  cluster_controllers.push_back(std::make_unique<controllers::MemberController>());
  cluster_controllers.push_back(std::make_unique<controllers::ControlPlaneEndpointsController>());
  auto etcd = std::make_unique<controllers::EtcdController>(
      controllers::EtcdControllerOptions{.state_dir = o.state_dir, .etcd_binary = o.etcd_binary}, launch,
      etcd::make_grpc_etcd_client, run_to_end);
  auto* etcd_controller = etcd.get();
  cluster_controllers.push_back(std::make_unique<controllers::EtcdCertificateController>());
  cluster_controllers.push_back(std::make_unique<controllers::EtcdConfigController>());
  cluster_controllers.push_back(std::make_unique<controllers::EtcdSpecController>());
  cluster_controllers.push_back(std::move(etcd));
  cluster_controllers.push_back(std::make_unique<controllers::EtcdStatusController>(etcd::make_grpc_etcd_client));
  for (auto& c : cluster_controllers) {
    if (auto s = runtime.add(std::move(c)); !s.ok()) return fail(s.error().to_string());
  }
  auto node_id = machined::load_or_create_node_id(o.state_dir);
  if (!node_id.ok()) return fail(node_id.error().message());
  if (auto s = runtime.add(std::make_unique<controllers::IdentityController>(*node_id)); !s.ok()) return fail(s.error().to_string());
  machined::NodeConfig node_config(state, o.state_dir, log);
  if (auto s = node_config.load(); !s.ok()) return fail(s.error().message());
  if (auto s = runtime.start(); !s.ok()) return fail(s.error().to_string());

  api::StateServer network_state(state, types, pool, {.writable = false});
  api::StateServer trusted_state(state, types, pool, {.writable = true});
  machined::NodeReset node_reset(discovery_controller, etcd_controller, vip_operator, log);
  machined::NodeEtcd node_etcd(state, etcd_controller);
  api::AdminKubeconfig kubeconfig(state);
  api::StoreServices services(state);
  api::InstallDiskCheck checked_config(node_config, state, {.enabled = !o.no_install});
  if (o.no_install) log.info("configs are not checked for their install disk: this node installs nothing (--no-install)");
  api::MachineServer machine_service(api::NodeInfo{hostname}, &checked_config, &node_reset, &node_etcd, &kubeconfig, &services,
                                     &service_logs);
  api::InspectServer inspect_service(runtime, hostname);
  auto internal = serve("", {&network_state, &machine_service, &inspect_service});
  if (!internal) return fail("cannot start the node's services");
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  auto local = serve("unix:" + socket, {&trusted_state});
  if (!local) return fail("cannot listen on unix:" + socket);

  api::ApiListener api_listener(state, internal->InProcessChannel(args),
                                     {.listen = *listen,
                                      .trustd_port = trustd_port,
                                      .self = o.host_network ? std::vector<std::string>{hostname}
                                                             : std::vector<std::string>{listen->host, node_ip, hostname},
                                      .hostname = hostname,
                                      .insecure_dev = o.insecure_dev},
                                     log);
  if (auto s = api_listener.start(); !s.ok()) return fail(s.error().message());

  std::atomic<bool> ready{true};
  auto http = api::HttpServer::start(
      metrics->to_string(),
      {{"/metrics", [&](const api::HttpRequest&) { return api::HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8", runtime.metrics().render()}; }},
       {"/healthz", [](const api::HttpRequest&) { return api::HttpResponse{200, "text/plain; charset=utf-8", "ok\n"}; }},
       {"/readyz", [&](const api::HttpRequest&) {
          return ready ? api::HttpResponse{200, "text/plain; charset=utf-8", "ready\n"}
                       : api::HttpResponse{503, "text/plain; charset=utf-8", "stopping\n"};
        }}});
  if (!http.ok()) return fail(http.error().message());

  log.info("machined ready", {{"api", listen->to_string()},
                              {"mode", api_listener.mode()},
                              {"node_id", *node_id},
                              {"state_socket", socket},
                              {"metrics", metrics->host + ":" + std::to_string((*http)->port())},
                              {"node_ip", o.host_network ? "from the host's links" : node_ip}});

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGUSR1);
  int received = 0;
  do {
    sigwait(&signals, &received);
  } while (received == SIGUSR1 && !node_reset.requested());
  const bool resetting = received == SIGUSR1;
  log.info("stopping", {{"signal", resetting ? "reset" : received == SIGTERM ? "SIGTERM" : "SIGINT"}});
  // A shared VIP held here goes first: off the link, then the election, so another control
  // plane takes it over at once.
  if (auto s = vip_operator->release(std::chrono::seconds(2)); !s.ok()) log.warn("releasing the shared VIP", {{"error", s.error().message()}});
  if (o.leave && !resetting) {
    if (auto s = node_reset.leave(); !s.ok()) log.warn("leaving the discovery service", {{"error", s.error().message()}});
  }

  ready = false;
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(5);
  api_listener.stop();
  internal->Shutdown(deadline);
  local->Shutdown(deadline);
  (*http)->stop();
  if (auto s = runtime.stop(std::chrono::seconds(5)); !s.ok()) log.warn("stopping the runtime", {{"error", s.error().message()}});
  etcd_controller->stop();
  pool.stop();
  std::filesystem::remove(socket, ec);
  if (resetting) {
    if (const int stopped = machined::NodeReset::stop_children(std::chrono::seconds(3)); stopped > 0) {
      log.info("stopped what this machined had started", {{"processes", std::to_string(stopped)}});
    }
    if (auto s = machined::NodeReset::wipe(o.state_dir); !s.ok()) return fail(s.error().message());
    log.info("state wiped; starting again in maintenance mode");
    execv("/proc/self/exe", argv);
    return fail(std::string("exec after reset: ") + std::strerror(errno));
  }
  log.info("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cosi::api::configure_grpc_process();
  // KubePrism holds two descriptors a connection (up to 8,192 of them): the soft limit goes up
  // to the hard one.
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  // A peer that closes a socket mid-write must cost an EPIPE, never the node agent.
  signal(SIGPIPE, SIG_IGN);
  // Block the stop signals before any thread starts, so only sigwait sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Options o;
  cosi::cmd::Flags flags;
  flags.value("listen", 0, &o.listen, "gRPC API address (default 0.0.0.0:50000)");
  flags.value("node-ip", 0, &o.node_ip, "the node's address (default: the --listen address)");
  flags.value("hostname", 0, &o.hostname, "the node's hostname (default: the host's)");
  flags.value("state-dir", 0, &o.state_dir, "where the node keeps its state (default /var/lib/machined)");
  flags.value("state-socket", 0, &o.state_socket, "the trusted read-write API's unix socket (default STATE_DIR/machined.sock)");
  flags.value("metrics-listen", 0, &o.metrics_listen, "HTTP /metrics, /healthz, /readyz (default LISTEN_HOST:9100)");
  flags.value("trustd-port", 0, &o.trustd_port, "trustd's port on control planes, and where workers ask (default 50001)");
  flags.value("discovery-ttl", 0, &o.discovery_ttl, "how long the discovery service keeps this node's affiliate without a refresh (default 30m)");
  flags.value("etcd-binary", 0, &o.etcd_binary, "the etcd server control planes run (default: etcd from PATH)");
  flags.value("vip-lease-ttl", 0, &o.vip_lease_ttl,
              "the etcd lease of a shared VIP's election: a holder that dies is replaced within about this long (default 2s)");
  flags.value("kubeprism-health-check", 0, &o.kubeprism_health_check,
              "how KubePrism checks its upstreams: tcp (a connect, as Talos) or https-readyz (GET /readyz answers 200) (default tcp)");
  flags.boolean("apiserver-stand-in", 0, &o.apiserver_stand_in,
                "on a control plane, serve the API server stand-in (nginx, not Kubernetes) on :6443 for KubePrism to balance");
  flags.boolean("host-network", 0, &o.host_network,
                "the node owns this host (or network namespace): addresses from its links, shared VIPs on them");
  flags.boolean("no-install", 0, &o.no_install,
                "this node installs nothing (nodes of a local cluster share one host): configs are not checked for their install disk");
  flags.value("sysfs-root", 0, &o.sysfs_root, "where the node reads its disks (default /sys; tests point it at a tree of their own)");
  flags.value("log-ring-size", 0, &o.log_ring_size,
              "the bytes of log kept per service (etcd, apiserver, machined itself), the oldest lines dropped first (default 1MiB)");
  flags.value("udev-data", 0, &o.udev_data, "udev's device database, for disk serials (default /run/udev/data)");
  flags.boolean("leave", 0, &o.leave, "at stop, delete this node's discovery affiliate so peers drop it at once");
  flags.boolean("insecure-dev", 0, &o.insecure_dev, "plaintext gRPC, every caller admin; refused unless every listen address is loopback");
  flags.boolean("help", 'h', &o.help, "this help");
  auto positional = flags.parse(argc, argv);
  if (!positional.ok()) return fail(positional.error().message() + "\n" + flags.usage());
  if (o.help) {
    std::printf("usage: machined [flags]\n%s", flags.usage().c_str());
    return 0;
  }
  if (!positional->empty()) return fail("unexpected argument \"" + positional->front() + "\"");
  return run(o, argv);
}
