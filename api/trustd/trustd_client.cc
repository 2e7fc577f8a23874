#include "api/trustd/trustd_client.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_certificate_verifier.h>
#include <grpcpp/security/tls_credentials_options.h>

#include "api/status.h"
#include "security.grpc.pb.h"

namespace cosi::api {

Result<SignedCertificate> request_certificate(const HostPort& trustd, const std::string& token, const std::string& csr_pem,
                                              const std::string& os_ca_pem, std::chrono::milliseconds timeout) {
  grpc::experimental::TlsChannelCredentialsOptions options;
  options.set_certificate_provider(std::make_shared<grpc::experimental::StaticDataCertificateProvider>(os_ca_pem));
  options.watch_root_certs();
  options.set_verify_server_certs(true);
  options.set_check_call_host(false);
  options.set_certificate_verifier(std::make_shared<grpc::experimental::NoOpCertificateVerifier>());
  auto channel = grpc::CreateChannel(trustd.to_string(), grpc::experimental::TlsCredentials(options));
  auto stub = securityapi::SecurityService::NewStub(channel);
  grpc::ClientContext ctx;
  ctx.AddMetadata("token", token);
  ctx.set_deadline(std::chrono::system_clock::now() + timeout);
  securityapi::CertificateRequest req;
  req.set_csr(csr_pem);
  securityapi::CertificateResponse resp;
  grpc::Status s = stub->Certificate(&ctx, req, &resp);
  if (!s.ok()) {
    Error e = from_status(s);
    return Error(e.kind(), "trustd at " + trustd.to_string() + ": " + s.error_message());
  }
  return SignedCertificate{resp.ca(), resp.crt()};
}

}  // namespace cosi::api
