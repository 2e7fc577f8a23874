#include "api/trustd/trustd_server.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

namespace cosi::api {

namespace {

std::string sha256(std::string_view data) {
  unsigned char digest[32];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(digest), len);
}

bool same_token(std::string_view given, std::string_view expected) {
  const std::string a = sha256(given);
  const std::string b = sha256(expected);
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

grpc::ServerUnaryReactor* finish(grpc::CallbackServerContext* ctx, grpc::Status status) {
  auto* reactor = ctx->DefaultReactor();
  reactor->Finish(std::move(status));
  return reactor;
}

}  // namespace

grpc::ServerUnaryReactor* TrustdServer::Certificate(grpc::CallbackServerContext* ctx, const securityapi::CertificateRequest* req,
                                                    securityapi::CertificateResponse* resp) {
  auto authority = authority_();
  if (!authority) return finish(ctx, grpc::Status(grpc::StatusCode::UNAVAILABLE, "this node has no machine config yet"));
  const auto& md = ctx->client_metadata();
  auto token = md.find("token");
  if (token == md.end() || !same_token(std::string_view(token->second.data(), token->second.size()), authority->token)) {
    return finish(ctx, grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                    "the token in metadata `token` is not this cluster's machine token"));
  }
  auto csr = pki::CertificateRequest::parse(req->csr());
  if (!csr.ok()) return finish(ctx, grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "csr: " + csr.error().message()));
  if (!csr->signature_valid()) {
    return finish(ctx, grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "csr: its signature does not match its key"));
  }
  if (csr->asks_for_ca()) {
    return finish(ctx, grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "csr asks for a CA certificate: trustd signs server certificates only"));
  }
  if (csr->asks_for_client_auth()) {
    return finish(ctx, grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                    "csr asks for client authentication: trustd signs server certificates only"));
  }
  auto cert = pki::Certificate::issue(authority->ca, authority->ca_key, csr->public_key(),
                                      {.common_name = csr->common_name(),
                                       .ips = csr->ips(),
                                       .dns = csr->dns(),
                                       .usage = pki::Usage::kServer,
                                       .validity = pki::kDay});
  if (!cert.ok()) return finish(ctx, grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "csr: " + cert.error().message()));
  resp->set_ca(authority->ca.pem());
  resp->set_crt(cert->pem());
  return finish(ctx, grpc::Status::OK);
}

}  // namespace cosi::api
