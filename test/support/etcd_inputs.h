// What the etcd controllers read, put on a test harness: the EtcdSpec of control plane `name` at
// `ip`, EtcdCerts (placeholder PEM: a fake or plaintext etcd never checks it), and the control
// planes discovery knows.
//
//   put_etcd_inputs(h, "cp-2", "127.5.0.11", {"127.5.0.10", "127.5.0.11", "127.5.0.12"});
#pragma once

#include <arpa/inet.h>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "resources/etcd/etcd_resources.h"
#include "resources/k8s/k8s_resources.h"
#include "resources/secrets/secrets_resources.h"
#include "runtime/testing/harness.h"

namespace cosi::testing {

inline std::string ipv4_bytes(const std::string& text) {
  std::string out(4, '\0');
  inet_pton(AF_INET, text.c_str(), out.data());
  return out;
}

inline void put_etcd_inputs(Harness& h, const std::string& name, const std::string& ip, const std::vector<std::string>& control_planes) {
  using namespace cosi::resources;
  EtcdSpecSpec spec;
  spec.set_name(name);
  spec.add_advertised_addresses()->set_ip(ipv4_bytes(ip));
  REQUIRE(h.put(make_resource(Metadata(kEtcdNamespace, kEtcdSpecType, std::string(kEtcdSpecId)), spec)).ok());
  EtcdCertsSpec certs;
  certs.set_ca("ca");
  certs.mutable_etcd()->set_crt("server");
  certs.mutable_etcd()->set_key("server key");
  certs.mutable_etcd_peer()->set_crt("peer");
  certs.mutable_etcd_peer()->set_key("peer key");
  REQUIRE(h.put(make_resource(Metadata(kSecretsNamespace, kEtcdCertsType, std::string(kEtcdCertsId)), certs)).ok());
  EndpointSpec endpoints;
  for (const auto& cp : control_planes) endpoints.add_addresses()->set_ip(ipv4_bytes(cp));
  REQUIRE(h.put(make_resource(Metadata(kControlPlaneNamespace, kEndpointType, std::string(kDiscoveredEndpointsId)), endpoints)).ok());
}

}  // namespace cosi::testing
