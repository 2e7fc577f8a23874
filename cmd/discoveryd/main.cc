// discoveryd: the discovery service (sidero.discovery.server.Cluster) the nodes of a cluster
// publish their encrypted affiliates to. In memory; with --snapshot-path it saves its state
// periodically and at stop, and restores it at start, so a restart loses nothing.
//
//   discoveryd --listen 127.5.0.1:3000 --rate-limit 0 --snapshot-path /tmp/disc.snapshot
#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <cstdio>

#include "api/discovery/discovery_service.h"
#include "api/grpc_process.h"
#include "api/host_port.h"
#include "api/http_server.h"
#include "cmd/common/files.h"
#include "cmd/common/flag_values.h"
#include "cmd/common/flags.h"
#include "runtime/base/log.h"

namespace {

using namespace cosi;

struct Options {
  std::string listen = "127.0.0.1:3000";
  std::string metrics_listen;
  std::string rate_limit = "15";
  std::string rate_burst = "60";
  std::string ttl_max = "30m";
  std::string gc_interval = "1s";
  std::string snapshot_path;
  std::string snapshot_interval = "1m";
  std::string tls_cert;
  std::string tls_key;
  std::string redirect;
  bool help = false;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "discoveryd: %s\n", message.c_str());
  return 2;
}

int run(const Options& o) {
  auto listen = api::parse_host_port(o.listen, 3000);
  if (!listen.ok()) return fail("--listen " + listen.error().message());
  auto metrics_at = api::parse_host_port(o.metrics_listen.empty() ? listen->host + ":3001" : o.metrics_listen, 3001);
  if (!metrics_at.ok()) return fail("--metrics-listen " + metrics_at.error().message());
  auto rate = cmd::parse_number("--rate-limit", o.rate_limit);
  if (!rate.ok()) return fail(rate.error().message());
  auto burst = cmd::parse_number("--rate-burst", o.rate_burst);
  if (!burst.ok()) return fail(burst.error().message());
  auto ttl_max = cmd::parse_duration("--ttl-max", o.ttl_max);
  if (!ttl_max.ok()) return fail(ttl_max.error().message());
  auto gc = cmd::parse_duration("--gc-interval", o.gc_interval);
  if (!gc.ok() || gc->count() <= 0) return fail(gc.ok() ? "--gc-interval must be positive" : gc.error().message());
  auto snapshot_every = cmd::parse_duration("--snapshot-interval", o.snapshot_interval);
  if (!snapshot_every.ok() || snapshot_every->count() <= 0) {
    return fail(snapshot_every.ok() ? "--snapshot-interval must be positive" : snapshot_every.error().message());
  }
  if (o.tls_cert.empty() != o.tls_key.empty()) return fail("--tls-cert and --tls-key go together");

  Logger log(stderr_sink());
  discovery::DiscoveryService service({.max_ttl = *ttl_max,
                                       .rate_limit = *rate,
                                       .rate_burst = std::max(1.0, *burst),
                                       .collect_every = *gc,
                                       .redirect = o.redirect});
  size_t restored = 0;
  if (!o.snapshot_path.empty()) {
    auto bytes = cmd::read_file(o.snapshot_path);
    if (bytes.ok()) {
      cosi::discoveryd::Snapshot snapshot;
      if (!snapshot.ParseFromString(*bytes)) return fail("--snapshot-path " + o.snapshot_path + " is not a discoveryd snapshot");
      service.restore(snapshot);
      restored = service.stats().affiliates;
    } else if (!bytes.error().is(ErrorKind::kNotFound)) {
      return fail("--snapshot-path " + bytes.error().message());
    }
  }
  auto save = [&] {
    if (o.snapshot_path.empty()) return;
    std::string bytes;
    service.snapshot().SerializeToString(&bytes);
    if (auto s = cmd::write_file_atomically(o.snapshot_path, bytes, 0600); !s.ok()) {
      log.warn("saving the snapshot", {{"error", s.error().message()}});
    }
  };

  std::shared_ptr<grpc::ServerCredentials> creds = grpc::InsecureServerCredentials();
  if (!o.tls_cert.empty()) {
    auto crt = cmd::read_file(o.tls_cert);
    if (!crt.ok()) return fail("--tls-cert " + crt.error().message());
    auto key = cmd::read_file(o.tls_key);
    if (!key.ok()) return fail("--tls-key " + key.error().message());
    grpc::SslServerCredentialsOptions tls;
    tls.pem_key_cert_pairs.push_back({*key, *crt});
    creds = grpc::SslServerCredentials(tls);
  }
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen->to_string(), creds, &port);
  builder.RegisterService(&service);
  auto server = builder.BuildAndStart();
  if (!server || port == 0) return fail("cannot listen on " + listen->to_string());
  service.start_collector();

  auto http = api::HttpServer::start(
      metrics_at->to_string(),
      {{"/metrics", [&](const api::HttpRequest&) { return api::HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8", service.metrics().render()}; }},
       {"/healthz", [](const api::HttpRequest&) { return api::HttpResponse{200, "text/plain; charset=utf-8", "ok\n"}; }}});
  if (!http.ok()) return fail("--metrics-listen " + http.error().message());

  log.info("discoveryd ready", {{"listen", listen->host + ":" + std::to_string(port)},
                                {"tls", o.tls_cert.empty() ? "off" : "on"},
                                {"metrics", metrics_at->host + ":" + std::to_string((*http)->port())},
                                {"restored_affiliates", std::to_string(restored)}});

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  const timespec every{static_cast<time_t>(snapshot_every->count() / 1000), static_cast<long>(snapshot_every->count() % 1000) * 1000000};
  int received = 0;
  while (true) {
    received = sigtimedwait(&signals, nullptr, &every);
    if (received == SIGTERM || received == SIGINT) break;
    save();
  }
  log.info("stopping", {{"signal", received == SIGTERM ? "SIGTERM" : "SIGINT"}});
  save();
  service.stop();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  (*http)->stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cosi::api::configure_grpc_process();
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Options o;
  cosi::cmd::Flags flags;
  flags.value("listen", 0, &o.listen, "gRPC address (default 127.0.0.1:3000)");
  flags.value("metrics-listen", 0, &o.metrics_listen, "HTTP /metrics and /healthz (default LISTEN_HOST:3001)");
  flags.value("rate-limit", 0, &o.rate_limit, "requests per second per client address, 0 for none (default 15)");
  flags.value("rate-burst", 0, &o.rate_burst, "requests a client may make at once before the limit applies (default 60)");
  flags.value("ttl-max", 0, &o.ttl_max, "the longest TTL an affiliate may ask for (default 30m)");
  flags.value("gc-interval", 0, &o.gc_interval, "how often expired affiliates are collected (default 1s)");
  flags.value("snapshot-path", 0, &o.snapshot_path, "save the state here and restore it at start (default: none)");
  flags.value("snapshot-interval", 0, &o.snapshot_interval, "how often the snapshot is saved (default 1m; also at stop)");
  flags.value("tls-cert", 0, &o.tls_cert, "serve TLS with this certificate (PEM)");
  flags.value("tls-key", 0, &o.tls_key, "... and this key (PEM)");
  flags.value("redirect", 0, &o.redirect, "tell every client (Hello) to use this endpoint instead");
  flags.boolean("help", 'h', &o.help, "this help");
  auto positional = flags.parse(argc, argv);
  if (!positional.ok()) return fail(positional.error().message() + "\n" + flags.usage());
  if (o.help) {
    std::printf("usage: discoveryd [flags]\n%s", flags.usage().c_str());
    return 0;
  }
  if (!positional->empty()) return fail("unexpected argument \"" + positional->front() + "\"");
  return run(o);
}
