#include "controllers/etcd/etcd_certificate_controller.h"

#include <arpa/inet.h>

#include <algorithm>
#include <set>

#include "controllers/config/applied_config.h"
#include "resources/common/ip.h"
#include "resources/network/network_resources.h"
#include "resources/secrets/certs.h"
#include "resources/secrets/secrets_resources.h"

namespace cosi::controllers {

using namespace cosi::resources;

namespace {

const Pointer kAddresses{kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)};
const Pointer kHostname{kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)};
const Pointer kOutput{kSecretsNamespace, kEtcdCertsType, std::string(kEtcdCertsId)};
constexpr std::chrono::seconds kValidity = std::chrono::duration_cast<std::chrono::seconds>(pki::kYear);

// Signed by `ca`, for exactly these names, not expiring within a month.
bool still_good(const std::string& crt, const pki::Certificate& ca, const std::vector<std::string>& ips,
                const std::vector<std::string>& dns) {
  auto cert = pki::Certificate::parse(crt);
  if (!cert.ok()) return false;
  const auto now = std::chrono::system_clock::now();
  if (!cert->verify_issued_by(ca, now).ok() || cert->not_after() - now < std::chrono::hours(24 * 30)) return false;
  auto have_ips = cert->ips();
  auto have_dns = cert->dns();
  std::sort(have_ips.begin(), have_ips.end());
  std::sort(have_dns.begin(), have_dns.end());
  return have_ips == ips && have_dns == dns;
}

}  // namespace

std::vector<Input> EtcdCertificateController::inputs() const {
  return {applied_config_input(),
          {kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)},
          {kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)}};
}

std::vector<Output> EtcdCertificateController::outputs() const { return {{kEtcdCertsType}}; }

ReconcileResult EtcdCertificateController::reconcile(ControllerContext& ctx) {
  auto cfg = applied_config(ctx);
  if (!cfg.ok()) return ReconcileResult::terminal(cfg.error());
  if (!*cfg || (*cfg)->type != config::MachineType::kControlPlane) return ReconcileResult::done();
  auto addresses = ctx.get_typed<NodeAddressSpec>(kAddresses);
  auto hostname = ctx.get_typed<HostnameStatusSpec>(kHostname);
  if (!addresses.ok() || !hostname.ok()) return ReconcileResult::done();

  std::set<std::string> ip_set{"127.0.0.1"};
  for (const auto& a : (*addresses)->spec().addresses()) ip_set.insert(ip_text(a.ip()));
  ip_set.erase("");
  const std::string host = (*hostname)->spec().hostname();
  std::set<std::string> dns_set{"localhost"};
  if (!host.empty()) dns_set.insert(host);
  const std::vector<std::string> ips(ip_set.begin(), ip_set.end()), dns(dns_set.begin(), dns_set.end());

  const auto& etcd_ca = (*cfg)->etcd.ca;
  auto ca = pki::Certificate::parse(etcd_ca.crt);
  if (!ca.ok()) return ReconcileResult::terminal(Error(ErrorKind::kInvalidArgument, "cluster.etcd.ca.crt: " + ca.error().message()));
  if (auto current = ctx.get_typed<EtcdCertsSpec>(kOutput); current.ok()) {
    const auto& s = (*current)->spec();
    if (s.ca() == etcd_ca.crt && still_good(s.etcd().crt(), *ca, ips, dns) && still_good(s.etcd_peer().crt(), *ca, ips, dns)) {
      if (auto k = ctx.keep(kOutput); !k.ok()) return ReconcileResult::retry(k.error());
      return ReconcileResult::done();
    }
  }
  auto ca_key = pki::PrivateKey::parse(etcd_ca.key);
  if (!ca_key.ok()) return ReconcileResult::terminal(Error(ErrorKind::kInvalidArgument, "cluster.etcd.ca.key: " + ca_key.error().message()));

  struct Issued {
    std::string crt, key;
  };
  auto issue = [&](pki::Usage usage, const std::string& cn, bool with_names) -> Result<Issued> {
    auto key = pki::PrivateKey::ecdsa_p256();
    auto cert = pki::Certificate::issue(*ca, *ca_key, key.get(),
                                        {.common_name = cn,
                                         .ips = with_names ? ips : std::vector<std::string>{},
                                         .dns = with_names ? dns : std::vector<std::string>{},
                                         .usage = usage,
                                         .validity = kValidity});
    if (!cert.ok()) return cert.error();
    return Issued{cert->pem(), key.pem()};
  };
  auto server = issue(pki::Usage::kServerAndClient, host, true);
  auto peer = issue(pki::Usage::kServerAndClient, host, true);
  auto admin = issue(pki::Usage::kClient, "machined", false);
  if (!server.ok()) return ReconcileResult::terminal(server.error());
  if (!peer.ok()) return ReconcileResult::terminal(peer.error());
  if (!admin.ok()) return ReconcileResult::terminal(admin.error());
  auto written = ctx.modify<EtcdCertsSpec>(Metadata(kSecretsNamespace, kEtcdCertsType, std::string(kEtcdCertsId)), [&](EtcdCertsSpec& s) {
    s.Clear();
    s.set_ca(etcd_ca.crt);
    s.mutable_etcd()->set_crt(server->crt);
    s.mutable_etcd()->set_key(server->key);
    s.mutable_etcd_peer()->set_crt(peer->crt);
    s.mutable_etcd_peer()->set_key(peer->key);
    s.mutable_etcd_admin()->set_crt(admin->crt);
    s.mutable_etcd_admin()->set_key(admin->key);
  });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  ctx.log().info("etcd certificates issued", {{"sans", std::to_string(ips.size() + dns.size())}});
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
