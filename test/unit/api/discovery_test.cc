// The discovery wire on real gRPC over loopback (127.23.0.x): the affiliate cipher, our
// service's limits, watches, expiry, slow watchers and snapshots, and the client machined
// runs against it (publish, peers, wrong secret, leave, redirect, reconnect).
#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>

#include "api/discovery/affiliate_cipher.h"
#include "api/discovery/discovery_service.h"
#include "api/discovery/grpc_discovery_client.h"
#include "discovery_affiliate.pb.h"
#include "test/support/eventually.h"
#include "test/support/process.h"

namespace cosi::testing {
namespace {

using namespace std::chrono_literals;
using discovery::AffiliateCipher;
using discovery::DiscoveryService;
using discovery::DiscoveryServiceOptions;
using discovery::SystemClock;
namespace pb = ::sidero::discovery::server;

const std::string kKey(32, 'k');

TEST_CASE("affiliate data is sealed with AES-GCM and endpoints with AES-ECB under the cluster secret", "[discovery]") {
  auto cipher = AffiliateCipher::create(kKey);
  REQUIRE(cipher.ok());
  CHECK_FALSE(AffiliateCipher::create("short").ok());
  const std::string plain = "node data";
  const std::string a = cipher->seal(plain), b = cipher->seal(plain);
  CHECK(a.size() == 12 + plain.size() + 16);
  CHECK(a != b);  // a fresh nonce each time
  CHECK(*cipher->open(a) == plain);
  auto other = AffiliateCipher::create(std::string(32, 'o'));
  CHECK(other->open(a).error().message() == "the affiliate data is not sealed with this cluster's secret");
  std::string tampered = a;
  tampered[14] ^= 1;
  CHECK_FALSE(cipher->open(tampered).ok());
  CHECK_FALSE(cipher->open("short").ok());

  auto e1 = cipher->seal_endpoint("\x0a\x04\x7f\x00\x00\x01\x10\x90\x03");
  REQUIRE(e1.ok());
  CHECK(e1->size() == 16);
  CHECK(*cipher->seal_endpoint("\x0a\x04\x7f\x00\x00\x01\x10\x90\x03") == *e1);  // deterministic
  CHECK(*cipher->open_endpoint(*e1) == "\x0a\x04\x7f\x00\x00\x01\x10\x90\x03");
  CHECK(cipher->seal_endpoint(std::string(40, 'x'))->size() == 48);
  CHECK_FALSE(other->open_endpoint(*e1).ok());
  CHECK_FALSE(cipher->seal_endpoint(std::string(256, 'x')).ok());
}

// A service on 127.23.0.<n>, with a clock the test moves.
struct Served {
  explicit Served(DiscoveryServiceOptions options, int n = 1, int fixed_port = 0) {
    options.now = [this] { return now(); };
    service = std::make_unique<DiscoveryService>(std::move(options));
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.23.0." + std::to_string(n) + ":" + std::to_string(fixed_port), grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service.get());
    server = builder.BuildAndStart();
    endpoint = "http://127.23.0." + std::to_string(n) + ":" + std::to_string(port);
    channel = grpc::CreateChannel("127.23.0." + std::to_string(n) + ":" + std::to_string(port), grpc::InsecureChannelCredentials());
    stub = pb::Cluster::NewStub(channel);
  }
  ~Served() {
    service->stop();
    server->Shutdown(std::chrono::system_clock::now() + 1s);
  }
  SystemClock::time_point now() {
    std::lock_guard lock(mu);
    return SystemClock::now() + offset;
  }
  void advance(std::chrono::seconds d) {
    std::lock_guard lock(mu);
    offset += d;
  }

  grpc::Status update(const std::string& cluster, const std::string& id, const std::string& data,
                      std::chrono::seconds ttl = 60s, int endpoints = 0) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 5s);
    pb::AffiliateUpdateRequest r;
    r.set_cluster_id(cluster);
    r.set_affiliate_id(id);
    r.set_affiliate_data(data);
    for (int i = 0; i < endpoints; ++i) r.add_affiliate_endpoints(std::string(16, static_cast<char>('a' + i % 26)) + std::to_string(i));
    r.mutable_ttl()->set_seconds(ttl.count());
    pb::AffiliateUpdateResponse out;
    return stub->AffiliateUpdate(&ctx, r, &out);
  }
  std::vector<std::string> list(const std::string& cluster) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 5s);
    pb::ListRequest r;
    r.set_cluster_id(cluster);
    pb::ListResponse out;
    auto s = stub->List(&ctx, r, &out);
    REQUIRE(s.ok());
    std::vector<std::string> ids;
    for (const auto& a : out.affiliates()) ids.push_back(a.id() + "=" + a.data());
    return ids;
  }

  std::mutex mu;
  std::chrono::seconds offset{0};
  std::unique_ptr<DiscoveryService> service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::string endpoint;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::Cluster::Stub> stub;
};

TEST_CASE("discoveryd refuses what upstream refuses with its codes, changes nothing, and keeps serving", "[discovery]") {
  Served s({.max_affiliates = 3, .rate_limit = 0});
  REQUIRE(s.update("c", "a", "one").ok());
  auto code = [](const grpc::Status& st) { return st.error_code(); };
  CHECK(code(s.update("", "a", "x")) == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(s.update(std::string(257, 'c'), "a", "x").error_message() == "cluster id is too long (257 > 256 characters)");
  CHECK(code(s.update("c", std::string(257, 'a'), "x")) == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(s.update("c", "a", std::string(2049, 'd')).error_message() == "affiliate data is too big (2049 > 2048 bytes)");
  CHECK(s.update("c", "a", "x", 60s, 65).error_message() == "too many endpoints (65 > 64)");
  CHECK(code(s.update("c", "a", "x", 31min)) == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(code(s.update("c", "a", "x", 0s)) == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(s.list("c") == std::vector<std::string>{"a=one"});  // nothing changed
  REQUIRE(s.update("c", "b", "two").ok());
  REQUIRE(s.update("c", "d", "three").ok());
  auto full = s.update("c", "e", "four");
  CHECK(code(full) == grpc::StatusCode::RESOURCE_EXHAUSTED);
  CHECK(full.error_message() == "too many affiliates in cluster (3)");
  CHECK(s.update("c", "a", "one again").ok());  // an existing affiliate may still update
  CHECK(s.update("other", "e", "four").ok());   // clusters are isolated
  CHECK(s.list("c") == std::vector<std::string>{"a=one again", "b=two", "d=three"});
  CHECK(s.list("other") == std::vector<std::string>{"e=four"});
}

TEST_CASE("discoveryd limits each client address's request rate", "[discovery]") {
  Served s({.rate_limit = 1, .rate_burst = 3}, 2);
  for (int i = 0; i < 3; ++i) REQUIRE(s.update("c", "a", "x").ok());
  auto limited = s.update("c", "a", "x");
  CHECK(limited.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
  CHECK_THAT(limited.error_message(), Catch::Matchers::StartsWith("rate limit exceeded for 127.0.0.1"));
  s.advance(2s);  // tokens refill with time
  CHECK(s.update("c", "a", "y").ok());
}

TEST_CASE("watch: a snapshot first, then updates and deletions; TTL expiry tells watchers", "[discovery]") {
  Served s({.rate_limit = 0}, 3);
  REQUIRE(s.update("c", "a", "one", 10s).ok());
  grpc::ClientContext ctx;
  pb::WatchRequest req;
  req.set_cluster_id("c");
  auto reader = s.stub->Watch(&ctx, req);
  pb::WatchResponse m;
  REQUIRE(reader->Read(&m));
  REQUIRE(m.affiliates_size() == 1);
  CHECK(m.affiliates(0).id() == "a");
  CHECK_FALSE(m.deleted());

  REQUIRE(s.update("c", "b", "two", 60s).ok());
  REQUIRE(reader->Read(&m));
  CHECK((m.affiliates(0).id() == "b" && m.affiliates(0).data() == "two" && !m.deleted()));
  REQUIRE(s.update("c", "b", "two", 60s).ok());  // a refresh with the same data: nothing sent
  REQUIRE(s.update("c", "b", "two!", 60s).ok());
  REQUIRE(reader->Read(&m));
  CHECK(m.affiliates(0).data() == "two!");

  grpc::ClientContext dctx;
  pb::AffiliateDeleteRequest del;
  del.set_cluster_id("c");
  del.set_affiliate_id("b");
  pb::AffiliateDeleteResponse dout;
  REQUIRE(s.stub->AffiliateDelete(&dctx, del, &dout).ok());
  REQUIRE(reader->Read(&m));
  CHECK((m.affiliates(0).id() == "b" && m.deleted()));

  s.advance(11s);  // past a's TTL
  CHECK(s.list("c").empty());  // never listed once expired, even before collection
  CHECK(s.service->collect() == 1);
  REQUIRE(reader->Read(&m));
  CHECK((m.affiliates(0).id() == "a" && m.deleted()));
  ctx.TryCancel();
  (void)reader->Finish();  // a stream is finished before its reader goes
}

TEST_CASE("a watcher that stops reading is cut off; the others get every update", "[discovery]") {
  Served s({.rate_limit = 0, .watch_queue = 64}, 4);
  grpc::ClientContext slow_ctx, fast_ctx;
  pb::WatchRequest req;
  req.set_cluster_id("c");
  // Each watcher on its own connection, as each node has.
  auto connect = [&] {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return pb::Cluster::NewStub(grpc::CreateCustomChannel(s.endpoint.substr(7), grpc::InsecureChannelCredentials(), args));
  };
  auto slow_stub = connect(), fast_stub = connect();
  auto slow = slow_stub->Watch(&slow_ctx, req);
  auto fast = fast_stub->Watch(&fast_ctx, req);
  pb::WatchResponse m;
  REQUIRE(slow->Read(&m));  // the snapshot; then it never reads again
  REQUIRE(fast->Read(&m));
  constexpr int kUpdates = 5000;
  std::atomic<int> received{0};
  std::thread reader([&] {
    pb::WatchResponse r;
    while (received < kUpdates && fast->Read(&r)) ++received;
  });
  // 10 MB: more than gRPC buffers for a stream nobody reads, so its writer blocks and its
  // queue grows past the limit. The reading watcher is let catch up every 16 updates: on a
  // busy machine the writer could otherwise outrun it by the whole queue, and cut it off too.
  for (int i = 0; i < kUpdates; ++i) {
    REQUIRE(s.update("c", "a", std::to_string(i) + std::string(2000, 'x')).ok());
    if (i % 16 == 15) REQUIRE(eventually([&] { return received >= i - 16; }, in_seconds(10)));
  }
  reader.join();
  CHECK(received == kUpdates);
  CHECK(s.service->metrics().render().find("discovery_watchers_cut_off_total 1\n") != std::string::npos);
  slow_ctx.TryCancel();
  fast_ctx.TryCancel();
  while (slow->Read(&m)) {
  }
  (void)slow->Finish();
  while (fast->Read(&m)) {
  }
  (void)fast->Finish();
}

TEST_CASE("a snapshot restores every affiliate, their TTLs paused while the service was down", "[discovery]") {
  Served s({.rate_limit = 0}, 5);
  REQUIRE(s.update("c", "a", "one", 60s).ok());
  REQUIRE(s.update("c", "b", "two", 5s).ok());
  REQUIRE(s.update("d", "x", "three", 60s).ok());
  auto saved = s.service->snapshot();
  Served restored({.rate_limit = 0}, 6);
  restored.advance(10s);  // down for 10 s: b's 5 s have not run meanwhile
  restored.service->restore(saved);
  CHECK(restored.list("c") == std::vector<std::string>{"a=one", "b=two"});
  CHECK(restored.list("d") == std::vector<std::string>{"x=three"});
  restored.advance(4s);
  CHECK(restored.list("c") == std::vector<std::string>{"a=one", "b=two"});
  restored.advance(2s);  // b's TTL is over after 5 s of service time
  CHECK(restored.service->collect() == 1);
  CHECK(restored.list("c") == std::vector<std::string>{"a=one"});
}

// A client as machined runs it, with its peers observable.
struct Node {
  Node(const std::string& endpoint, const std::string& id, const std::string& key, std::chrono::milliseconds ttl = 60s) {
    auto made = discovery::make_grpc_discovery_client({.endpoint = endpoint,
                                                       .cluster_id = "cluster-1",
                                                       .secret = key,
                                                       .affiliate_id = id,
                                                       .ttl = ttl,
                                                       .on_change = [this] { ++changes; },
                                                       .log = Logger([this](const LogRecord& r) {
                                                         std::lock_guard lock(mu);
                                                         logs.push_back(r.message);
                                                       })});
    REQUIRE(made.ok());
    client = std::move(*made);
    resources::AffiliateSpec spec;
    spec.set_node_id(id);
    spec.set_hostname(id + ".local");
    spec.set_nodename(id);
    spec.add_addresses()->set_ip(std::string("\x7f\x17\x00\x09", 4));
    spec.set_machine_type(::talos::resource::definitions::enums::TYPE_CONTROL_PLANE);
    spec.mutable_control_plane()->set_api_server_port(6443);
    client->publish(spec);
  }
  std::vector<std::string> peer_ids() const {
    std::vector<std::string> out;
    for (const auto& p : client->peers()) out.push_back(p.id);
    return out;
  }
  size_t count_logs(const std::string& text) {
    std::lock_guard lock(mu);
    return std::count_if(logs.begin(), logs.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; });
  }
  std::mutex mu;
  std::vector<std::string> logs;
  std::atomic<int> changes{0};
  std::unique_ptr<controllers::DiscoveryClient> client;
};

TEST_CASE("clients with the cluster secret see each other; another secret sees nothing and says why once", "[discovery]") {
  Served s({.rate_limit = 0}, 7);
  Node a(s.endpoint, "node-a", kKey), b(s.endpoint, "node-b", kKey);
  REQUIRE(eventually([&] { return a.peer_ids() == std::vector<std::string>{"node-b"} && b.peer_ids() == std::vector<std::string>{"node-a"}; },
                     in_seconds(10)));
  auto peer = a.client->peers().at(0).affiliate;
  CHECK(peer.hostname() == "node-b.local");
  CHECK(peer.machine_type() == ::talos::resource::definitions::enums::TYPE_CONTROL_PLANE);
  CHECK(peer.control_plane().api_server_port() == 6443);
  CHECK(peer.addresses(0).ip() == std::string("\x7f\x17\x00\x09", 4));
  CHECK(a.changes >= 1);

  // The service only ever held ciphertext.
  auto stored = s.list("cluster-1");
  REQUIRE(stored.size() == 2);
  CHECK(stored[0].find("node-a.local") == std::string::npos);

  Node stranger(s.endpoint, "node-x", std::string(32, 'x'));
  REQUIRE(eventually([&] { return stranger.count_logs("cannot decrypt") == 2; }, in_seconds(10)));
  CHECK(stranger.peer_ids().empty());
  REQUIRE(eventually([&] { return s.list("cluster-1").size() == 3; }, in_seconds(10)));
  CHECK(a.peer_ids() == std::vector<std::string>{"node-b"});  // and a cannot read the stranger
  // Another update of the same peers: still one line per peer.
  b.client->publish([] {
    resources::AffiliateSpec s2;
    s2.set_node_id("node-b");
    s2.set_hostname("renamed");
    return s2;
  }());
  REQUIRE(eventually([&] { return a.client->peers().at(0).affiliate.hostname() == "renamed"; }, in_seconds(10)));
  CHECK(stranger.count_logs("cannot decrypt") == 2);
}

TEST_CASE("leave deletes the affiliate at once; a client refreshes before its TTL runs out", "[discovery]") {
  Served s({.rate_limit = 0}, 8);
  Node a(s.endpoint, "node-a", kKey, 2s), b(s.endpoint, "node-b", kKey, 2s);
  REQUIRE(eventually([&] { return a.peer_ids().size() == 1 && b.peer_ids().size() == 1; }, in_seconds(10)));
  // Each refreshes at TTL/2 with unchanged data (no message to watchers), so nothing expires.
  const uint64_t before = s.service->stats().updates;
  REQUIRE(eventually([&] { return s.service->stats().updates >= before + 4; }, in_seconds(10)));
  const int changes = a.changes;
  CHECK(s.service->collect() == 0);
  CHECK(s.service->stats().affiliates == 2);
  CHECK(a.changes == changes);
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(b.client->leave(1s).ok());
  REQUIRE(eventually([&] { return a.peer_ids().empty(); }, in_seconds(5)));
  CHECK(std::chrono::steady_clock::now() - started < 1s);
}

TEST_CASE("a client follows Hello's redirect", "[discovery]") {
  Served target({.rate_limit = 0}, 9);
  Served redirecting({.rate_limit = 0, .redirect = target.endpoint}, 10);
  Node a(redirecting.endpoint, "node-a", kKey);
  Node b(target.endpoint, "node-b", kKey);
  REQUIRE(eventually([&] { return a.peer_ids() == std::vector<std::string>{"node-b"}; }, in_seconds(10)));
  // a sees b once its watch on the target runs; its own update may land just after.
  REQUIRE(eventually([&] { return target.list("cluster-1").size() == 2; }, in_seconds(10)));
  CHECK(redirecting.list("cluster-1").empty());
}

TEST_CASE("clients keep their peers while the service is down and publish again when it is back", "[discovery]") {
  auto service = std::make_unique<Served>(DiscoveryServiceOptions{.rate_limit = 0}, 11);
  const int port = service->port;
  Node a(service->endpoint, "node-a", kKey, 4s), b(service->endpoint, "node-b", kKey, 4s);
  REQUIRE(eventually([&] { return a.peer_ids().size() == 1 && b.peer_ids().size() == 1; }, in_seconds(10)));
  service.reset();  // down, state lost
  REQUIRE(eventually([&] { return a.count_logs("discovery service call failed") > 0; }, in_seconds(10)));
  CHECK(a.peer_ids() == std::vector<std::string>{"node-b"});  // no flap while it is away
  service = std::make_unique<Served>(DiscoveryServiceOptions{.rate_limit = 0}, 11, port);
  REQUIRE(eventually([&] { return service->list("cluster-1").size() == 2; }, in_seconds(10)));
  // The service has both again; a's watch brings b back (it may show b gone a moment while the
  // new service's first snapshot has only a).
  CHECK(eventually([&] { return a.peer_ids() == std::vector<std::string>{"node-b"}; }, in_seconds(10)));
}

}  // namespace
}  // namespace cosi::testing
