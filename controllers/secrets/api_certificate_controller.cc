#include "controllers/secrets/api_certificate_controller.h"

#include <arpa/inet.h>

#include <algorithm>
#include <set>

#include "resources/config/config_resources.h"
#include "resources/config/machine_config.h"
#include "resources/common/ip.h"
#include "resources/k8s/k8s_resources.h"
#include "resources/network/network_resources.h"
#include "resources/secrets/certs.h"
#include "resources/secrets/secrets_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

namespace {

using namespace cosi::resources;

constexpr auto kValidity = std::chrono::duration_cast<std::chrono::seconds>(pki::kDay);

const Pointer kConfig{kConfigNamespace, kMachineConfigType, std::string(kMachineConfigId)};
const Pointer kAddresses{kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)};
const Pointer kHostname{kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)};
const Pointer kOutput{kSecretsNamespace, kApiCertificatesType, std::string(kApiCertificatesId)};
const Pointer kControlPlanes{kControlPlaneNamespace, kEndpointType, std::string(kDiscoveredEndpointsId)};

// Where a worker asks for its certificate: every control plane discovery knows, then the host of
// the cluster endpoint (which may be a VIP that is not up before etcd is).
std::vector<std::string> trustd_hosts(ControllerContext& ctx, const config::MachineConfig& cfg) {
  std::vector<std::string> hosts;
  if (auto discovered = ctx.get_typed<EndpointSpec>(kControlPlanes); discovered.ok()) {
    for (const auto& a : (*discovered)->spec().addresses()) hosts.push_back(ip_text(a.ip()));
  }
  if (std::find(hosts.begin(), hosts.end(), cfg.control_plane_endpoint.host) == hosts.end()) {
    hosts.push_back(cfg.control_plane_endpoint.host);
  }
  return hosts;
}

bool is_ip(const std::string& s) {
  unsigned char b[16];
  return inet_pton(AF_INET, s.c_str(), b) == 1 || inet_pton(AF_INET6, s.c_str(), b) == 1;
}

struct Names {
  std::string common_name;
  std::vector<std::string> ips;
  std::vector<std::string> dns;
};

// A certificate that still serves: signed by `ca`, for exactly these names, more than half
// its life left.
bool still_good(const std::string& crt, const pki::Certificate& ca, const Names* names) {
  auto cert = pki::Certificate::parse(crt);
  if (!cert.ok()) return false;
  const auto now = std::chrono::system_clock::now();
  if (!cert->verify_issued_by(ca, now).ok()) return false;
  if (cert->not_after() - now < (cert->not_after() - cert->not_before()) / 2) return false;
  if (names == nullptr) return true;
  auto ips = cert->ips();
  auto dns = cert->dns();
  std::sort(ips.begin(), ips.end());
  std::sort(dns.begin(), dns.end());
  return ips == names->ips && dns == names->dns;
}

void set_pair(common::PEMEncodedCertificateAndKey* out, const std::string& crt, const std::string& key) {
  out->set_crt(crt);
  out->set_key(key);
}

}  // namespace

std::vector<Input> ApiCertificateController::inputs() const {
  return {{kConfigNamespace, kMachineConfigType, std::string(kMachineConfigId)},
          {kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)},
          {kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)},
          {kControlPlaneNamespace, kEndpointType, std::string(kDiscoveredEndpointsId)}};
}

std::vector<Output> ApiCertificateController::outputs() const { return {{kApiCertificatesType}}; }

ReconcileResult ApiCertificateController::reconcile(ControllerContext& ctx) {
  auto stored = ctx.get_typed<MachineConfigSpec>(kConfig);
  if (!stored.ok()) {
    if (stored.error().is(ErrorKind::kNotFound)) return ReconcileResult::done();  // no config: no certificates
    return ReconcileResult::retry(stored.error());
  }
  auto loaded = config::parse_machine_config((*stored)->spec().document());
  if (!loaded.ok()) return ReconcileResult::terminal(loaded.error());
  const config::MachineConfig& cfg = loaded->config;

  auto addresses = ctx.get_typed<NodeAddressSpec>(kAddresses);
  auto hostname = ctx.get_typed<HostnameStatusSpec>(kHostname);
  if (!addresses.ok() || !hostname.ok()) return ReconcileResult::done();  // woken when they appear

  Names names;
  const auto& h = (*hostname)->spec();
  names.common_name = h.domainname().empty() ? h.hostname() : h.hostname() + "." + h.domainname();
  std::set<std::string> ips, dns;
  for (const auto& a : (*addresses)->spec().addresses()) ips.insert(ip_text(a.ip()));
  if (!h.hostname().empty()) dns.insert(h.hostname());
  if (!h.domainname().empty()) dns.insert(names.common_name);
  for (const auto& san : cfg.cert_sans) (is_ip(san) ? ips : dns).insert(san);
  ips.erase("");
  names.ips.assign(ips.begin(), ips.end());
  names.dns.assign(dns.begin(), dns.end());

  auto ca = pki::Certificate::parse(cfg.ca.crt);
  if (!ca.ok()) return ReconcileResult::terminal(Error(ErrorKind::kInvalidArgument, "machine.ca.crt: " + ca.error().message()));
  const bool control_plane = cfg.type == config::MachineType::kControlPlane;

  if (auto current = ctx.get_typed<ApiCertificatesSpec>(kOutput); current.ok()) {
    const auto& spec = (*current)->spec();
    if (spec.ca().crt() == cfg.ca.crt && still_good(spec.server().crt(), *ca, &names) &&
        (!control_plane || still_good(spec.client().crt(), *ca, nullptr))) {
      if (auto s = ctx.keep(kOutput); !s.ok()) return ReconcileResult::retry(s.error());
      return ReconcileResult::requeue_after(std::chrono::hours(1));
    }
  }

  auto server_key = pki::PrivateKey::ed25519();
  std::string server_crt;
  std::string client_crt, client_key;
  if (control_plane) {
    auto ca_key = pki::PrivateKey::parse(cfg.ca.key);
    if (!ca_key.ok()) return ReconcileResult::terminal(Error(ErrorKind::kInvalidArgument, "machine.ca.key: " + ca_key.error().message()));
    auto server = pki::Certificate::issue(*ca, *ca_key, server_key.get(),
                                          {.common_name = names.common_name, .ips = names.ips, .dns = names.dns,
                                           .usage = pki::Usage::kServer, .validity = kValidity});
    if (!server.ok()) return ReconcileResult::terminal(server.error());
    server_crt = server->pem();
    auto forwarding_key = pki::PrivateKey::ed25519();
    auto client = pki::Certificate::issue(*ca, *ca_key, forwarding_key.get(),
                                          {.common_name = names.common_name, .organizations = {"os:impersonator"},
                                           .usage = pki::Usage::kClient, .validity = kValidity});
    if (!client.ok()) return ReconcileResult::terminal(client.error());
    client_crt = client->pem();
    client_key = forwarding_key.pem();
  } else {
    auto csr = pki::CertificateRequest::create(server_key, names.common_name, names.ips, names.dns);
    Error last(ErrorKind::kUnavailable, "no control plane to ask");
    for (const auto& host : trustd_hosts(ctx, cfg)) {
      auto issued = signer_(TrustdRequest{host, trustd_port_, cfg.token, csr.pem(), cfg.ca.crt});
      if (!issued.ok()) {
        last = issued.error();
        continue;
      }
      auto cert = pki::Certificate::parse(issued->crt_pem);
      if (!cert.ok() || !cert->verify_issued_by(*ca, std::chrono::system_clock::now()).ok() || !cert->matches(server_key)) {
        last = Error(ErrorKind::kPermissionDenied,
                     "trustd at " + host + " returned a certificate that is not this node's or not signed by the OS CA");
        continue;
      }
      server_crt = issued->crt_pem;
      break;
    }
    if (server_crt.empty()) return ReconcileResult::retry(last);
  }

  auto written = ctx.modify<ApiCertificatesSpec>(Metadata(kSecretsNamespace, kApiCertificatesType, std::string(kApiCertificatesId)),
                                                 [&](ApiCertificatesSpec& s) {
                                                   s.Clear();
                                                   s.mutable_ca()->set_crt(cfg.ca.crt);
                                                   set_pair(s.mutable_server(), server_crt, server_key.pem());
                                                   if (control_plane) set_pair(s.mutable_client(), client_crt, client_key);
                                                 });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  ctx.log().info("API certificates issued", {{"sans", std::to_string(names.ips.size() + names.dns.size())},
                                             {"by", control_plane ? "this control plane" : "trustd"}});
  return ReconcileResult::requeue_after(std::chrono::hours(1));
}

}  // namespace cosi::controllers
