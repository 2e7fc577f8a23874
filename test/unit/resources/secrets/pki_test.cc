#include <catch2/catch.hpp>

#include "resources/secrets/certs.h"
#include "resources/secrets/keys.h"
#include "resources/secrets/secrets_bundle.h"
#include "runtime/base/base64.h"

using namespace cosi;
using namespace cosi::pki;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

TEST_CASE("keys round-trip through PEM, Talos's Ed25519 label included", "[pki]") {
  for (auto key : {PrivateKey::ed25519(), PrivateKey::ecdsa_p256()}) {
    auto back = PrivateKey::parse(key.pem());
    REQUIRE(back.ok());
    CHECK(back->public_pem() == key.public_pem());
  }
  auto ed = PrivateKey::ed25519();
  CHECK_THAT(ed.pem(), StartsWith("-----BEGIN PRIVATE KEY-----"));
  std::string talos = ed.pem();
  talos.replace(talos.find("BEGIN PRIVATE KEY"), 17, "BEGIN ED25519 PRIVATE KEY");
  talos.replace(talos.find("END PRIVATE KEY"), 15, "END ED25519 PRIVATE KEY");
  auto read = PrivateKey::parse(talos);
  REQUIRE(read.ok());
  CHECK(read->is_ed25519());
  CHECK(read->public_pem() == ed.public_pem());
  auto bad = PrivateKey::parse("-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind() == ErrorKind::kInvalidArgument);
}

TEST_CASE("a CA issues leaves with usages, SANs and roles", "[pki]") {
  auto ca_key = PrivateKey::ed25519();
  auto ca = Certificate::self_signed_ca(ca_key, {"talos"}, kYear);
  CHECK(ca.is_ca());
  CHECK(ca.organizations() == std::vector<std::string>{"talos"});
  CHECK(ca.matches(ca_key));
  CHECK_FALSE(ca.matches(PrivateKey::ed25519()));

  auto key = PrivateKey::ed25519();
  auto server = Certificate::issue(ca, ca_key, key.get(),
                                   {.common_name = "cp-1", .ips = {"127.0.5.10", "fd00::1"}, .dns = {"cp-1"}});
  REQUIRE(server.ok());
  CHECK_FALSE(server->is_ca());
  CHECK(server->server_auth());
  CHECK_FALSE(server->client_auth());
  CHECK(server->ips() == std::vector<std::string>{"127.0.5.10", "fd00::1"});
  CHECK(server->dns() == std::vector<std::string>{"cp-1"});
  CHECK(server->common_name() == "cp-1");
  CHECK(server->verify_issued_by(ca, std::chrono::system_clock::now()).ok());

  auto client = Certificate::issue(ca, ca_key, key.get(), {.organizations = {"os:reader"}, .usage = Usage::kClient});
  REQUIRE(client.ok());
  CHECK(client->client_auth_only());
  CHECK(client->organizations() == std::vector<std::string>{"os:reader"});
  CHECK_FALSE(server->client_auth_only());

  auto bad_san = Certificate::issue(ca, ca_key, key.get(), {.ips = {"not-an-ip"}});
  REQUIRE_FALSE(bad_san.ok());
  CHECK_THAT(bad_san.error().message(), Contains("not-an-ip"));
}

TEST_CASE("verification refuses another CA and times outside the validity", "[pki]") {
  auto ca_key = PrivateKey::ed25519();
  auto ca = Certificate::self_signed_ca(ca_key, {"talos"}, kYear);
  auto other_key = PrivateKey::ed25519();
  auto other = Certificate::self_signed_ca(other_key, {"talos"}, kYear);
  auto key = PrivateKey::ecdsa_p256();
  auto leaf = Certificate::issue(ca, ca_key, key.get(), {.usage = Usage::kClient, .validity = kDay});
  REQUIRE(leaf.ok());
  const auto now = std::chrono::system_clock::now();
  CHECK(leaf->verify_issued_by(ca, now).ok());
  CHECK(leaf->verify_issued_by(other, now).error().kind() == ErrorKind::kPermissionDenied);
  CHECK_FALSE(leaf->verify_issued_by(ca, now + 2 * kDay).ok());
  CHECK_FALSE(leaf->verify_issued_by(ca, now - kDay).ok());
  auto expired = Certificate::issue(ca, ca_key, key.get(), {.validity = kDay, .backdate = 2 * kDay});
  REQUIRE(expired.ok());
  CHECK(expired->not_after() < now);
  CHECK_FALSE(expired->verify_issued_by(ca, now).ok());
}

TEST_CASE("the SPKI fingerprint is base64 SHA-256 of the public key, stable across certificates", "[pki]") {
  auto key = PrivateKey::ed25519();
  auto a = Certificate::self_signed_ca(key, {}, kDay);
  auto b = Certificate::self_signed_ca(key, {"x"}, kYear);
  CHECK(a.spki_fingerprint() == b.spki_fingerprint());
  CHECK(a.spki_fingerprint().size() == 44);
  CHECK(base64_decode(a.spki_fingerprint())->size() == 32);
  CHECK(a.spki_fingerprint() != Certificate::self_signed_ca(PrivateKey::ed25519(), {}, kDay).spki_fingerprint());
}

TEST_CASE("CSRs carry their names and are checked for what they ask", "[pki]") {
  auto key = PrivateKey::ed25519();
  auto csr = CertificateRequest::create(key, "worker-1", {"127.0.5.11"}, {"worker-1"});
  auto back = CertificateRequest::parse(csr.pem());
  REQUIRE(back.ok());
  CHECK(back->common_name() == "worker-1");
  CHECK(back->ips() == std::vector<std::string>{"127.0.5.11"});
  CHECK(back->dns() == std::vector<std::string>{"worker-1"});
  CHECK(back->signature_valid());
  CHECK_FALSE(back->asks_for_ca());
  CHECK_FALSE(back->asks_for_client_auth());
  CHECK_FALSE(CertificateRequest::parse("garbage").ok());
}

TEST_CASE("the secrets bundle round-trips through its YAML and checks every pair", "[pki]") {
  auto bundle = SecretsBundle::generate();
  CHECK(bundle.bootstrap_token.size() == 23);
  CHECK(bundle.bootstrap_token[6] == '.');
  CHECK(bundle.trustd_token.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz.") == std::string::npos);
  CHECK(base64_decode(bundle.cluster_id)->size() == 32);
  auto os = Certificate::parse(bundle.os.crt);
  REQUIRE(os.ok());
  CHECK(os->organizations() == std::vector<std::string>{"talos"});
  CHECK(PrivateKey::parse(bundle.os.key)->is_ed25519());
  CHECK(Certificate::parse(bundle.etcd.crt)->organizations() == std::vector<std::string>{"etcd"});

  auto text = bundle.yaml();
  CHECK_THAT(text, Contains("trustdinfo:"));
  CHECK_THAT(text, Contains("k8sserviceaccount:"));
  auto back = SecretsBundle::parse(text);
  REQUIRE(back.ok());
  CHECK(*back == bundle);

  auto admin = bundle.issue_client({"os:admin"}, kYear);
  REQUIRE(admin.ok());
  auto admin_cert = Certificate::parse(admin->crt);
  CHECK(admin_cert->organizations() == std::vector<std::string>{"os:admin"});
  CHECK(admin_cert->client_auth_only());
  CHECK(admin_cert->verify_issued_by(*os, std::chrono::system_clock::now()).ok());

  // Swap the OS key for the etcd one: the pair no longer belongs together.
  std::string mixed = text;
  const std::string os_key = base64_encode(bundle.os.key);
  mixed.replace(mixed.find(os_key), os_key.size(), base64_encode(bundle.etcd.key));
  auto refused = SecretsBundle::parse(mixed);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message(), Contains("certs.os.key: does not belong to certs.os.crt"));
  auto missing = SecretsBundle::parse("cluster: {id: x}\n");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message(), Contains("cluster.secret: missing"));
}
