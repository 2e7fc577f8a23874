// Private keys for the cluster's PKI, with OpenSSL 3 underneath: Ed25519 (the OS CA and the API
// certificates, as Talos makes them), ECDSA P-256 (etcd and Kubernetes CAs), RSA (the
// Kubernetes service-account key).
//
//   auto key = PrivateKey::ed25519();
//   std::string pem = key.pem();                          // "-----BEGIN PRIVATE KEY-----..."
//   auto back = PrivateKey::parse(pem);                   // also reads Talos's "ED25519 PRIVATE KEY"
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "runtime/base/result.h"

typedef struct evp_pkey_st EVP_PKEY;

namespace cosi::pki {

class PrivateKey {
 public:
  static PrivateKey ed25519();
  static PrivateKey ecdsa_p256();
  static PrivateKey rsa(int bits);

  // PEM of any of the above. Keys made by Talos's tools carry the label
  // "ED25519 PRIVATE KEY" over PKCS#8, which OpenSSL alone refuses: it is read too.
  static Result<PrivateKey> parse(std::string_view pem);

  // PKCS#8 "PRIVATE KEY" for Ed25519 (the standard label), SEC1 "EC PRIVATE KEY",
  // PKCS#1 "RSA PRIVATE KEY".
  std::string pem() const;
  // The public half as PKIX "PUBLIC KEY" PEM.
  std::string public_pem() const;

  bool is_ed25519() const;
  EVP_PKEY* get() const { return key_.get(); }

 private:
  struct Free {
    void operator()(EVP_PKEY* k) const;
  };
  explicit PrivateKey(EVP_PKEY* key) : key_(key, Free()) {}

  std::shared_ptr<EVP_PKEY> key_;
};

// The OpenSSL error queue as text (and cleared), for messages.
std::string openssl_error();

}  // namespace cosi::pki
