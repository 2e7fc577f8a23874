// Asking a control plane's trustd for an API server certificate: what a worker does until one
// answers. The control plane's certificate is checked against the OS CA (not its name: the
// worker knows the cluster endpoint, which may be a VIP or a DNS name the certificate omits).
//
//   auto signed_cert = request_certificate({"127.0.5.10", 50001}, token, csr.pem(), os_ca_pem,
//                                          std::chrono::seconds(5));
#pragma once

#include <chrono>
#include <string>

#include "api/host_port.h"
#include "runtime/base/result.h"

namespace cosi::api {

struct SignedCertificate {
  std::string ca;   // PEM
  std::string crt;  // PEM
};

// kPermissionDenied for a wrong token or a refused CSR, kUnavailable when nothing answers
// within `timeout`.
Result<SignedCertificate> request_certificate(const HostPort& trustd, const std::string& token, const std::string& csr_pem,
                                              const std::string& os_ca_pem, std::chrono::milliseconds timeout);

}  // namespace cosi::api
