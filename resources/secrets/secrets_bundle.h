// The secrets bundle of a cluster (`gen secrets`): the cluster's identity and shared secret,
// the tokens, and the CAs (OS, etcd, Kubernetes, aggregator) with their keys, in the YAML
// layout talosctl writes (secrets.yaml). Everything a config or a talosconfig needs is derived
// from it.
//
//   auto bundle = SecretsBundle::generate();
//   write(bundle.yaml());
//   auto back = SecretsBundle::parse(text);           // checks every certificate against its key
//   auto admin = bundle.issue_admin_client();         // talosconfig's os:admin certificate
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "resources/secrets/certs.h"

namespace cosi::pki {

struct CertAndKey {
  std::string crt;  // PEM
  std::string key;  // PEM

  friend bool operator==(const CertAndKey&, const CertAndKey&) = default;
};

struct SecretsBundle {
  std::string cluster_id;         // base64 of 32 random bytes
  std::string cluster_secret;     // base64 of 32 random bytes
  std::string bootstrap_token;    // [0-9a-z]{6}.[0-9a-z]{16}
  std::string secretbox_secret;   // base64 of 32 random bytes
  std::string trustd_token;       // machine.token: what nodes present to trustd
  CertAndKey os;                  // Ed25519, O=talos
  CertAndKey etcd;                // P-256, O=etcd
  CertAndKey k8s;                 // P-256, O=kubernetes
  CertAndKey k8s_aggregator;      // P-256
  std::string k8s_service_account_key;  // RSA 4096, PEM

  // Fresh randomness and CAs valid for ten years.
  static SecretsBundle generate();
  // kInvalidArgument naming the key path for a missing value or a certificate and key that do
  // not belong together.
  static Result<SecretsBundle> parse(std::string_view yaml);
  std::string yaml() const;

  // A client certificate for the talosconfig: Ed25519, O=os:admin (or `roles`), ClientAuth
  // only, signed by the OS CA.
  Result<CertAndKey> issue_client(const std::vector<std::string>& roles, std::chrono::seconds validity) const;

  friend bool operator==(const SecretsBundle&, const SecretsBundle&) = default;
};

// "[0-9a-z]{6}.[0-9a-z]{16}" from the system's random source.
std::string random_token();
// base64 of `bytes` random bytes.
std::string random_base64(size_t bytes);

}  // namespace cosi::pki
