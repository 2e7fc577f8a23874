// trustd over real gRPC with server-only TLS on loopback (127.21.1.x): a worker's CSR signed by
// the token, and every way a caller can be refused.
#include <grpcpp/grpcpp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <catch2/catch.hpp>

#include <atomic>

#include "api/trustd/trustd_client.h"
#include "api/trustd/trustd_server.h"

namespace cosi::api {
namespace {

using Catch::Matchers::Contains;

struct Trustd {
  pki::PrivateKey ca_key = pki::PrivateKey::ed25519();
  pki::Certificate ca = pki::Certificate::self_signed_ca(ca_key, {"talos"}, pki::kYear);
  std::atomic<bool> configured{true};
  TrustdServer service{[this]() -> std::optional<SigningAuthority> {
    if (!configured) return std::nullopt;
    return SigningAuthority{ca, ca_key, "abcdef.0123456789abcdef"};
  }};
  std::unique_ptr<grpc::Server> server;
  int port = 0;

  Trustd() {
    auto key = pki::PrivateKey::ed25519();
    auto crt = pki::Certificate::issue(ca, ca_key, key.get(), {.ips = {"127.21.1.1"}, .usage = pki::Usage::kServer});
    grpc::SslServerCredentialsOptions tls(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
    tls.pem_key_cert_pairs.push_back({key.pem(), crt->pem()});
    grpc::ServerBuilder b;
    b.AddListeningPort("127.21.1.1:0", grpc::SslServerCredentials(tls), &port);
    b.RegisterService(&service);
    server = b.BuildAndStart();
    REQUIRE(port != 0);
  }
  ~Trustd() { server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2)); }

  Result<SignedCertificate> ask(const std::string& token, const std::string& csr, const std::string& ca_pem = "") {
    return request_certificate({"127.21.1.1", port}, token, csr, ca_pem.empty() ? ca.pem() : ca_pem, std::chrono::seconds(5));
  }
};

// A CSR that asks for more than a server certificate, made with OpenSSL directly.
std::string csr_with(const pki::PrivateKey& key, int nid, const char* value) {
  X509_REQ* r = X509_REQ_new();
  X509_REQ_set_pubkey(r, key.get());
  STACK_OF(X509_EXTENSION)* exts = sk_X509_EXTENSION_new_null();
  sk_X509_EXTENSION_push(exts, X509V3_EXT_conf_nid(nullptr, nullptr, nid, value));
  X509_REQ_add_extensions(r, exts);
  sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
  X509_REQ_sign(r, key.get(), nullptr);
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509_REQ(bio, r);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  X509_REQ_free(r);
  return out;
}

}  // namespace

TEST_CASE("trustd signs a worker's CSR as a server certificate", "[trustd]") {
  Trustd t;
  auto key = pki::PrivateKey::ed25519();
  auto csr = pki::CertificateRequest::create(key, "worker-1", {"127.21.1.5"}, {"worker-1"});
  auto signed_cert = t.ask("abcdef.0123456789abcdef", csr.pem());
  REQUIRE(signed_cert.ok());
  CHECK(signed_cert->ca == t.ca.pem());
  auto cert = pki::Certificate::parse(signed_cert->crt);
  REQUIRE(cert.ok());
  CHECK(cert->verify_issued_by(t.ca, std::chrono::system_clock::now()).ok());
  CHECK(cert->matches(key));
  CHECK(cert->server_auth());
  CHECK_FALSE(cert->client_auth());
  CHECK_FALSE(cert->is_ca());
  CHECK(cert->organizations().empty());
  CHECK(cert->ips() == std::vector<std::string>{"127.21.1.5"});
  CHECK(cert->dns() == std::vector<std::string>{"worker-1"});
  CHECK(cert->not_after() - cert->not_before() <= pki::kDay + std::chrono::seconds(1));
}

TEST_CASE("trustd refuses a wrong token and CSRs asking for a CA or client authentication", "[trustd]") {
  Trustd t;
  auto key = pki::PrivateKey::ed25519();
  auto csr = pki::CertificateRequest::create(key, "worker-1", {"127.21.1.5"}, {});
  auto wrong = t.ask("zzzzzz.0123456789abcdef", csr.pem());
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().kind() == ErrorKind::kPermissionDenied);
  CHECK_THAT(wrong.error().message(), Contains("not this cluster's machine token"));
  auto none = t.ask("", csr.pem());
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().kind() == ErrorKind::kPermissionDenied);

  auto ca_csr = t.ask("abcdef.0123456789abcdef", csr_with(key, NID_basic_constraints, "critical,CA:TRUE"));
  REQUIRE_FALSE(ca_csr.ok());
  CHECK(ca_csr.error().kind() == ErrorKind::kPermissionDenied);
  CHECK_THAT(ca_csr.error().message(), Contains("asks for a CA"));
  auto client_csr = t.ask("abcdef.0123456789abcdef", csr_with(key, NID_ext_key_usage, "clientAuth"));
  REQUIRE_FALSE(client_csr.ok());
  CHECK(client_csr.error().kind() == ErrorKind::kPermissionDenied);
  CHECK_THAT(client_csr.error().message(), Contains("client authentication"));
  auto garbage = t.ask("abcdef.0123456789abcdef", "not a csr");
  REQUIRE_FALSE(garbage.ok());
  CHECK(garbage.error().kind() == ErrorKind::kInvalidArgument);
}

TEST_CASE("trustd without a config is unavailable; a trustd of another CA is not trusted", "[trustd]") {
  Trustd t;
  auto key = pki::PrivateKey::ed25519();
  auto csr = pki::CertificateRequest::create(key, "w", {}, {});
  t.configured = false;
  auto r = t.ask("abcdef.0123456789abcdef", csr.pem());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind() == ErrorKind::kUnavailable);
  t.configured = true;
  auto other = pki::Certificate::self_signed_ca(pki::PrivateKey::ed25519(), {"talos"}, pki::kYear);
  auto untrusted = t.ask("abcdef.0123456789abcdef", csr.pem(), other.pem());
  REQUIRE_FALSE(untrusted.ok());
  CHECK(untrusted.error().kind() == ErrorKind::kUnavailable);
}

}  // namespace cosi::api
