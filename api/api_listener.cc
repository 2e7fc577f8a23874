#include "api/api_listener.h"

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>

#include <map>

#include "api/front/front_service.h"
#include "api/trustd/trustd_server.h"
#include "resources/config/config_resources.h"
#include "resources/common/ip.h"
#include "resources/config/machine_config.h"
#include "resources/network/network_resources.h"
#include "resources/secrets/certs.h"
#include "resources/secrets/secrets_resources.h"
#include "resources/v1alpha1/v1alpha1_resources.h"
#include "runtime/state/state_ops.h"

namespace cosi::api {

namespace {

using namespace cosi::resources;

const Pointer kConfig{kConfigNamespace, kMachineConfigType, std::string(kMachineConfigId)};
const Pointer kCertificates{kSecretsNamespace, kApiCertificatesType, std::string(kApiCertificatesId)};
const Pointer kTrustdService{kRuntimeNamespace, kServiceType, "trustd"};
const Pointer kTrustdRequest{kRuntimeNamespace, kServiceRequestType, "trustd"};
constexpr std::string_view kOwner = "api.ApiListener";
constexpr auto kShutdownGrace = std::chrono::seconds(2);

// Channels to other nodes' fronts, made on first use, with this node's os:impersonator
// certificate.
class ForwardDialer {
 public:
  ForwardDialer(std::shared_ptr<grpc::ChannelCredentials> credentials, int port)
      : credentials_(std::move(credentials)), port_(port) {}

  Result<std::shared_ptr<grpc::Channel>> dial(const std::string& node) {
    auto hp = api::parse_host_port(node, port_);
    if (!hp.ok()) return Error(ErrorKind::kInvalidArgument, "node " + hp.error().message());
    std::lock_guard lock(mu_);
    auto& channel = channels_[hp->to_string()];
    if (!channel) channel = grpc::CreateChannel(hp->to_string(), credentials_);
    return channel;
  }

 private:
  std::shared_ptr<grpc::ChannelCredentials> credentials_;
  const int port_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_;
};

}  // namespace

// What the node should serve, derived from the store.
struct ApiListener::Desired {
  std::string mode;  // insecure-dev | maintenance | waiting | secure
  std::string ca;
  std::string server_crt, server_key;
  std::string client_crt, client_key;
  std::optional<api::SigningAuthority> trustd;  // control planes only
  bool trustd_stopped = false;                  // ServiceStop "trustd"
  uint64_t trustd_restarts = 0;                 // ServiceRestart "trustd"

  std::string key() const { return mode + "\n" + ca + server_crt + client_crt; }
  // What trustd serves: empty when it does not run.
  std::string trustd_key() const { 
    return trustd && !trustd_stopped ? key() + trustd->token + "\n" + std::to_string(trustd_restarts) : std::string();
  }
};

// What it serves now.
struct ApiListener::Serving {
  std::string key;
  std::string trustd_key;
  std::string mode;
  std::unique_ptr<api::front::FrontService> front;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<api::TrustdServer> trustd_service;
  std::unique_ptr<grpc::Server> trustd;
  std::shared_ptr<ForwardDialer> dialer;

  void shutdown() {
    const auto deadline = std::chrono::system_clock::now() + kShutdownGrace;
    if (server) server->Shutdown(deadline);
    stop_trustd();
  }
  void stop_trustd() {
    if (trustd) trustd->Shutdown(std::chrono::system_clock::now() + kShutdownGrace);
    trustd.reset();
    trustd_service.reset();
    trustd_key.clear();
  }
};

ApiListener::ApiListener(State& state, std::shared_ptr<grpc::Channel> local, ApiListenerOptions options, Logger log)
    : state_(state), local_(std::move(local)), options_(std::move(options)), log_(std::move(log)) {
  // Maintenance mode's certificate: self-signed, made fresh at each start, as Talos does.
  auto key = pki::PrivateKey::ed25519();
  auto ca = pki::Certificate::self_signed_ca(key, {"talos"}, std::chrono::hours(24 * 365));
  std::vector<std::string> ips;
  for (const auto& s : options_.self) {
    unsigned char b[16];
    if (inet_pton(AF_INET, s.c_str(), b) == 1 || inet_pton(AF_INET6, s.c_str(), b) == 1) ips.push_back(s);
  }
  auto leaf = pki::Certificate::issue(ca, key, key.get(),
                                      {.common_name = options_.hostname, .ips = ips, .usage = pki::Usage::kServer,
                                       .validity = std::chrono::hours(24 * 365)});
  maintenance_crt_ = leaf.ok() ? leaf->pem() : ca.pem();
  maintenance_key_ = key.pem();
  maintenance_fingerprint_ = leaf.ok() ? leaf->spki_fingerprint() : ca.spki_fingerprint();
}

ApiListener::~ApiListener() { stop(); }

bool ApiListener::has_address(const std::string& node) const {
  const auto ip = resources::ip_bytes(node);
  if (!ip) return false;
  auto current = state_.get({kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)});
  auto typed = current.ok() ? resource_cast<NodeAddressSpec>(*current) : nullptr;
  if (typed == nullptr) return false;
  for (const auto& a : typed->spec().addresses()) {
    if (a.ip() == *ip) return true;
  }
  return false;
}

ApiListener::Desired ApiListener::desired() {
  Desired d;
  if (options_.insecure_dev) {
    d.mode = "insecure-dev";
    return d;
  }
  auto config = state_.get(kConfig);
  if (!config.ok()) {
    d.mode = "maintenance";
    return d;
  }
  auto certs = state_.get(kCertificates);
  auto typed = certs.ok() ? resource_cast<ApiCertificatesSpec>(*certs) : nullptr;
  if (typed == nullptr || typed->spec().server().crt().empty()) {
    d.mode = "waiting";
    return d;
  }
  const auto& s = typed->spec();
  d.mode = "secure";
  d.ca = s.ca().crt();
  d.server_crt = s.server().crt();
  d.server_key = s.server().key();
  d.client_crt = s.client().crt();
  d.client_key = s.client().key();
  if (auto stored = resource_cast<MachineConfigSpec>(*config); stored != nullptr) {
    auto loaded = config::parse_machine_config(stored->spec().document());
    if (loaded.ok() && loaded->config.type == config::MachineType::kControlPlane) {
      auto ca = pki::Certificate::parse(loaded->config.ca.crt);
      auto ca_key = pki::PrivateKey::parse(loaded->config.ca.key);
      if (ca.ok() && ca_key.ok()) d.trustd = api::SigningAuthority{*ca, *ca_key, loaded->config.token};
    }
  }
  if (auto request = state_.get(kTrustdRequest); request.ok()) {
    if (auto r = resource_cast<ServiceRequestSpec>(*request)) {
      d.trustd_stopped = r->spec().stopped();
      d.trustd_restarts = r->spec().restarts();
    }
  }
  return d;
}

Status ApiListener::apply_trustd(const Desired& d) {
  const std::string key = d.trustd_key();
  if (serving_->trustd_key == key) return {};
  if (serving_->trustd) log_.info(key.empty() ? "trustd stopped" : "trustd restarting");
  serving_->stop_trustd();
  if (key.empty()) return {};
  serving_->trustd_service = std::make_unique<api::TrustdServer>([authority = *d.trustd] { return authority; });
  grpc::SslServerCredentialsOptions tls(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  tls.pem_key_cert_pairs.push_back({d.server_key, d.server_crt});
  api::HostPort trustd{options_.listen.host, options_.trustd_port};
  grpc::ServerBuilder tb;
  int trustd_port = 0;
  tb.AddListeningPort(trustd.to_string(), grpc::SslServerCredentials(tls), &trustd_port);
  tb.RegisterService(serving_->trustd_service.get());
  serving_->trustd = tb.BuildAndStart();
  if (!serving_->trustd || trustd_port == 0) {
    serving_->stop_trustd();
    return Error(ErrorKind::kUnavailable, "trustd cannot listen on " + trustd.to_string());
  }
  serving_->trustd_key = key;
  log_.info("trustd serving", {{"listen", trustd.to_string()}});
  return {};
}

void ApiListener::publish_trustd(const Desired& d) {
  if (!d.trustd) {  // not a control plane: no trustd service
    if (state_.get(kTrustdService).ok()) (void)state_.destroy(kTrustdService, {.owner = Atom(kOwner)});
    return;
  }
  const bool running = serving_ && serving_->trustd != nullptr;
  ServiceSpec spec;
  spec.set_running(running);
  spec.set_healthy(running);
  auto written = modify(
      state_, make_resource(Metadata(kRuntimeNamespace, kServiceType, "trustd"), spec),
      [&](Resource& r) {
        auto& s = typed<ServiceSpec>(r);
        s.set_running(running);
        s.set_healthy(running);
        s.set_unknown(false);
        return Status();
      },
      {.owner = Atom(kOwner)});
  if (!written.ok()) log_.warn("publishing the trustd service", {{"error", written.error().message()}});
}

Status ApiListener::apply(const Desired& d) {
  auto s = apply_api(d);
  if (s.ok() && serving_ && serving_->server) s = apply_trustd(d);
  publish_trustd(d);
  return s;
}

Status ApiListener::apply_api(const Desired& d) {
  if (serving_ && serving_->key == d.key()) return {};
  if (serving_) {
    serving_->shutdown();
    serving_.reset();
  }
  auto next = std::make_unique<Serving>();
  next->key = d.key();
  next->mode = d.mode;
  if (d.mode == "waiting") {
    log_.info("machine config applied; waiting for API certificates before serving", {{"api", options_.listen.to_string()}});
    serving_ = std::move(next);
    return {};
  }

  api::front::FrontConfig front{api::auth::Authenticator::maintenance(), local_, options_.self, {}, ""};
  front.also_self = [this](const std::string& node) { return has_address(node); };
  std::shared_ptr<grpc::ServerCredentials> credentials;
  if (d.mode == "insecure-dev") {
    front.authenticator = api::auth::Authenticator::insecure_dev();
    front.no_forwarding_reason = "a node run with --insecure-dev does not forward calls";
    credentials = grpc::InsecureServerCredentials();
  } else if (d.mode == "maintenance") {
    front.no_forwarding_reason = "a node in maintenance mode does not forward calls";
    grpc::SslServerCredentialsOptions tls(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
    tls.pem_key_cert_pairs.push_back({maintenance_key_, maintenance_crt_});
    credentials = grpc::SslServerCredentials(tls);
  } else {
    auto ca = pki::Certificate::parse(d.ca);
    if (!ca.ok()) return Error(ErrorKind::kInvalidArgument, "the API certificates' CA: " + ca.error().message());
    front.authenticator = api::auth::Authenticator::mutual_tls(*ca);
    // The certificate is asked for but checked by the front, so a caller without one gets a
    // status that says so rather than a failed handshake.
    grpc::SslServerCredentialsOptions tls(GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_BUT_DONT_VERIFY);
    tls.pem_root_certs = d.ca;
    tls.pem_key_cert_pairs.push_back({d.server_key, d.server_crt});
    credentials = grpc::SslServerCredentials(tls);
    if (!d.client_crt.empty()) {
      grpc::SslCredentialsOptions client;
      client.pem_root_certs = d.ca;
      client.pem_private_key = d.client_key;
      client.pem_cert_chain = d.client_crt;
      next->dialer = std::make_shared<ForwardDialer>(grpc::SslCredentials(client), options_.listen.port);
      front.dial = [dialer = next->dialer](const std::string& node) { return dialer->dial(node); };
    } else {
      front.no_forwarding_reason = "only control planes forward calls to other nodes";
    }
  }
  next->front = std::make_unique<api::front::FrontService>(std::move(front));
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options_.listen.to_string(), credentials, &port);
  builder.RegisterCallbackGenericService(next->front.get());
  next->server = builder.BuildAndStart();
  if (!next->server || port == 0) return Error(ErrorKind::kUnavailable, "cannot listen on " + options_.listen.to_string());

  if (d.mode == "maintenance") {
    log_.info("maintenance mode: no machine config; serving TLS with a self-signed certificate",
              {{"api", options_.listen.to_string()},
               {"fingerprint", maintenance_fingerprint_},
               {"apply", "cosictl apply-config --insecure -n " + options_.listen.host + " --cert-fingerprint '" +
                             maintenance_fingerprint_ + "' -f <config.yaml>"}});
  } else {
    log_.info("serving the API", {{"api", options_.listen.to_string()}, {"mode", d.mode}});
  }
  serving_ = std::move(next);
  return {};
}

Status ApiListener::start() {
  for (const auto& p : {kConfig, kCertificates, kTrustdRequest}) {
    auto w = state_.watch(p, {});
    if (!w.ok()) return w.error();
    // Runs on a store writer's thread: only raises the flag (never takes mu_, which is held
    // around store reads).
    (*w)->set_notify([this] {
      std::lock_guard lock(signal_mu_);
      dirty_ = true;
      cv_.notify_one();
    });
    watches_.push_back(std::move(*w));
  }
  {
    std::lock_guard lock(mu_);
    if (auto s = apply(desired()); !s.ok()) return s;
  }
  follower_ = std::thread([this] { follow(); });
  return {};
}

void ApiListener::follow() {
  while (true) {
    {
      std::unique_lock signal(signal_mu_);
      cv_.wait(signal, [&] { return dirty_ || stopping_; });
      if (stopping_) return;
      dirty_ = false;
    }
    // Drain the events: only the current state matters.
    std::vector<Event> events;
    for (auto& w : watches_) w->poll(events);
    std::lock_guard lock(mu_);
    if (auto s = apply(desired()); !s.ok()) log_.warn("serving the API", {{"error", s.error().message()}});
  }
}

void ApiListener::stop() {
  {
    std::lock_guard signal(signal_mu_);
    if (stopping_) return;
    stopping_ = true;
    cv_.notify_one();
  }
  if (follower_.joinable()) follower_.join();
  for (auto& w : watches_) w->cancel();
  std::lock_guard lock(mu_);
  if (serving_) serving_->shutdown();
  serving_.reset();
}

std::string ApiListener::mode() const {
  std::lock_guard lock(mu_);
  return serving_ ? serving_->mode : "stopped";
}

}  // namespace cosi::api
