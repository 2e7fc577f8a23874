// The front over real gRPC with mutual TLS on loopback (127.21.0.x): authentication,
// authorisation by the role table, Sensitive reads, forwarding one hop with the caller's roles,
// fan-out with stamped replies, and a node that is down. Every refusal is checked for its
// status code and for the node's services never having been reached.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdio>
#include <future>
#include <map>

#include "api/front/front_service.h"
#include "api/machine_server.h"
#include "api/state_server.h"
#include "machine.grpc.pb.h"
#include "resources/catalog.h"
#include "resources/config/config_resources.h"
#include "resources/network/network_resources.h"
#include "runtime/exec/thread_pool.h"
#include "runtime/resource/meta/namespace.h"
#include "runtime/state/memory_state.h"
#include "runtime/state/state_ops.h"
#include "state.grpc.pb.h"

namespace cosi::api {
namespace {

namespace pb = ::cosi::resource;
using Catch::Matchers::Contains;

struct Pki {
  pki::PrivateKey ca_key = pki::PrivateKey::ed25519();
  pki::Certificate ca = pki::Certificate::self_signed_ca(ca_key, {"talos"}, pki::kYear);

  std::pair<std::string, std::string> issue(pki::CertificateSpec spec) const {
    auto key = pki::PrivateKey::ed25519();
    return {pki::Certificate::issue(ca, ca_key, key.get(), spec)->pem(), key.pem()};
  }
  std::pair<std::string, std::string> client(std::vector<std::string> roles, std::chrono::seconds backdate = {}) const {
    return issue({.common_name = "user", .organizations = std::move(roles), .usage = pki::Usage::kClient,
                  .validity = pki::kDay, .backdate = backdate});
  }
};

// Counts the configs that reached the node's services.
struct CountingApplier final : ConfigApplier {
  std::atomic<int> calls{0};
  Result<ApplyOutcome> apply(const ApplyRequest&) override {
    ++calls;
    return ApplyOutcome{{}, ApplyMode::kNoReboot, "Applied configuration without a reboot"};
  }
};

// One node: its store and services, behind a front on ip:port with the cluster's CA.
class Node {
 public:
  Node(const Pki& pki, std::string ip, std::function<Result<std::shared_ptr<grpc::Channel>>(const std::string&)> dial)
      : ip_(std::move(ip)), pool_(2), machine_(NodeInfo{"host-" + ip_}, &applier_) {
    for (const auto& d : resources::definitions()) REQUIRE(store_.create(make_definition_resource(d), {kMetaOwner}).ok());
    for (const auto& [n, desc] : resources::namespaces()) REQUIRE(store_.create(make_namespace(n, desc), {kMetaOwner}).ok());
    resources::register_types(types_);
    resources::HostnameStatusSpec host;
    host.set_hostname("host-" + ip_);
    REQUIRE(store_.create(make_resource(Metadata(resources::kNetworkNamespace, resources::kHostnameStatusType, "hostname"), host), {"test"}).ok());
    resources::MachineConfigSpec config;
    config.set_document("machine:\n  token: secret\n");
    REQUIRE(store_.create(make_resource(Metadata(resources::kConfigNamespace, resources::kMachineConfigType, "v1alpha1"), config), {}).ok());

    state_ = std::make_unique<StateServer>(store_, types_, pool_, StateServerOptions{.writable = false});
    grpc::ServerBuilder internal;
    internal.RegisterService(state_.get());
    internal.RegisterService(&machine_);
    internal_ = internal.BuildAndStart();

    auto [crt, key] = pki.issue({.common_name = ip_, .ips = {ip_}, .usage = pki::Usage::kServer, .validity = pki::kDay});
    front_ = std::make_unique<front::FrontService>(front::FrontConfig{
        auth::Authenticator::mutual_tls(pki.ca), internal_->InProcessChannel(grpc::ChannelArguments()), {ip_}, std::move(dial),
        "test node does not forward"});
    grpc::SslServerCredentialsOptions tls(GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_BUT_DONT_VERIFY);
    tls.pem_root_certs = pki.ca.pem();
    tls.pem_key_cert_pairs.push_back({key, crt});
    grpc::ServerBuilder b;
    b.AddListeningPort(ip_ + ":0", grpc::SslServerCredentials(tls), &port_);
    b.RegisterCallbackGenericService(front_.get());
    server_ = b.BuildAndStart();
    REQUIRE(server_);
    REQUIRE(port_ != 0);
  }
  ~Node() {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    internal_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    pool_.stop();
  }

  std::string address() const { return ip_ + ":" + std::to_string(port_); }
  const std::string& ip() const { return ip_; }
  int applied() const { return applier_.calls; }
  MemoryState& store() { return store_; }

 private:
  std::string ip_;
  MemoryState store_;
  ResourceTypes types_;
  ThreadPool pool_;
  CountingApplier applier_;
  MachineServer machine_;
  std::unique_ptr<StateServer> state_;
  std::unique_ptr<grpc::Server> internal_;
  std::unique_ptr<front::FrontService> front_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

std::shared_ptr<grpc::Channel> channel_to(const std::string& address, const Pki& pki, std::pair<std::string, std::string> cert) {
  grpc::SslCredentialsOptions o;
  o.pem_root_certs = pki.ca.pem();
  o.pem_cert_chain = cert.first;
  o.pem_private_key = cert.second;
  return grpc::CreateChannel(address, grpc::SslCredentials(o));
}

std::unique_ptr<grpc::ClientContext> context(const std::string& node = "", int seconds = 10) {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
  if (!node.empty()) c->AddMetadata("node", node);
  return c;
}

pb::GetRequest get_request(std::string_view ns, std::string_view type, const std::string& id) {
  pb::GetRequest req;
  req.set_namespace_(std::string(ns));
  req.set_type(std::string(type));
  req.set_id(id);
  return req;
}

grpc::Status apply_config(const std::shared_ptr<grpc::Channel>& ch) {
  machine::ApplyConfigurationRequest req;
  req.set_data("version: v1alpha1\n");
  machine::ApplyConfigurationResponse resp;
  return machine::MachineService::NewStub(ch)->ApplyConfiguration(context().get(), req, &resp);
}

grpc::Status get_hostname(const std::shared_ptr<grpc::Channel>& ch, const std::string& node, pb::GetResponse* resp) {
  return pb::State::NewStub(ch)->Get(context(node).get(), get_request(resources::kNetworkNamespace, resources::kHostnameStatusType, "hostname"), resp);
}

grpc::Status get_config(const std::shared_ptr<grpc::Channel>& ch, const std::string& node = "") {
  pb::GetResponse resp;
  return pb::State::NewStub(ch)->Get(context(node).get(), get_request(resources::kConfigNamespace, resources::kMachineConfigType, "v1alpha1"), &resp);
}

// A call by method name, for methods machined's protos do not declare.
grpc::Status raw_call(const std::shared_ptr<grpc::Channel>& ch, const std::string& method) {
  grpc::GenericStub stub(ch);
  grpc::ByteBuffer req, resp;
  grpc::Slice empty("");
  req = grpc::ByteBuffer(&empty, 1);
  std::promise<grpc::Status> done;
  auto ctx = context();
  stub.UnaryCall(ctx.get(), method, grpc::StubOptions(), &req, &resp, [&](grpc::Status s) { done.set_value(s); });
  return done.get_future().get();
}

// Two nodes: A forwards to B (and to a node that is down) with its impersonator certificate.
struct Cluster {
  Pki pki;
  std::map<std::string, std::string> addresses;  // ip → ip:port
  std::pair<std::string, std::string> impersonator = pki.client({"os:impersonator"});
  Node b{pki, "127.21.0.2", {}};
  Node a{pki, "127.21.0.1", [this](const std::string& node) -> Result<std::shared_ptr<grpc::Channel>> {
           auto it = addresses.find(node);
           std::string target = it == addresses.end() ? node + ":1" : it->second;  // nothing listens on port 1
           return channel_to(target, pki, impersonator);
         }};
  Cluster() { addresses[b.ip()] = b.address(); }

  std::shared_ptr<grpc::Channel> as(std::vector<std::string> roles) { return channel_to(a.address(), pki, pki.client(std::move(roles))); }
};

}  // namespace

TEST_CASE("callers without a valid client certificate are refused before anything runs", "[front]") {
  Cluster c;
  // No certificate at all.
  grpc::SslCredentialsOptions roots_only;
  roots_only.pem_root_certs = c.pki.ca.pem();
  auto anonymous = grpc::CreateChannel(c.a.address(), grpc::SslCredentials(roots_only));
  auto s = apply_config(anonymous);
  CHECK(s.error_code() == grpc::StatusCode::UNAUTHENTICATED);
  CHECK_THAT(s.error_message(), Contains("no client certificate"));
  // A certificate from another CA.
  Pki other;
  s = apply_config(channel_to(c.a.address(), c.pki, other.client({"os:admin"})));
  CHECK(s.error_code() == grpc::StatusCode::UNAUTHENTICATED);
  CHECK_THAT(s.error_message(), Contains("not signed by this cluster's OS CA"));
  // An expired one.
  s = apply_config(channel_to(c.a.address(), c.pki, c.pki.client({"os:admin"}, 2 * pki::kDay)));
  CHECK(s.error_code() == grpc::StatusCode::UNAUTHENTICATED);
  CHECK_THAT(s.error_message(), Contains("expired"));
  CHECK(c.a.applied() == 0);
}

TEST_CASE("a reader may read but not configure, bootstrap or read Sensitive resources", "[front]") {
  Cluster c;
  auto reader = c.as({"os:reader"});
  pb::GetResponse resp;
  REQUIRE(get_hostname(reader, "", &resp).ok());
  CHECK(resp.resource().metadata().id() == "hostname");

  auto s = apply_config(reader);
  CHECK(s.error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK_THAT(s.error_message(), Contains("ApplyConfiguration needs role os:admin"));
  CHECK(c.a.applied() == 0);
  s = raw_call(reader, "/machine.MachineService/Bootstrap");
  CHECK(s.error_code() == grpc::StatusCode::PERMISSION_DENIED);
  s = get_config(reader);
  CHECK(s.error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK_THAT(s.error_message(), Contains("Sensitive"));
  // Sending talos-role does not promote a reader.
  grpc::ClientContext ctx;
  ctx.AddMetadata("talos-role", "os:admin");
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  s = pb::State::NewStub(reader)->Get(&ctx, get_request(resources::kConfigNamespace, resources::kMachineConfigType, "v1alpha1"), &resp);
  CHECK(s.error_code() == grpc::StatusCode::PERMISSION_DENIED);
}

TEST_CASE("operators get what the table gives them; admins get everything", "[front]") {
  Cluster c;
  auto op = c.as({"os:operator"});
  machine::VersionResponse version;
  CHECK(machine::MachineService::NewStub(op)->Version(context().get(), {}, &version).ok());
  // Allowed by the table, so it reaches the node, which does not serve it yet.
  CHECK(raw_call(op, "/machine.MachineService/EtcdDefragment").error_code() == grpc::StatusCode::UNIMPLEMENTED);
  CHECK(raw_call(op, "/machine.MachineService/EtcdStatus").error_code() == grpc::StatusCode::UNIMPLEMENTED);
  CHECK(raw_call(op, "/machine.MachineService/Bootstrap").error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK(apply_config(op).error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK(get_config(op).error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK(c.a.applied() == 0);

  auto admin = c.as({"os:admin"});
  CHECK(get_config(admin).ok());
  CHECK(apply_config(admin).ok());
  CHECK(c.a.applied() == 1);
  CHECK(raw_call(admin, "/machine.MachineService/Bootstrap").error_code() == grpc::StatusCode::UNIMPLEMENTED);
  CHECK(raw_call(admin, "/no.Such/Method").error_code() == grpc::StatusCode::UNIMPLEMENTED);
}

TEST_CASE("`node` naming another node forwards one hop with the caller's roles", "[front]") {
  Cluster c;
  pb::GetResponse resp;
  REQUIRE(get_hostname(c.as({"os:reader"}), c.b.ip(), &resp).ok());
  CHECK_THAT(resp.resource().spec().yaml_spec(), Contains("host-127.21.0.2"));
  // B judges the caller by the roles A passed on, not by A's certificate.
  CHECK(get_config(c.as({"os:reader"}), c.b.ip()).error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK(get_config(c.as({"os:admin"}), c.b.ip()).ok());
  // `node` naming A itself is served by A.
  REQUIRE(get_hostname(c.as({"os:reader"}), c.a.ip(), &resp).ok());
  CHECK_THAT(resp.resource().spec().yaml_spec(), Contains("host-127.21.0.1"));
}

TEST_CASE("forwarding to a node that is down is UNAVAILABLE within the deadline", "[front]") {
  Cluster c;
  pb::GetResponse resp;
  const auto start = std::chrono::steady_clock::now();
  auto s = get_hostname(c.as({"os:admin"}), "127.21.0.9", &resp);
  CHECK(s.error_code() == grpc::StatusCode::UNAVAILABLE);
  CHECK_THAT(s.error_message(), Contains("node 127.21.0.9 is unreachable"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("`nodes` fans a machine call out and stamps each reply with its node", "[front]") {
  Cluster c;
  auto ctx = context();
  ctx->AddMetadata("nodes", c.a.ip());
  ctx->AddMetadata("nodes", c.b.ip());
  ctx->AddMetadata("nodes", "127.21.0.9");
  machine::VersionResponse resp;
  REQUIRE(machine::MachineService::NewStub(c.as({"os:reader"}))->Version(ctx.get(), {}, &resp).ok());
  REQUIRE(resp.messages_size() == 3);
  CHECK(resp.messages(0).metadata().hostname() == c.a.ip());
  CHECK(resp.messages(0).version().tag() == "v0.1.0");
  CHECK(resp.messages(1).metadata().hostname() == c.b.ip());
  CHECK(resp.messages(2).metadata().hostname() == "127.21.0.9");
  CHECK_FALSE(resp.messages(2).metadata().error().empty());
  CHECK(resp.messages(2).metadata().status().code() == static_cast<int>(grpc::StatusCode::UNAVAILABLE));

  // State calls name one node at a time.
  auto state_ctx = context();
  state_ctx->AddMetadata("nodes", c.a.ip() + "," + c.b.ip());
  pb::GetResponse get;
  auto s = pb::State::NewStub(c.as({"os:reader"}))->Get(state_ctx.get(),
      get_request(resources::kNetworkNamespace, resources::kHostnameStatusType, "hostname"), &get);
  CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_CASE("watches stream through the front, forwarded or not", "[front]") {
  Cluster c;
  for (const std::string& node : {c.a.ip(), c.b.ip()}) {
    Node& target = node == c.a.ip() ? c.a : c.b;
    grpc::ClientContext ctx;
    ctx.AddMetadata("node", node);
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    pb::WatchRequest req;
    req.set_namespace_(std::string(resources::kNetworkNamespace));
    req.set_type(std::string(resources::kNodeAddressType));
    req.set_api_version(1);
    req.mutable_options()->set_bootstrap_contents(true);
    auto reader = pb::State::NewStub(c.as({"os:reader"}))->Watch(&ctx, req);
    pb::WatchResponse event;
    // The first message is empty: the watch is established.
    REQUIRE(reader->Read(&event));
    CHECK(event.event_size() == 0);
    REQUIRE(reader->Read(&event));  // the bootstrapped marker: nothing yet
    REQUIRE(event.event_size() == 1);
    CHECK(event.event(0).event_type() == pb::EventType::BOOTSTRAPPED);
    REQUIRE(target.store().create(make_resource(Metadata(resources::kNetworkNamespace, resources::kNodeAddressType, "current"),
                                                resources::NodeAddressSpec{}),
                                  {"test"})
                .ok());
    REQUIRE(reader->Read(&event));
    REQUIRE(event.event_size() == 1);
    CHECK(event.event(0).event_type() == pb::EventType::CREATED);
    CHECK(event.event(0).resource().metadata().id() == "current");
    ctx.TryCancel();
    while (reader->Read(&event)) {
    }
    CHECK(reader->Finish().error_code() == grpc::StatusCode::CANCELLED);
  }
}

TEST_CASE("long lists arrive whole and in order through the front; a caller may stop early", "[front]") {
  Cluster c;
  constexpr int kCount = 2000;
  for (Node* target : {&c.a, &c.b}) {
    for (int i = 0; i < kCount; ++i) {
      char id[16];
      std::snprintf(id, sizeof id, "addr-%05d", i);
      REQUIRE(target->store().create(make_resource(Metadata(resources::kNetworkNamespace, resources::kNodeAddressType, id),
                                                   resources::NodeAddressSpec{}),
                                     {"test"})
                  .ok());
    }
  }
  auto list = [&](const std::string& node, grpc::ClientContext& ctx) {
    ctx.AddMetadata("node", node);
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    pb::ListRequest req;
    req.set_namespace_(std::string(resources::kNetworkNamespace));
    req.set_type(std::string(resources::kNodeAddressType));
    return pb::State::NewStub(c.as({"os:reader"}))->List(&ctx, req);
  };
  for (const std::string& node : {c.a.ip(), c.b.ip()}) {
    grpc::ClientContext ctx;
    auto reader = list(node, ctx);
    pb::ListResponse r;
    int n = 0;
    std::string last;
    while (reader->Read(&r)) {
      CHECK(r.resource().metadata().id() > last);
      last = r.resource().metadata().id();
      ++n;
    }
    CHECK(reader->Finish().ok());
    CHECK(n == kCount);

    // A caller that reads ten and goes away: the call ends CANCELLED and the node serves on.
    grpc::ClientContext early;
    auto partial = list(node, early);
    for (int i = 0; i < 10; ++i) REQUIRE(partial->Read(&r));
    early.TryCancel();
    while (partial->Read(&r)) {
    }
    CHECK(partial->Finish().error_code() == grpc::StatusCode::CANCELLED);
    grpc::ClientContext again;
    auto whole = list(node, again);
    n = 0;
    while (whole->Read(&r)) ++n;
    CHECK(whole->Finish().ok());
    CHECK(n == kCount);
  }
}

}  // namespace cosi::api
