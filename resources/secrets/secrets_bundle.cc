#include "resources/secrets/secrets_bundle.h"

#include <openssl/rand.h>
#include <yaml-cpp/yaml.h>

#include "runtime/base/base64.h"
#include "resources/config/yaml_reader.h"

namespace cosi::pki {

namespace {

constexpr auto kCaValidity = std::chrono::duration_cast<std::chrono::seconds>(10 * kYear);

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    std::fprintf(stderr, "cosi: the system random source failed: %s\n", openssl_error().c_str());
    std::abort();
  }
  return out;
}

CertAndKey make_ca(const PrivateKey& key, std::vector<std::string> organizations) {
  return {Certificate::self_signed_ca(key, std::move(organizations), kCaValidity).pem(), key.pem()};
}

Error invalid(const YAML::Node& at, const std::string& path, const std::string& what) {
  return Error(ErrorKind::kInvalidArgument,
               "secrets line " + std::to_string(at.Mark().line + 1) + ": " + path + ": " + what);
}

YAML::Node child(const YAML::Node& node, const char* key) {
  if (node.IsMap()) {
    if (YAML::Node c = node[key]; c.IsDefined()) return c;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

Result<std::string> read_text(const YAML::Node& parent, const char* key, const std::string& path) {
  YAML::Node n = child(parent, key);
  if (!n.IsDefined() || n.IsNull() || !n.IsScalar() || n.Scalar().empty()) {
    return invalid(n.IsDefined() ? n : parent, path, "missing");
  }
  return n.Scalar();
}

Result<std::string> read_pem(const YAML::Node& parent, const char* key, const std::string& path) {
  auto text = read_text(parent, key, path);
  if (!text.ok()) return text;
  auto pem = base64_decode(*text);
  if (!pem) return invalid(child(parent, key), path, "is not base64");
  return *pem;
}

Result<CertAndKey> read_pair(const YAML::Node& certs, const char* name) {
  const std::string path = std::string("certs.") + name;
  YAML::Node node = child(certs, name);
  auto crt = read_pem(node, "crt", path + ".crt");
  if (!crt.ok()) return crt.error();
  auto key = read_pem(node, "key", path + ".key");
  if (!key.ok()) return key.error();
  auto cert = Certificate::parse(*crt);
  if (!cert.ok()) return invalid(child(node, "crt"), path + ".crt", cert.error().message());
  auto private_key = PrivateKey::parse(*key);
  if (!private_key.ok()) return invalid(child(node, "key"), path + ".key", private_key.error().message());
  if (!cert->matches(*private_key)) return invalid(child(node, "key"), path + ".key", "does not belong to " + path + ".crt");
  return CertAndKey{std::move(*crt), std::move(*key)};
}

void emit_pair(YAML::Emitter& out, const char* name, const CertAndKey& pair) {
  out << YAML::Key << name << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "crt" << YAML::Value << base64_encode(pair.crt);
  out << YAML::Key << "key" << YAML::Value << base64_encode(pair.key);
  out << YAML::EndMap;
}

}  // namespace

std::string random_token() {
  static constexpr char kAlphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string bytes = random_bytes(22);
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 6) out += '.';
    // 252 = 7 * 36: reject the bias-inducing tail by folding it away through a fresh byte.
    unsigned char b = static_cast<unsigned char>(bytes[i]);
    while (b >= 252) b = static_cast<unsigned char>(random_bytes(1)[0]);
    out += kAlphabet[b % 36];
  }
  return out;
}

std::string random_base64(size_t bytes) { return base64_encode(random_bytes(bytes)); }

SecretsBundle SecretsBundle::generate() {
  SecretsBundle b;
  b.cluster_id = random_base64(32);
  b.cluster_secret = random_base64(32);
  b.bootstrap_token = random_token();
  b.secretbox_secret = random_base64(32);
  b.trustd_token = random_token();
  b.os = make_ca(PrivateKey::ed25519(), {"talos"});
  b.etcd = make_ca(PrivateKey::ecdsa_p256(), {"etcd"});
  b.k8s = make_ca(PrivateKey::ecdsa_p256(), {"kubernetes"});
  b.k8s_aggregator = make_ca(PrivateKey::ecdsa_p256(), {});
  b.k8s_service_account_key = PrivateKey::rsa(4096).pem();
  return b;
}

Result<SecretsBundle> SecretsBundle::parse(std::string_view yaml) {
  YAML::Node doc;
  try {
    doc = config::load_yaml_document(yaml);
  } catch (const YAML::Exception& e) {
    return Error(ErrorKind::kInvalidArgument, "secrets line " + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  if (!doc.IsMap()) return invalid(doc, "(document)", "expected a mapping");
  SecretsBundle b;
  auto take = [](std::string& into, Result<std::string> r) -> Status {
    if (!r.ok()) return r.error();
    into = std::move(*r);
    return {};
  };
  const YAML::Node cluster = child(doc, "cluster");
  const YAML::Node secrets = child(doc, "secrets");
  const YAML::Node trustd = child(doc, "trustdinfo");
  const YAML::Node certs = child(doc, "certs");
  for (auto s : {take(b.cluster_id, read_text(cluster, "id", "cluster.id")),
                 take(b.cluster_secret, read_text(cluster, "secret", "cluster.secret")),
                 take(b.bootstrap_token, read_text(secrets, "bootstraptoken", "secrets.bootstraptoken")),
                 take(b.secretbox_secret, read_text(secrets, "secretboxencryptionsecret", "secrets.secretboxencryptionsecret")),
                 take(b.trustd_token, read_text(trustd, "token", "trustdinfo.token")),
                 take(b.k8s_service_account_key, read_pem(child(certs, "k8sserviceaccount"), "key", "certs.k8sserviceaccount.key"))}) {
    if (!s.ok()) return s.error();
  }
  struct Pair {
    const char* name;
    CertAndKey* into;
  };
  for (auto [name, into] : {Pair{"os", &b.os}, Pair{"etcd", &b.etcd}, Pair{"k8s", &b.k8s}, Pair{"k8saggregator", &b.k8s_aggregator}}) {
    auto pair = read_pair(certs, name);
    if (!pair.ok()) return pair.error();
    *into = std::move(*pair);
  }
  return b;
}

std::string SecretsBundle::yaml() const {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap << YAML::Key << "id" << YAML::Value << cluster_id
      << YAML::Key << "secret" << YAML::Value << cluster_secret << YAML::EndMap;
  out << YAML::Key << "secrets" << YAML::Value << YAML::BeginMap << YAML::Key << "bootstraptoken" << YAML::Value
      << bootstrap_token << YAML::Key << "secretboxencryptionsecret" << YAML::Value << secretbox_secret << YAML::EndMap;
  out << YAML::Key << "trustdinfo" << YAML::Value << YAML::BeginMap << YAML::Key << "token" << YAML::Value
      << trustd_token << YAML::EndMap;
  out << YAML::Key << "certs" << YAML::Value << YAML::BeginMap;
  emit_pair(out, "etcd", etcd);
  emit_pair(out, "k8s", k8s);
  emit_pair(out, "k8saggregator", k8s_aggregator);
  out << YAML::Key << "k8sserviceaccount" << YAML::Value << YAML::BeginMap << YAML::Key << "key" << YAML::Value
      << base64_encode(k8s_service_account_key) << YAML::EndMap;
  emit_pair(out, "os", os);
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

Result<CertAndKey> SecretsBundle::issue_client(const std::vector<std::string>& roles, std::chrono::seconds validity) const {
  auto ca = Certificate::parse(os.crt);
  if (!ca.ok()) return ca.error();
  auto ca_key = PrivateKey::parse(os.key);
  if (!ca_key.ok()) return ca_key.error();
  auto key = PrivateKey::ed25519();
  auto cert = Certificate::issue(*ca, *ca_key, key.get(),
                                 {.organizations = roles, .usage = Usage::kClient, .validity = validity});
  if (!cert.ok()) return cert.error();
  return CertAndKey{cert->pem(), key.pem()};
}

}  // namespace cosi::pki
