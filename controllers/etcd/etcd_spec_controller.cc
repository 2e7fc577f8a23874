#include "controllers/etcd/etcd_spec_controller.h"

#include <arpa/inet.h>

#include <cstring>

#include "controllers/config/applied_config.h"
#include "resources/etcd/etcd_resources.h"
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

std::string ip_bytes(const std::string& text) {
  unsigned char b[16];
  if (inet_pton(AF_INET, text.c_str(), b) == 1) return std::string(reinterpret_cast<char*>(b), 4);
  if (inet_pton(AF_INET6, text.c_str(), b) == 1) return std::string(reinterpret_cast<char*>(b), 16);
  return {};
}

// The addresses passing `subnets` ("!cidr" excludes; none given: all) and not a VIP.
std::vector<std::string> pick(const std::vector<std::string>& addresses, const std::vector<std::string>& subnets,
                              const std::vector<std::string>& vips) {
  std::vector<std::string> out;
  for (const auto& ip : addresses) {
    bool included = true, any_include = false;
    for (const auto& s : subnets) {
      if (!s.empty() && s[0] == '!') continue;
      any_include = true;
    }
    if (any_include) {
      included = false;
      for (const auto& s : subnets) {
        if (!s.empty() && s[0] != '!' && in_subnet(ip, s)) included = true;
      }
    }
    for (const auto& s : subnets) {
      if (!s.empty() && s[0] == '!' && in_subnet(ip, s.substr(1))) included = false;
    }
    for (const auto& vip : vips) {
      if (ip_bytes(vip) == ip) included = false;
    }
    if (included) out.push_back(ip);
  }
  return out;
}

}  // namespace

std::vector<Input> EtcdSpecController::inputs() const {
  return {applied_config_input(),
          {kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)},
          {kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)}};
}

std::vector<Output> EtcdSpecController::outputs() const { return {{kEtcdSpecType}}; }

ReconcileResult EtcdSpecController::reconcile(ControllerContext& ctx) {
  auto cfg = applied_config(ctx);
  if (!cfg.ok()) return ReconcileResult::terminal(cfg.error());
  if (!*cfg || (*cfg)->type != config::MachineType::kControlPlane) return ReconcileResult::done();
  auto addresses = ctx.get_typed<NodeAddressSpec>({kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)});
  auto hostname = ctx.get_typed<HostnameStatusSpec>({kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)});
  if (!addresses.ok() || !hostname.ok()) return ReconcileResult::done();
  std::vector<std::string> ips;
  for (const auto& a : (*addresses)->spec().addresses()) ips.push_back(a.ip());
  std::vector<std::string> vips;
  for (const auto& nic : (*cfg)->interfaces) {
    if (!nic.vip.empty()) vips.push_back(nic.vip);
  }
  const auto& etcd = (*cfg)->etcd;
  const auto advertised = pick(ips, etcd.advertised_subnets, vips);
  const auto listen = pick(ips, etcd.listen_subnets, vips);
  auto written = ctx.modify<EtcdSpecSpec>(Metadata(kEtcdNamespace, kEtcdSpecType, std::string(kEtcdSpecId)), [&](EtcdSpecSpec& s) {
    s.Clear();
    s.set_name((*hostname)->spec().hostname());
    for (const auto& ip : advertised) s.add_advertised_addresses()->set_ip(ip);
    for (const auto& ip : listen) {
      s.add_listen_peer_addresses()->set_ip(ip);
      s.add_listen_client_addresses()->set_ip(ip);
    }
    for (const auto& [k, v] : etcd.extra_args) (*s.mutable_extra_args())[k].add_values(v);
  });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
