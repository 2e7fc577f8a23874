// X.509 certificates and CSRs for the cluster's PKI (OpenSSL 3 underneath), as Talos makes
// them: CAs with an Organization-only subject, leaves with a usage (server or client), SANs
// and a validity; the roles of an API client in its Subject O=.
//
//   auto ca_key = PrivateKey::ed25519();
//   auto ca = Certificate::self_signed_ca(ca_key, {"talos"}, 10 * kYear);
//   auto admin_key = PrivateKey::ed25519();
//   auto admin = Certificate::issue(ca, ca_key, admin_key.get(),
//                                   {.organizations = {"os:admin"}, .usage = Usage::kClient, .validity = kYear});
//   admin->organizations() == {"os:admin"};  admin->spki_fingerprint()  // base64 SHA-256 of the SPKI
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "resources/secrets/keys.h"

typedef struct x509_st X509;
typedef struct X509_req_st X509_REQ;

namespace cosi::pki {

inline constexpr std::chrono::hours kDay{24};
inline constexpr std::chrono::hours kYear{24 * 365};

enum class Usage { kServer, kClient, kServerAndClient };

struct CertificateSpec {
  std::string common_name;
  std::vector<std::string> organizations;
  std::vector<std::string> ips;  // IP SANs, as text
  std::vector<std::string> dns;  // DNS SANs
  Usage usage = Usage::kServer;
  std::chrono::seconds validity = kDay;
  std::chrono::seconds backdate{0};  // not before = now - backdate (tests make expired ones)
};

class Certificate {
 public:
  static Certificate self_signed_ca(const PrivateKey& key, std::vector<std::string> organizations,
                                    std::chrono::seconds validity);
  // A leaf for `subject_key` signed by this CA. kInvalidArgument for a SAN that is not an IP.
  static Result<Certificate> issue(const Certificate& ca, const PrivateKey& ca_key, EVP_PKEY* subject_key,
                                   const CertificateSpec& spec);
  // The first certificate in `pem`.
  static Result<Certificate> parse(std::string_view pem);

  std::string pem() const;
  std::string common_name() const;
  std::vector<std::string> organizations() const;
  std::vector<std::string> ips() const;
  std::vector<std::string> dns() const;
  // True when `key` is the private half of this certificate's public key.
  bool matches(const PrivateKey& key) const;
  bool is_ca() const;
  bool server_auth() const;
  bool client_auth() const;
  // True when ExtKeyUsage lists ClientAuth and nothing else.
  bool client_auth_only() const;
  std::chrono::system_clock::time_point not_before() const;
  std::chrono::system_clock::time_point not_after() const;
  // base64 (standard, padded) of SHA-256 over the DER SubjectPublicKeyInfo — what
  // `--cert-fingerprint` compares.
  std::string spki_fingerprint() const;
  // Signed by `ca` (its key checks the signature) and within its validity at `now`.
  Status verify_issued_by(const Certificate& ca, std::chrono::system_clock::time_point now) const;

  X509* get() const { return cert_.get(); }

 private:
  struct Free {
    void operator()(X509* x) const;
  };
  explicit Certificate(X509* x) : cert_(x, Free()) {}

  std::shared_ptr<X509> cert_;
};

// A certificate signing request: what a worker sends trustd.
class CertificateRequest {
 public:
  static CertificateRequest create(const PrivateKey& key, const std::string& common_name,
                                   const std::vector<std::string>& ips, const std::vector<std::string>& dns);
  static Result<CertificateRequest> parse(std::string_view pem);

  std::string pem() const;
  std::string common_name() const;
  std::vector<std::string> ips() const;
  std::vector<std::string> dns() const;
  // What it asks for beyond a server certificate: a CA, or client authentication.
  bool asks_for_ca() const;
  bool asks_for_client_auth() const;
  bool signature_valid() const;
  // The requester's public key (owned by the request).
  EVP_PKEY* public_key() const;

 private:
  struct Free {
    void operator()(X509_REQ* r) const;
  };
  explicit CertificateRequest(X509_REQ* r) : req_(r, Free()) {}

  std::shared_ptr<X509_REQ> req_;
};

}  // namespace cosi::pki
