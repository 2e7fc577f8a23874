#include "controllers/etcd/etcd_view.h"

#include <arpa/inet.h>

#include "resources/common/ip.h"
#include "resources/k8s/k8s_resources.h"

namespace cosi::controllers {

using namespace cosi::resources;

namespace {
std::string host_port(const std::string& ip, int port) {
  return (ip.find(':') != std::string::npos ? "[" + ip + "]" : ip) + ":" + std::to_string(port);
}
}  // namespace

std::vector<Input> etcd_view_inputs() {
  return {{kEtcdNamespace, kEtcdSpecType, std::string(kEtcdSpecId)},
          {kSecretsNamespace, kEtcdCertsType, std::string(kEtcdCertsId)},
          {kControlPlaneNamespace, kEndpointType, std::string(kDiscoveredEndpointsId)}};
}

std::optional<EtcdView> read_etcd_view(ControllerReader& ctx, int client_port, int peer_port) {
  auto spec = ctx.get_typed<EtcdSpecSpec>({kEtcdNamespace, kEtcdSpecType, std::string(kEtcdSpecId)});
  auto certs = ctx.get_typed<EtcdCertsSpec>({kSecretsNamespace, kEtcdCertsType, std::string(kEtcdCertsId)});
  if (!spec.ok() || !certs.ok() || (*spec)->spec().advertised_addresses_size() == 0) return std::nullopt;
  const auto& s = (*spec)->spec();
  EtcdView v;
  v.name = s.name();
  v.ip = ip_text(s.advertised_addresses(0).ip());
  v.peer_url = "https://" + host_port(v.ip, peer_port);
  v.client_url = "https://" + host_port(v.ip, client_port);
  v.self = host_port(v.ip, client_port);
  for (const auto& a : s.listen_client_addresses()) v.listen_ips.push_back(ip_text(a.ip()));
  if (v.listen_ips.empty()) v.listen_ips.push_back(v.ip);
  for (const auto& [k, values] : s.extra_args()) {
    for (const auto& value : values.values()) v.extra_args.emplace_back(k, value);
  }
  v.certs = (*certs)->spec();
  v.tls = {v.certs.ca(), v.certs.etcd_admin().crt(), v.certs.etcd_admin().key()};
  auto endpoints = ctx.get_typed<EndpointSpec>({kControlPlaneNamespace, kEndpointType, std::string(kDiscoveredEndpointsId)});
  if (endpoints.ok()) {
    for (const auto& a : (*endpoints)->spec().addresses()) {
      const std::string ip = ip_text(a.ip());
      if (!ip.empty() && ip != v.ip) v.peers.push_back(host_port(ip, client_port));
    }
  }
  return v;
}

std::string endpoint_of(const std::string& url) {
  const auto scheme = url.find("://");
  return scheme == std::string::npos ? url : url.substr(scheme + 3);
}

}  // namespace cosi::controllers
