// TrustdServer: securityapi.SecurityService on control planes (port 50001, server-only TLS).
// A worker proves it belongs to the cluster with the machine token in metadata `token`
// (compared by hash, in constant time) and sends a CSR for its API server key; it gets back
// a server certificate signed by the OS CA — never a CA, never a client certificate: the
// CSR's requests are checked, and the certificate says only what trustd decides (server
// authentication, the CSR's IP and DNS names, 24 hours, no organisation).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "resources/secrets/certs.h"
#include "security.grpc.pb.h"

namespace cosi::api {

// What trustd signs with; nullopt while the node has no config (then every call is
// UNAVAILABLE).
struct SigningAuthority {
  pki::Certificate ca;
  pki::PrivateKey ca_key;
  std::string token;
};

class TrustdServer final : public securityapi::SecurityService::CallbackService {
 public:
  explicit TrustdServer(std::function<std::optional<SigningAuthority>()> authority) : authority_(std::move(authority)) {}

  grpc::ServerUnaryReactor* Certificate(grpc::CallbackServerContext* ctx, const securityapi::CertificateRequest* req,
                                        securityapi::CertificateResponse* resp) override;

 private:
  std::function<std::optional<SigningAuthority>()> authority_;
};

}  // namespace cosi::api
