// The secrets namespace's resources: ApiCertificates, what the node's API serves and
// forwards with, and EtcdCerts, etcd's PKI on control planes. Sensitive: os:admin only.
#pragma once

#include <string_view>

#include "resources/talos_yaml_style.h"
#include "runtime/proto/proto_spec.h"
#include "secrets.pb.h"

namespace cosi::resources {

inline constexpr std::string_view kSecretsNamespace = "secrets";

inline constexpr std::string_view kApiCertificatesType = "ApiCertificates.secrets.talos.dev";
inline constexpr std::string_view kApiCertificatesId = "api";

inline constexpr std::string_view kEtcdCertsType = "EtcdCerts.secrets.talos.dev";
inline constexpr std::string_view kEtcdCertsId = "etcd";

using ApiCertificatesSpec = ::talos::resource::definitions::secrets::APICertsSpec;
using EtcdCertsSpec = ::talos::resource::definitions::secrets::EtcdCertsSpec;

}  // namespace cosi::resources

COSI_TALOS_YAML(::talos::resource::definitions::secrets::APICertsSpec);
COSI_TALOS_YAML(::talos::resource::definitions::secrets::EtcdCertsSpec);
