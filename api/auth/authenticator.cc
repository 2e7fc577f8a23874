#include "api/auth/authenticator.h"

namespace cosi::api::auth {

Authenticator Authenticator::mutual_tls(pki::Certificate os_ca) { return Authenticator(Kind::kMutualTls, std::move(os_ca)); }
Authenticator Authenticator::maintenance() { return Authenticator(Kind::kMaintenance, std::nullopt); }
Authenticator Authenticator::insecure_dev() { return Authenticator(Kind::kInsecureDev, std::nullopt); }

Result<Caller> Authenticator::authenticate(std::string_view peer_certificate_pem, const std::vector<std::string>& talos_roles,
                                           std::chrono::system_clock::time_point now) const {
  switch (kind_) {
    case Kind::kMaintenance:
      return Caller{Roles{Role::kReader}, "maintenance client"};
    case Kind::kInsecureDev:
      return Caller{Roles{Role::kAdmin}, "insecure-dev client"};
    case Kind::kMutualTls:
      break;
  }
  auto unauthenticated = [](const std::string& why) { return Error(ErrorKind::kUnauthenticated, why); };
  if (peer_certificate_pem.empty()) {
    return unauthenticated("no client certificate: this node requires one signed by the cluster's OS CA (see talosconfig)");
  }
  auto cert = pki::Certificate::parse(peer_certificate_pem);
  if (!cert.ok()) return unauthenticated("the client certificate cannot be read: " + cert.error().message());
  if (auto s = cert->verify_issued_by(*ca_, now); !s.ok()) {
    if (now > cert->not_after()) return unauthenticated("the client certificate expired");
    if (now < cert->not_before()) return unauthenticated("the client certificate is not valid yet");
    return unauthenticated("the client certificate is not signed by this cluster's OS CA");
  }
  if (!cert->client_auth_only()) {
    return unauthenticated("the client certificate's extended key usage must be client authentication only");
  }
  Caller caller;
  caller.roles = parse_roles(cert->organizations());
  caller.name = cert->common_name().empty() ? caller.roles.to_string() : cert->common_name();
  if (caller.roles.has(Role::kImpersonator) && !talos_roles.empty()) {
    caller.roles = parse_roles(talos_roles);
    caller.forwarded = true;
  }
  if (caller.roles.empty()) return Error(ErrorKind::kPermissionDenied, "the client certificate carries no role (Subject O=os:...)");
  return caller;
}

}  // namespace cosi::api::auth
