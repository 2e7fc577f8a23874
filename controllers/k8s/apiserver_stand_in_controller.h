// APIServerStandInController: an API server for KubePrism to balance, since Kubernetes itself is
// out of this project's scope — a stand-in, not a Kubernetes API server. On a control plane
// whose config holds the Kubernetes CA (cluster.ca, with its key) it runs Debian's nginx in the
// foreground (`daemon off; master_process off;`: the PID is the server) from a configuration of
// its own in STATE/apiserver, serving HTTPS on <listen>:6443 — the node's address where nodes
// share a host, every address on a host the node owns (so the VIP's :6443 answers too) — with
// a certificate from the Kubernetes CA naming every node address of the cluster (KubePrism
// passes TLS through from any of them), the endpoint's host, the VIPs, 127.0.0.1 and localhost.
// /healthz, /livez and /readyz answer "ok", /version a Kubernetes-shaped JSON. The certificate
// follows the cluster's addresses (nginx restarted with it); nginx is restarted when it exits,
// and stopped, started or restarted as runtime/ServiceRequests "apiserver" asks.
// runtime/Services "apiserver" says whether it runs.
//
//   runtime.add(std::make_unique<APIServerStandInController>(
//       APIServerStandInOptions{.state_dir = "/var/lib/machined", .listen_host = "127.5.0.10"}, ChildProcess::start));
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "controllers/common/process.h"
#include "controllers/common/service_request.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

struct APIServerStandInOptions {
  std::string state_dir;
  std::string nginx_binary = "nginx";
  std::string listen_host;  // empty: every address
  int port = 6443;
};

class APIServerStandInController final : public Controller {
 public:
  APIServerStandInController(APIServerStandInOptions options, ProcessLauncher launcher)
      : options_(std::move(options)), launcher_(std::move(launcher)) {}

  std::string name() const override { return "k8s.APIServerStandInController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

  // The nginx configuration for `dir` (its files) listening on `listen` (host:port, or a port).
  static std::string nginx_config(const std::string& dir, const std::string& listen);

 private:
  const APIServerStandInOptions options_;
  const ProcessLauncher launcher_;
  std::unique_ptr<Process> process_;  // only the controller's pass touches these
  std::vector<std::string> names_;    // the SANs of the certificate it serves
  RestartTracker restarts_;
};

}  // namespace cosi::controllers
