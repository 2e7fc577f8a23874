#include "cmd/cosictl/connection.h"

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_certificate_verifier.h>
#include <grpcpp/security/tls_credentials_options.h>

#include <cstdlib>

#include "api/host_port.h"
#include "resources/secrets/certs.h"
#include "api/status.h"
#include "cmd/cosictl/talosconfig.h"

namespace cosi::cosictl {

namespace {

// --insecure: the node is not verified — unless its public key is pinned with
// --cert-fingerprint (base64 SHA-256 of its SubjectPublicKeyInfo, as machined prints it).
class PinnedKeyVerifier final : public grpc::experimental::ExternalCertificateVerifier {
 public:
  explicit PinnedKeyVerifier(std::string fingerprint) : fingerprint_(std::move(fingerprint)) {}

  bool Verify(grpc::experimental::TlsCustomVerificationCheckRequest* request, std::function<void(grpc::Status)>,
              grpc::Status* sync_status) override {
    *sync_status = grpc::Status::OK;
    if (fingerprint_.empty()) return true;
    auto pem = request->peer_cert();
    auto cert = pki::Certificate::parse(std::string_view(pem.data(), pem.size()));
    if (!cert.ok() || cert->spki_fingerprint() != fingerprint_) {
      *sync_status = grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                                  "the node's certificate fingerprint is " + (cert.ok() ? cert->spki_fingerprint() : "unreadable") +
                                      ", not the " + fingerprint_ + " given with --cert-fingerprint");
    }
    return true;
  }
  void Cancel(grpc::experimental::TlsCustomVerificationCheckRequest*) override {}

 private:
  const std::string fingerprint_;
};

std::shared_ptr<grpc::ChannelCredentials> insecure_tls(const std::string& fingerprint) {
  // gRPC wants roots even when it verifies nothing; a throwaway CA keeps it off the system's.
  static const std::string unused_root =
      pki::Certificate::self_signed_ca(pki::PrivateKey::ed25519(), {"cosictl --insecure"}, std::chrono::hours(1)).pem();
  grpc::experimental::TlsChannelCredentialsOptions options;
  options.set_certificate_provider(std::make_shared<grpc::experimental::StaticDataCertificateProvider>(unused_root));
  options.watch_root_certs();
  options.set_verify_server_certs(false);
  options.set_check_call_host(false);
  options.set_certificate_verifier(grpc::experimental::ExternalCertificateVerifier::Create<PinnedKeyVerifier>(fingerprint));
  return grpc::experimental::TlsCredentials(options);
}

Result<std::shared_ptr<grpc::ChannelCredentials>> mutual_tls(const TalosContext& c, const std::string& where) {
  if (c.ca.empty() || c.crt.empty() || c.key.empty()) {
    return Error(ErrorKind::kInvalidArgument, where + " has no ca, crt and key: it cannot authenticate to a node");
  }
  // Talos labels Ed25519 keys "ED25519 PRIVATE KEY"; gRPC's TLS reads only the standard label.
  auto key = pki::PrivateKey::parse(c.key);
  if (!key.ok()) return Error(ErrorKind::kInvalidArgument, where + " key: " + key.error().message());
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = c.ca;
  options.pem_private_key = key->pem();
  options.pem_cert_chain = c.crt;
  return grpc::SslCredentials(options);
}

}  // namespace

Result<Connection> Connection::open(const ConnectOptions& o) {
  std::vector<std::string> endpoints = o.endpoints;
  std::vector<std::string> nodes = o.nodes;
  std::shared_ptr<grpc::ChannelCredentials> credentials;

  if (o.insecure) {
    if (endpoints.empty() && !nodes.empty()) endpoints = {nodes.front()};
    credentials = insecure_tls(o.cert_fingerprint);
  } else {
    const bool named = !o.talosconfig.empty() || (std::getenv("TALOSCONFIG") != nullptr && *std::getenv("TALOSCONFIG") != '\0');
    const std::string path = talosconfig_path(o.talosconfig);
    auto config = load_talosconfig(path);
    if (!config.ok() && (named || config.error().kind() != ErrorKind::kNotFound)) return config.error();
    if (config.ok()) {
      auto context = config->find(o.context);
      if (!context.ok()) return Error(ErrorKind::kInvalidArgument, path + ": " + context.error().message());
      if (endpoints.empty()) endpoints = (*context)->endpoints;
      if (nodes.empty()) nodes = (*context)->nodes;
      auto tls = mutual_tls(**context, path + " context \"" + (o.context.empty() ? config->context : o.context) + "\"");
      if (!tls.ok()) return tls.error();
      credentials = *tls;
    } else {
      credentials = grpc::InsecureChannelCredentials();  // a node run with --insecure-dev
    }
  }
  if (endpoints.empty()) {
    return Error(ErrorKind::kInvalidArgument, "no endpoint: give one with -e (for example -e 127.0.7.1) or in the talosconfig");
  }
  auto hp = api::parse_host_port(endpoints.front(), 50000);
  if (!hp.ok()) return Error(ErrorKind::kInvalidArgument, "endpoint " + hp.error().message());
  Connection c;
  c.endpoint_ = hp->to_string();
  c.nodes_ = nodes.empty() ? std::vector<std::string>{hp->host} : std::move(nodes);
  c.timeout_ = o.timeout;
  c.channel_ = grpc::CreateChannel(c.endpoint_, credentials);
  return c;
}

std::unique_ptr<grpc::ClientContext> Connection::context(const std::string& node, bool bounded) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->AddMetadata("node", node);
  if (bounded) ctx->set_deadline(std::chrono::system_clock::now() + timeout_);
  return ctx;
}

Error Connection::error(const grpc::Status& status) const {
  Error e = api::from_status(status);
  std::string message = status.error_message();
  // The endpoint's own connection failed (a node the endpoint forwards to says so itself:
  // "node X is unreachable from this node").
  if ((status.error_code() == grpc::StatusCode::UNAVAILABLE || status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) &&
      !message.starts_with("node ")) {
    message = "cannot reach " + endpoint_ + " (" + message + ")";
  }
  return Error(e.kind(), message);
}

}  // namespace cosi::cosictl
