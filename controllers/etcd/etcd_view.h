// What the etcd controllers read from the store, made ready to act on: this member's name and
// URLs, the TLS material, and the other control planes' client endpoints.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controllers/etcd/etcd_client.h"
#include "resources/etcd/etcd_resources.h"
#include "resources/secrets/secrets_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

struct EtcdView {
  std::string name;
  std::string ip;  // the first advertised address, as text
  std::string peer_url;
  std::string client_url;
  std::string self;                // "ip:client_port"
  std::vector<std::string> peers;  // the other control planes, "ip:client_port"
  std::vector<std::string> listen_ips;
  std::vector<std::pair<std::string, std::string>> extra_args;
  EtcdTls tls;  // machined's client certificate
  resources::EtcdCertsSpec certs;
};

// nullopt off control planes, or until the spec and certificates exist.
std::optional<EtcdView> read_etcd_view(ControllerReader& ctx, int client_port, int peer_port);
std::vector<Input> etcd_view_inputs();

// "https://127.5.0.10:2379" → "127.5.0.10:2379".
std::string endpoint_of(const std::string& url);

}  // namespace cosi::controllers
