#include "controllers/k8s/apiserver_stand_in_controller.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "controllers/common/files.h"
#include "controllers/common/service_request.h"
#include "controllers/config/applied_config.h"
#include "resources/cluster/cluster_resources.h"
#include "resources/common/ip.h"
#include "resources/network/network_resources.h"
#include "resources/secrets/certs.h"
#include "resources/v1alpha1/v1alpha1_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kService = "apiserver";
const Pointer kAddresses{kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)};

// Every name the certificate must carry: IPs first (sorted), then DNS names.
std::vector<std::string> names_for(ControllerContext& ctx, const config::MachineConfig& cfg) {
  std::set<std::string> ips{"127.0.0.1"}, dns{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"};
  auto add = [&](const std::string& name) {
    if (name.empty()) return;
    (ip_bytes(name) ? ips : dns).insert(name);
  };
  add(cfg.control_plane_endpoint.host);
  for (const auto& nic : cfg.interfaces) add(nic.vip);
  for (const auto& san : cfg.cert_sans) add(san);
  if (auto own = ctx.get_typed<NodeAddressSpec>(kAddresses); own.ok()) {
    for (const auto& a : (*own)->spec().addresses()) add(ip_text(a.ip()));
  }
  if (auto members = ctx.list({kClusterNamespace, kMemberType}); members.ok()) {
    for (const auto& r : *members) {
      if (auto m = resource_cast<MemberSpec>(r)) {
        for (const auto& a : m->spec().addresses()) add(ip_text(a.ip()));
      }
    }
  }
  std::vector<std::string> out(ips.begin(), ips.end());
  out.insert(out.end(), dns.begin(), dns.end());
  return out;
}

}  // namespace

std::string APIServerStandInController::nginx_config(const std::string& dir, const std::string& listen) {
  return "# The API server stand-in of a cosi-cpp control plane (not Kubernetes): written by machined.\n"
         "daemon off;\n"
         "master_process off;\n"
         "pid " + dir + "/nginx.pid;\n"
         "error_log stderr warn;\n"
         "events { worker_connections 8192; }\n"
         "http {\n"
         "  access_log off;\n"
         "  client_body_temp_path " + dir + "/tmp/body;\n"
         "  proxy_temp_path " + dir + "/tmp/proxy;\n"
         "  fastcgi_temp_path " + dir + "/tmp/fastcgi;\n"
         "  uwsgi_temp_path " + dir + "/tmp/uwsgi;\n"
         "  scgi_temp_path " + dir + "/tmp/scgi;\n"
         "  server {\n"
         "    listen " + listen + " ssl reuseport;\n"
         "    ssl_certificate " + dir + "/apiserver.crt;\n"
         "    ssl_certificate_key " + dir + "/apiserver.key;\n"
         "    default_type application/json;\n"
         "    location = /healthz { default_type text/plain; return 200 \"ok\"; }\n"
         "    location = /livez { default_type text/plain; return 200 \"ok\"; }\n"
         "    location = /readyz { default_type text/plain; return 200 \"ok\"; }\n"
         "    location = /version {\n"
         "      return 200 '{\"major\":\"1\",\"minor\":\"30\",\"gitVersion\":\"v1.30.0+cosi-stand-in\",\"platform\":\"linux/amd64\"}';\n"
         "    }\n"
         "    location / {\n"
         "      return 404 '{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"the cosi-cpp API server stand-in "
         "serves /healthz, /livez, /readyz and /version only\",\"code\":404}';\n"
         "    }\n"
         "  }\n"
         "}\n";
}

std::vector<Input> APIServerStandInController::inputs() const {
  return {applied_config_input(), {kClusterNamespace, kMemberType}, {kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)},
          service_request_input(kService)};
}

std::vector<Output> APIServerStandInController::outputs() const { return {{kServiceType, OutputKind::kShared}}; }

ReconcileResult APIServerStandInController::reconcile(ControllerContext& ctx) {
  auto cfg = applied_config(ctx);
  if (!cfg.ok()) return ReconcileResult::terminal(cfg.error());
  if (!*cfg || (*cfg)->type != config::MachineType::kControlPlane || (*cfg)->kubernetes_ca.key.empty()) {
    if (process_) ctx.log().info("API server stand-in stopped");
    process_.reset();
    names_.clear();
    return ReconcileResult::done();  // not a control plane (any more): no service
  }
  // runtime/Services "apiserver"; then, unless stopped on request, a look at the process every second.
  auto publish = [&](bool running, bool watch) -> ReconcileResult {
    auto written = ctx.modify<ServiceSpec>(Metadata(kRuntimeNamespace, kServiceType, std::string(kService)), [&](ServiceSpec& s) {
      s.set_running(running);
      s.set_healthy(running);
      s.set_unknown(false);
    });
    if (!written.ok()) return ReconcileResult::retry(written.error());
    return watch ? ReconcileResult::requeue_after(std::chrono::seconds(1)) : ReconcileResult::done();
  };
  // ServiceStop / ServiceStart / ServiceRestart, through the API.
  const auto request = read_service_request(ctx, kService);
  if (restarts_.due(request) && process_) {
    ctx.log().info("API server stand-in restarting on request", {{"pid", std::to_string(process_->pid())}});
    process_.reset();
  }
  if (request.stopped) {
    if (process_) ctx.log().info("API server stand-in stopped on request", {{"pid", std::to_string(process_->pid())}});
    process_.reset();
    return publish(false, false);
  }
  const fs::path dir = fs::path(options_.state_dir) / "apiserver";
  const auto names = names_for(ctx, **cfg);
  if (names != names_ || !process_) {
    std::error_code ec;
    fs::create_directories(dir / "tmp", ec);
    if (ec) return ReconcileResult::retry(Error(ErrorKind::kInternal, "creating " + dir.string() + ": " + ec.message()));
    auto ca = pki::Certificate::parse((*cfg)->kubernetes_ca.crt);
    auto ca_key = pki::PrivateKey::parse((*cfg)->kubernetes_ca.key);
    if (!ca.ok()) return ReconcileResult::terminal(Error(ErrorKind::kInvalidArgument, "cluster.ca.crt: " + ca.error().message()));
    if (!ca_key.ok()) return ReconcileResult::terminal(Error(ErrorKind::kInvalidArgument, "cluster.ca.key: " + ca_key.error().message()));
    pki::CertificateSpec spec{.common_name = "kube-apiserver", .usage = pki::Usage::kServer, .validity = pki::kYear};
    for (const auto& n : names) (ip_bytes(n) ? spec.ips : spec.dns).push_back(n);
    auto key = pki::PrivateKey::ecdsa_p256();
    auto crt = pki::Certificate::issue(*ca, *ca_key, key.get(), spec);
    if (!crt.ok()) return ReconcileResult::terminal(crt.error());
    const std::string listen =
        (options_.listen_host.empty() ? std::string() : options_.listen_host + ":") + std::to_string(options_.port);
    for (const auto& [file, content] : {std::pair{"apiserver.key", key.pem()}, std::pair{"apiserver.crt", crt->pem()},
                                        std::pair{"nginx.conf", nginx_config(dir.string(), listen)}}) {
      if (auto s = write_if_changed(dir / file, content); !s.ok()) return ReconcileResult::retry(s.error());
    }
    if (process_) ctx.log().info("API server stand-in restarted with a new certificate", {{"names", std::to_string(names.size())}});
    process_.reset();  // stops the old one: it read the old certificate
    names_ = names;
  }
  if (!process_ || !process_->running()) {
    if (process_) ctx.log().warn("API server stand-in exited; starting it again");
    process_.reset();
    auto started = launcher_({options_.nginx_binary, "-e", "stderr", "-p", dir.string(), "-c", (dir / "nginx.conf").string()},
                             "apiserver");
    if (!started.ok()) return ReconcileResult::retry(started.error());
    process_ = std::move(*started);
    ctx.log().info("API server stand-in started", {{"pid", std::to_string(process_->pid())}, {"listen", options_.listen_host.empty() ? "*" : options_.listen_host},
                                                   {"port", std::to_string(options_.port)}});
  }
  return publish(process_->running(), true);
}

}  // namespace cosi::controllers
