// Authenticator: who is calling, from what the TLS handshake proved. Free of gRPC so every
// case is a plain unit test; the front hands it the peer certificate and metadata.
//
//   mutual TLS    the client certificate must be signed by the OS CA, be within its
//                 validity, and have ExtKeyUsage ClientAuth only; roles are its Subject O=
//                 values. os:impersonator (another node forwarding) passes its caller's roles
//                 in `talos-role` metadata.
//   maintenance   no client certificates: every caller is os:reader (ApplyConfiguration is
//                 let through by the front until a config is applied).
//   insecure dev  plaintext on loopback (--insecure-dev): every caller is os:admin.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/auth/roles.h"
#include "resources/secrets/certs.h"

namespace cosi::api::auth {

struct Caller {
  Roles roles;
  std::string name;  // the certificate's common name or organizations, for logs
  bool forwarded = false;  // roles came from an impersonating node
};

class Authenticator {
 public:
  static Authenticator mutual_tls(pki::Certificate os_ca);
  static Authenticator maintenance();
  static Authenticator insecure_dev();

  // kUnauthenticated naming what is wrong with the certificate.
  Result<Caller> authenticate(std::string_view peer_certificate_pem, const std::vector<std::string>& talos_roles,
                              std::chrono::system_clock::time_point now) const;

  bool is_maintenance() const { return kind_ == Kind::kMaintenance; }

 private:
  enum class Kind { kMutualTls, kMaintenance, kInsecureDev };
  Authenticator(Kind kind, std::optional<pki::Certificate> ca) : kind_(kind), ca_(std::move(ca)) {}

  Kind kind_;
  std::optional<pki::Certificate> ca_;
};

}  // namespace cosi::api::auth
