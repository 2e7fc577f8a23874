// A Talos v1alpha1 machine config, parsed and validated: the keys machined acts on as typed
// fields, every other key Talos defines accepted with one warning, and a key Talos does not
// define refused. Errors name the line and the YAML path.
//
//   auto loaded = parse_machine_config(text);
//   if (!loaded.ok()) ...      // "line 12: machine.network.interfaces[0].vip.ip: \"10.5\" is not an IP address"
//   loaded->config.type == MachineType::kControlPlane;
//   loaded->warnings          // {"line 40: machine.kubelet: a Talos key machined does not act on; ignored", ...}
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::config {

enum class MachineType { kControlPlane, kWorker };

std::string_view to_string(MachineType type);  // "controlplane" | "worker"

// PEM text (the config carries it base64-encoded). A worker's OS CA has no key.
struct CertificateAndKey {
  std::string crt;
  std::string key;

  friend bool operator==(const CertificateAndKey&, const CertificateAndKey&) = default;
};

// An http(s) URL split into what we dial.
struct Url {
  std::string text;    // as written
  std::string scheme;  // "https" | "http"
  std::string host;    // without brackets for IPv6
  int port = 0;        // 0 when the URL names none

  friend bool operator==(const Url&, const Url&) = default;
};

struct NetworkInterface {
  std::string name;                                    // `interface`
  std::map<std::string, std::string> device_selector;  // `deviceSelector`, when selected by properties
  std::vector<std::string> addresses;                  // CIDRs
  std::string vip;                                     // `vip.ip`

  friend bool operator==(const NetworkInterface&, const NetworkInterface&) = default;
};

struct EtcdConfig {
  CertificateAndKey ca;
  std::vector<std::string> advertised_subnets;  // CIDRs, "!" in front excludes
  std::vector<std::string> listen_subnets;
  std::map<std::string, std::string> extra_args;

  friend bool operator==(const EtcdConfig&, const EtcdConfig&) = default;
};

struct MachineConfig {
  MachineType type = MachineType::kWorker;
  std::string token;
  CertificateAndKey ca;
  std::vector<std::string> cert_sans;
  std::string install_disk;  // machine.install.disk: checked against the node's Disks on apply
  std::string hostname;
  std::vector<NetworkInterface> interfaces;
  bool kubeprism_enabled = false;
  int kubeprism_port = 7445;

  std::string cluster_name;
  std::string cluster_id;
  std::string cluster_secret;
  Url control_plane_endpoint;
  CertificateAndKey kubernetes_ca;  // cluster.ca: the key only in control-plane configs
  bool discovery_enabled = false;
  bool discovery_service_disabled = false;
  std::string discovery_service_endpoint;  // empty: no discovery client (we never dial out by default)
  EtcdConfig etcd;

  friend bool operator==(const MachineConfig&, const MachineConfig&) = default;
};

struct LoadedConfig {
  MachineConfig config;
  std::vector<std::string> warnings;
};

// Parses a config (one v1alpha1 document, possibly beside other documents, which are
// reported as warnings). kInvalidArgument naming line and path for anything wrong.
Result<LoadedConfig> parse_machine_config(std::string_view yaml);

// "https://host:port" checks shared by the config and the CLI: kInvalidArgument unless an
// http(s) URL with a host and, when given, a port in 1..65535.
Result<Url> parse_url(std::string_view text);

}  // namespace cosi::config
