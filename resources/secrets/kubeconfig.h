// An admin kubeconfig for a cluster, as `talosctl kubeconfig` hands it out: a client
// certificate signed by the Kubernetes CA with O=system:masters (CN admin), the CA itself, and
// the cluster endpoint as the server; cluster, user and context named as Talos names them
// (<cluster>, admin@<cluster>, admin@<cluster>).
//
//   auto yaml = admin_kubeconfig({.cluster = "demo", .server = "https://198.51.100.5:6443",
//                                 .ca_crt = ca_pem, .ca_key = ca_key_pem});
#pragma once

#include <chrono>
#include <string>

#include "runtime/base/result.h"

namespace cosi::pki {

struct KubeconfigInputs {
  std::string cluster;  // cluster.clusterName
  std::string server;   // cluster.controlPlane.endpoint
  std::string ca_crt;   // cluster.ca, PEM
  std::string ca_key;
  std::chrono::seconds validity = std::chrono::hours(24 * 365);
};

Result<std::string> admin_kubeconfig(const KubeconfigInputs& in);

}  // namespace cosi::pki
