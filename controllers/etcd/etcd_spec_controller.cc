#include "controllers/etcd/etcd_spec_controller.h"

#include <arpa/inet.h>

#include <cstring>

#include "resources/etcd/etcd_resources.h"
#include "runtime/controller/context.h"
#include "resources/network/network_resources.h"

namespace cosi::controllers {

using namespace cosi::resources;

namespace {

// True when `ip` (4 or 16 bytes) lies in `cidr` ("10.0.0.0/8").
bool in_subnet(const std::string& ip, const std::string& cidr) {
  const auto slash = cidr.find('/');
  unsigned char net[16];
  const std::string host = cidr.substr(0, slash);
  size_t size = 0;
  if (inet_pton(AF_INET, host.c_str(), net) == 1) size = 4;
  else if (inet_pton(AF_INET6, host.c_str(), net) == 1) size = 16;
  if (size != ip.size()) return false;
  int bits = static_cast<int>(size * 8);
  if (slash != std::string::npos) bits = std::atoi(cidr.c_str() + slash + 1);
  for (size_t i = 0; i < size && bits > 0; ++i, bits -= 8) {
    const unsigned char mask = bits >= 8 ? 0xff : static_cast<unsigned char>(0xff << (8 - bits));
    if ((static_cast<unsigned char>(ip[i]) & mask) != (net[i] & mask)) return false;
  }
  return true;
}

// The addresses in one of `valid` (none given: any) and in none of `excluded`.
std::vector<std::string> pick(const std::vector<std::string>& addresses, const std::vector<std::string>& valid,
                              const std::vector<std::string>& excluded) {
  std::vector<std::string> out;
  for (const auto& ip : addresses) {
    bool ok = valid.empty();
    for (const auto& s : valid) ok = ok || in_subnet(ip, s);
    for (const auto& s : excluded) ok = ok && !in_subnet(ip, s);
    if (ok) out.push_back(ip);
  }
  return out;
}

}  // namespace

std::vector<Input> EtcdSpecController::inputs() const {
  return {{kEtcdNamespace, kEtcdConfigType, std::string(kEtcdConfigId)},
          {kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)},
          {kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)}};
}

std::vector<Output> EtcdSpecController::outputs() const { return {{kEtcdSpecType}}; }

ReconcileResult EtcdSpecController::reconcile(ControllerContext& ctx) {
  auto cfg = ctx.get_typed<EtcdConfigSpec>({kEtcdNamespace, kEtcdConfigType, std::string(kEtcdConfigId)});
  if (!cfg.ok()) return ReconcileResult::done();  // not a control plane, or no config yet
  auto addresses = ctx.get_typed<NodeAddressSpec>({kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)});
  auto hostname = ctx.get_typed<HostnameStatusSpec>({kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)});
  if (!addresses.ok() || !hostname.ok()) return ReconcileResult::done();
  std::vector<std::string> ips;
  for (const auto& a : (*addresses)->spec().addresses()) ips.push_back(a.ip());
  const auto& c = (*cfg)->spec();
  const auto advertised = pick(ips, {c.advertise_valid_subnets().begin(), c.advertise_valid_subnets().end()},
                               {c.advertise_exclude_subnets().begin(), c.advertise_exclude_subnets().end()});
  const auto listen = pick(ips, {c.listen_valid_subnets().begin(), c.listen_valid_subnets().end()},
                           {c.listen_exclude_subnets().begin(), c.listen_exclude_subnets().end()});
  auto written = ctx.modify<EtcdSpecSpec>(Metadata(kEtcdNamespace, kEtcdSpecType, std::string(kEtcdSpecId)), [&](EtcdSpecSpec& s) {
    s.Clear();
    s.set_name((*hostname)->spec().hostname());
    for (const auto& ip : advertised) s.add_advertised_addresses()->set_ip(ip);
    for (const auto& ip : listen) {
      s.add_listen_peer_addresses()->set_ip(ip);
      s.add_listen_client_addresses()->set_ip(ip);
    }
    *s.mutable_extra_args() = c.extra_args();
  });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
