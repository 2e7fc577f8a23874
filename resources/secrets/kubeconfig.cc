#include "resources/secrets/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include "resources/secrets/certs.h"
#include "runtime/base/base64.h"

namespace cosi::pki {

Result<std::string> admin_kubeconfig(const KubeconfigInputs& in) {
  auto ca = Certificate::parse(in.ca_crt);
  if (!ca.ok()) return Error(ErrorKind::kInvalidArgument, "cluster.ca.crt: " + ca.error().message());
  auto ca_key = PrivateKey::parse(in.ca_key);
  if (!ca_key.ok()) return Error(ErrorKind::kInvalidArgument, "cluster.ca.key: " + ca_key.error().message());
  auto key = PrivateKey::ecdsa_p256();
  auto crt = Certificate::issue(*ca, *ca_key, key.get(),
                                {.common_name = "admin", .organizations = {"system:masters"}, .usage = Usage::kClient,
                                 .validity = in.validity});
  if (!crt.ok()) return crt.error();
  const std::string user = "admin@" + in.cluster;
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "v1";
  out << YAML::Key << "kind" << YAML::Value << "Config";
  out << YAML::Key << "clusters" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "name" << YAML::Value << in.cluster
      << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap << YAML::Key << "server" << YAML::Value << in.server << YAML::Key
      << "certificate-authority-data" << YAML::Value << base64_encode(in.ca_crt) << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "users" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "name" << YAML::Value << user
      << YAML::Key << "user" << YAML::Value << YAML::BeginMap << YAML::Key << "client-certificate-data" << YAML::Value
      << base64_encode(crt->pem()) << YAML::Key << "client-key-data" << YAML::Value << base64_encode(key.pem()) << YAML::EndMap
      << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "contexts" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "name" << YAML::Value << user
      << YAML::Key << "context" << YAML::Value << YAML::BeginMap << YAML::Key << "cluster" << YAML::Value << in.cluster << YAML::Key
      << "namespace" << YAML::Value << "default" << YAML::Key << "user" << YAML::Value << user << YAML::EndMap << YAML::EndMap
      << YAML::EndSeq;
  out << YAML::Key << "current-context" << YAML::Value << user;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace cosi::pki
