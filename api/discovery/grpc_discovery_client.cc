#include "api/discovery/grpc_discovery_client.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "api/discovery/affiliate_cipher.h"
#include "discovery.grpc.pb.h"
#include "discovery_affiliate.pb.h"
#include "resources/config/machine_config.h"

namespace cosi::discovery {

namespace pb = ::sidero::discovery::server;
namespace wire = ::sidero::discovery::client;
using resources::AffiliateSpec;
using MachineType = ::talos::resource::definitions::enums::MachineType;
using namespace std::chrono_literals;

void to_wire(const AffiliateSpec& spec, wire::Affiliate* out) {
  out->set_node_id(spec.node_id());
  for (const auto& a : spec.addresses()) out->add_addresses(a.ip());
  out->set_hostname(spec.hostname());
  out->set_nodename(spec.nodename());
  switch (spec.machine_type()) {
    case MachineType::TYPE_CONTROL_PLANE: out->set_machine_type("controlplane"); break;
    case MachineType::TYPE_WORKER: out->set_machine_type("worker"); break;
    case MachineType::TYPE_INIT: out->set_machine_type("init"); break;
    default: out->set_machine_type("unknown"); break;
  }
  out->set_operating_system(spec.operating_system());
  if (spec.has_control_plane()) out->mutable_control_plane()->set_api_server_port(static_cast<int32_t>(spec.control_plane().api_server_port()));
}

AffiliateSpec from_wire(const wire::Affiliate& in) {
  AffiliateSpec spec;
  spec.set_node_id(in.node_id());
  for (const auto& a : in.addresses()) {
    if (a.size() == 4 || a.size() == 16) spec.add_addresses()->set_ip(a);
  }
  spec.set_hostname(in.hostname());
  spec.set_nodename(in.nodename());
  const std::string& t = in.machine_type();
  spec.set_machine_type(t == "controlplane" ? MachineType::TYPE_CONTROL_PLANE
                        : t == "worker"     ? MachineType::TYPE_WORKER
                        : t == "init"       ? MachineType::TYPE_INIT
                                            : MachineType::TYPE_UNKNOWN);
  spec.set_operating_system(in.operating_system());
  if (in.has_control_plane()) spec.mutable_control_plane()->set_api_server_port(in.control_plane().api_server_port());
  return spec;
}

namespace {

constexpr auto kCallDeadline = 5s;
constexpr int kMaxRedirects = 3;

std::chrono::system_clock::time_point deadline_in(std::chrono::milliseconds d) { return std::chrono::system_clock::now() + d; }

class GrpcDiscoveryClient final : public controllers::DiscoveryClient {
 public:
  GrpcDiscoveryClient(controllers::DiscoveryClientOptions options, AffiliateCipher cipher, config::Url url)
      : options_(std::move(options)), cipher_(std::move(cipher)), url_(std::move(url)) {
    backoff_cap_ = std::min<std::chrono::milliseconds>(5s, std::max<std::chrono::milliseconds>(options_.ttl / 4, 100ms));
    connect(url_);
    watcher_ = std::thread([this] { watch_loop(); });
    publisher_ = std::thread([this] { publish_loop(); });
  }

  ~GrpcDiscoveryClient() override {
    {
      std::lock_guard lock(mu_);
      stopped_ = true;
      if (watch_context_) watch_context_->TryCancel();
    }
    cv_.notify_all();
    watcher_.join();
    publisher_.join();
  }

  void publish(const AffiliateSpec& local) override {
    wire::Affiliate w;
    to_wire(local, &w);
    std::string plain = w.SerializeAsString();
    std::lock_guard lock(mu_);
    if (left_ || plain == wanted_) return;
    wanted_ = std::move(plain);
    cv_.notify_all();
  }

  Status leave(std::chrono::milliseconds deadline) override {
    std::shared_ptr<pb::Cluster::Stub> stub;
    {
      std::unique_lock lock(mu_);
      left_ = true;
      wanted_.clear();
      // An update in flight would land after the delete and bring the affiliate back.
      cv_.wait(lock, [this] { return !sending_; });
      stub = stub_;
    }
    cv_.notify_all();
    grpc::ClientContext context;
    context.set_deadline(deadline_in(deadline));
    pb::AffiliateDeleteRequest request;
    request.set_cluster_id(options_.cluster_id);
    request.set_affiliate_id(options_.affiliate_id);
    pb::AffiliateDeleteResponse response;
    auto status = stub->AffiliateDelete(&context, request, &response);
    if (!status.ok()) {
      return Error(ErrorKind::kUnavailable, "deleting the affiliate at " + endpoint() + ": " + status.error_message());
    }
    return {};
  }

  std::vector<controllers::DiscoveryPeer> peers() const override {
    std::lock_guard lock(mu_);
    std::vector<controllers::DiscoveryPeer> out;
    out.reserve(peers_.size());
    for (const auto& [id, spec] : peers_) out.push_back({id, spec});
    return out;
  }

 private:
  std::string endpoint() const {
    std::lock_guard lock(mu_);
    return current_.text;
  }

  void connect(const config::Url& url) {
    std::shared_ptr<grpc::ChannelCredentials> creds =
        url.scheme == "https" ? grpc::SslCredentials({}) : grpc::InsecureChannelCredentials();
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, static_cast<int>(backoff_cap_.count()));
    const std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
    auto channel = grpc::CreateCustomChannel(host + ":" + std::to_string(url.port ? url.port : (url.scheme == "https" ? 443 : 80)),
                                             creds, args);
    std::lock_guard lock(mu_);
    current_ = url;
    stub_ = std::make_shared<pb::Cluster::Stub>(channel);
  }

  // Hello, following redirects. False when the service cannot be reached.
  bool hello() {
    for (int i = 0; i <= kMaxRedirects; ++i) {
      std::shared_ptr<pb::Cluster::Stub> stub;
      {
        std::lock_guard lock(mu_);
        stub = stub_;
      }
      grpc::ClientContext context;
      context.set_deadline(deadline_in(kCallDeadline));
      pb::HelloRequest request;
      request.set_cluster_id(options_.cluster_id);
      request.set_client_version("cosi-cpp v0.1.0");
      pb::HelloResponse response;
      auto status = stub->Hello(&context, request, &response);
      if (!status.ok()) {
        note_failure("hello", status);
        return false;
      }
      if (!response.has_redirect() || response.redirect().endpoint().empty()) return true;
      std::string target = response.redirect().endpoint();
      if (target.find("://") == std::string::npos) target = url_.scheme + "://" + target;
      auto url = config::parse_url(target);
      if (!url.ok()) {
        options_.log.warn("discovery service redirected to an invalid endpoint; staying", {{"redirect", target}});
        return true;
      }
      options_.log.info("discovery service redirected", {{"from", endpoint()}, {"to", url->text}});
      connect(*url);
    }
    return true;
  }

  void note_failure(const char* what, const grpc::Status& status) {
    options_.log.warn("discovery service call failed", {{"call", what}, {"endpoint", endpoint()}, {"error", status.error_message()}});
  }

  // Sleeps `d` unless stopped; false when stopped.
  bool pause(std::chrono::milliseconds d) {
    std::unique_lock lock(mu_);
    return !cv_.wait_for(lock, d, [this] { return stopped_; });
  }

  std::chrono::milliseconds next_backoff(std::chrono::milliseconds current) const {
    return std::min(backoff_cap_, current * 2);
  }

  void watch_loop() {
    auto backoff = 100ms;
    while (true) {
      {
        std::lock_guard lock(mu_);
        if (stopped_) return;
      }
      if (hello()) {
        // The service may have restarted without our record: send it again now.
        {
          std::lock_guard lock(mu_);
          sent_.clear();
          greeted_ = true;
        }
        cv_.notify_all();
        if (watch_once()) backoff = 100ms;
      }
      if (!pause(backoff)) return;
      backoff = next_backoff(backoff);
    }
  }

  // One Watch stream until it fails. True when it delivered at least its snapshot.
  bool watch_once() {
    auto context = std::make_shared<grpc::ClientContext>();
    std::shared_ptr<pb::Cluster::Stub> stub;
    {
      std::lock_guard lock(mu_);
      if (stopped_) return false;
      watch_context_ = context;
      stub = stub_;
    }
    pb::WatchRequest request;
    request.set_cluster_id(options_.cluster_id);
    auto reader = stub->Watch(context.get(), request);
    pb::WatchResponse message;
    bool first = true;
    while (reader->Read(&message)) {
      apply(message, first);
      first = false;
    }
    auto status = reader->Finish();
    {
      std::lock_guard lock(mu_);
      watch_context_.reset();
      if (stopped_) return !first;
    }
    note_failure("watch", status);
    return !first;
  }

  void apply(const pb::WatchResponse& message, bool snapshot) {
    std::map<std::string, AffiliateSpec> opened;
    std::vector<std::string> deleted;
    for (const auto& a : message.affiliates()) {
      if (a.id() == options_.affiliate_id) continue;
      if (message.deleted()) {
        deleted.push_back(a.id());
        continue;
      }
      auto plain = cipher_.open(a.data());
      wire::Affiliate w;
      if (!plain.ok() || !w.ParseFromString(*plain)) {
        std::lock_guard lock(mu_);
        if (unreadable_.insert(a.id()).second) {
          options_.log.warn("skipping an affiliate this node cannot decrypt (another cluster secret?)",
                            {{"affiliate", a.id()}, {"endpoint", current_.text}});
        }
        continue;
      }
      opened[a.id()] = from_wire(w);
    }
    bool changed = false;
    {
      std::lock_guard lock(mu_);
      if (snapshot) {
        for (auto it = peers_.begin(); it != peers_.end();) {
          if (!opened.contains(it->first)) {
            it = peers_.erase(it);
            changed = true;
          } else {
            ++it;
          }
        }
      }
      for (auto& [id, spec] : opened) {
        unreadable_.erase(id);
        auto it = peers_.find(id);
        if (it != peers_.end() && it->second.SerializeAsString() == spec.SerializeAsString()) continue;
        peers_[id] = std::move(spec);
        changed = true;
      }
      for (const auto& id : deleted) changed |= peers_.erase(id) > 0;
    }
    if (changed && options_.on_change) options_.on_change();
  }

  void publish_loop() {
    auto backoff = 100ms;
    std::unique_lock lock(mu_);
    while (!stopped_) {
      const auto refresh_at = last_sent_ + options_.ttl / 2;
      cv_.wait_until(lock, refresh_at, [&] {
        return stopped_ || (greeted_ && !left_ && !wanted_.empty() &&
                            (wanted_ != sent_ || std::chrono::steady_clock::now() >= refresh_at));
      });
      if (stopped_) return;
      if (!greeted_ || left_ || wanted_.empty()) continue;
      if (wanted_ == sent_ && std::chrono::steady_clock::now() < refresh_at) continue;
      std::string plain = wanted_;
      auto stub = stub_;
      sending_ = true;
      lock.unlock();
      auto status = send(*stub, plain);
      lock.lock();
      sending_ = false;
      cv_.notify_all();
      if (status.ok()) {
        sent_ = plain;
        last_sent_ = std::chrono::steady_clock::now();
        backoff = 100ms;
        continue;
      }
      lock.unlock();
      note_failure("affiliate update", status);
      if (!pause(backoff)) return;
      backoff = next_backoff(backoff);
      lock.lock();
    }
  }

  grpc::Status send(pb::Cluster::Stub& stub, const std::string& plain) {
    grpc::ClientContext context;
    context.set_deadline(deadline_in(kCallDeadline));
    pb::AffiliateUpdateRequest request;
    request.set_cluster_id(options_.cluster_id);
    request.set_affiliate_id(options_.affiliate_id);
    request.set_affiliate_data(cipher_.seal(plain));
    const auto ttl = options_.ttl;
    request.mutable_ttl()->set_seconds(std::chrono::duration_cast<std::chrono::seconds>(ttl).count());
    request.mutable_ttl()->set_nanos(static_cast<int32_t>((ttl % 1s).count() * 1000000));
    pb::AffiliateUpdateResponse response;
    return stub.AffiliateUpdate(&context, request, &response);
  }

  const controllers::DiscoveryClientOptions options_;
  const AffiliateCipher cipher_;
  const config::Url url_;
  std::chrono::milliseconds backoff_cap_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
  bool left_ = false;
  bool sending_ = false;
  bool greeted_ = false;  // Hello answered (and any redirect followed): publishing may start
  config::Url current_;
  std::shared_ptr<pb::Cluster::Stub> stub_;
  std::shared_ptr<grpc::ClientContext> watch_context_;
  std::string wanted_;  // the plaintext to publish; empty: nothing yet
  std::string sent_;    // the plaintext the service has
  std::chrono::steady_clock::time_point last_sent_{};
  std::map<std::string, AffiliateSpec> peers_;
  std::set<std::string> unreadable_;  // peers already logged as undecryptable

  std::thread watcher_;
  std::thread publisher_;
};

}  // namespace

Result<std::unique_ptr<controllers::DiscoveryClient>> make_grpc_discovery_client(controllers::DiscoveryClientOptions options) {
  auto url = config::parse_url(options.endpoint);
  if (!url.ok()) return Error(ErrorKind::kInvalidArgument, "discovery endpoint: " + url.error().message());
  auto cipher = AffiliateCipher::create(options.secret);
  if (!cipher.ok()) return cipher.error();
  if (options.cluster_id.empty()) return Error(ErrorKind::kInvalidArgument, "discovery needs a cluster id (cluster.id)");
  if (options.ttl <= std::chrono::milliseconds::zero()) return Error(ErrorKind::kInvalidArgument, "discovery TTL must be positive");
  return std::unique_ptr<controllers::DiscoveryClient>(
      std::make_unique<GrpcDiscoveryClient>(std::move(options), std::move(*cipher), std::move(*url)));
}

}  // namespace cosi::discovery
