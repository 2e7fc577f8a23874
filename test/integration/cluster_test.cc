// Local clusters with real processes: `cosictl cluster create` (discoveryd and a machined per
// node), Members on every node, a SIGKILLed worker expiring after the (test-set) TTL, a
// graceful reset gone within a second, discoveryd restarted from its snapshot without a member
// flapping, a node with the wrong cluster secret, discoveryd's limits, two clusters side by
// side. Blocks: 127.24.0.0/24 (the five-node cluster), 127.25.0.0/24 and 127.26.0.0/24.
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "discovery.grpc.pb.h"
#include "runtime/base/base64.h"
#include "test/integration/local_cluster.h"
#include "test/support/eventually.h"
#include "test/support/http_get.h"
#include "test/support/process.h"

namespace cosi::testing {
namespace {

using Catch::Matchers::Contains;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace pb = ::sidero::discovery::server;

std::unique_ptr<pb::Cluster::Stub> discovery_stub(const std::string& ip) {
  return pb::Cluster::NewStub(grpc::CreateChannel(ip + ":3000", grpc::InsecureChannelCredentials()));
}

grpc::Status update(pb::Cluster::Stub& stub, const std::string& cluster, const std::string& id, size_t data_size) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 5s);
  pb::AffiliateUpdateRequest r;
  r.set_cluster_id(cluster);
  r.set_affiliate_id(id);
  r.set_affiliate_data(std::string(data_size, 'd'));
  r.mutable_ttl()->set_seconds(60);
  pb::AffiliateUpdateResponse out;
  return stub.AffiliateUpdate(&ctx, r, &out);
}

TEST_CASE("a five-node local cluster: members everywhere, TTL expiry, graceful reset, discoveryd restarts and limits", "[cluster]") {
  LocalCluster c("t1", "127.24.0.0/24", 3, 2);
  CHECK_THAT(c.created.out, Contains("t1-controlplane-1                controlplane   127.24.0.10\n"));
  CHECK_THAT(c.created.out, Contains("cluster t1 is up: every node lists all 5 members; etcd has 3 healthy voting members\n"));

  // Every node lists all five, with their machine types and addresses.
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {"t1-controlplane-1", {"controlplane", "127.24.0.10"}}, {"t1-controlplane-2", {"controlplane", "127.24.0.11"}},
      {"t1-controlplane-3", {"controlplane", "127.24.0.12"}}, {"t1-worker-1", {"worker", "127.24.0.13"}},
      {"t1-worker-2", {"worker", "127.24.0.14"}}};
  for (size_t i = 0; i < 5; ++i) CHECK(c.members(c.ip(i)) == expected);
  // talosctl's way through the merged talosconfig: endpoint the control planes, default node.
  auto plain = cosictl({"get", "members"});
  CHECK(plain.status == 0);
  CHECK_THAT(plain.out, Contains("127.24.0.10   cluster     Member   t1-worker-2"));

  // discoveryd refuses what is too big or malformed with upstream's codes and keeps serving.
  auto stub = discovery_stub(c.discovery_ip());
  CHECK(update(*stub, "flood", "a", 2049).error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(update(*stub, "flood", "", 10).error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(update(*stub, std::string(300, 'c'), "a", 10).error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  for (int i = 0; i < 1024; ++i) REQUIRE(update(*stub, "flood", "id-" + std::to_string(i), 10).ok());
  CHECK(update(*stub, "flood", "one-too-many", 10).error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
  CHECK(c.members(c.ip(0)) == expected);

  // discoveryd restarted from its snapshot: the nodes reconnect and no member flaps.
  const auto before = c.created_times(c.ip(0));
  const pid_t discoveryd = c.state["discoveryd"]["pid"].as<pid_t>();
  REQUIRE(kill(discoveryd, SIGTERM) == 0);
  REQUIRE(eventually([&] { return kill(discoveryd, 0) != 0 || slurp(c.dir() / "discoveryd.log").find("msg=stopping") != std::string::npos; },
                     in_seconds(10)));
  REQUIRE(eventually([&] { return kill(discoveryd, 0) != 0 || slurp("/proc/" + std::to_string(discoveryd) + "/stat").find(" Z ") != std::string::npos; },
                     in_seconds(10)));
  Process restarted({binary("COSI_DISCOVERYD"), "--listen", c.discovery_ip() + ":3000", "--metrics-listen",
                     c.discovery_ip() + ":3001", "--rate-limit", "0", "--snapshot-path", (c.dir() / "discoveryd.snapshot").string()});
  auto ready = restarted.wait_for_line("discoveryd ready", in_seconds(10));
  REQUIRE(ready);
  CHECK_THAT(*ready, Contains("restored_affiliates=1029"));  // five nodes and the flood
  REQUIRE(eventually([&] {
    return http_get(c.discovery_ip(), 3001, "/metrics").find("discovery_watchers 5\n") != std::string::npos;
  }, in_seconds(20)));
  CHECK(c.created_times(c.ip(0)) == before);

  // A worker killed with SIGKILL leaves every member list once its TTL (3 s) has passed.
  REQUIRE(kill(c.pid(3), SIGKILL) == 0);
  REQUIRE(eventually([&] { return !c.members(c.ip(0)).contains("t1-worker-1"); }, in_seconds(15)));
  REQUIRE(eventually([&] { return !c.members(c.ip(4)).contains("t1-worker-1"); }, in_seconds(5)));

  // A graceful reset: gone from the peers within a second, the node back in maintenance mode.
  const auto reset_at = std::chrono::steady_clock::now();
  auto reset = cosictl({"--talosconfig", c.talosconfig(), "-n", c.ip(4), "reset"});
  REQUIRE(reset.status == 0);
  REQUIRE(eventually([&] { return !c.members(c.ip(0)).contains("t1-worker-2"); }, in_seconds(5), 10ms));
  CHECK(std::chrono::steady_clock::now() - reset_at < 1s);
  // Back in maintenance mode (once it has started again): it answers without credentials.
  CHECK(eventually([&] { return cosictl({"--insecure", "-e", c.ip(4), "-n", c.ip(4), "get", "rd"}).status == 0; }, in_seconds(10)));
  CHECK(fs::exists(c.dir() / "t1-worker-2" / "node-identity.yaml"));
  CHECK_FALSE(fs::exists(c.dir() / "t1-worker-2" / "config.yaml"));

  // Re-installed (a new identity) under the same name: one member again, not two.
  auto again = cosictl({"apply-config", "--insecure", "-e", c.ip(4), "-n", c.ip(4), "-f", (c.dir() / "t1-worker-2.yaml").string()});
  REQUIRE(again.status == 0);
  REQUIRE(eventually([&] { return c.members(c.ip(0)).contains("t1-worker-2"); }, in_seconds(10)));
  CHECK(c.members(c.ip(0)).size() == 4);

  // A node with another cluster secret sees no peer, says why, and nobody sees it.
  const fs::path stranger_dir = c.root / "stranger";
  fs::create_directories(stranger_dir);
  std::string worker = slurp(c.dir() / "worker.yaml");
  const std::string secret_key = "secret: ";
  const auto at = worker.find(secret_key, worker.find("cluster:"));
  REQUIRE(at != std::string::npos);
  worker.replace(at + secret_key.size(), worker.find('\n', at) - at - secret_key.size(), base64_encode(std::string(32, 'z')));
  std::ofstream(stranger_dir / "config.yaml") << worker;
  Process stranger({binary("COSI_MACHINED"), "--listen", "127.24.0.40:50000", "--state-dir", (stranger_dir / "state").string(),
                    "--hostname", "t1-stranger", "--discovery-ttl", "3s", "--no-install"});
  REQUIRE(stranger.wait_for_line("machined ready", in_seconds(10)));
  auto applied = cosictl({"apply-config", "--insecure", "-e", "127.24.0.40", "-n", "127.24.0.40", "-f", (stranger_dir / "config.yaml").string()});
  REQUIRE(applied.status == 0);
  REQUIRE(stranger.wait_for_line("skipping an affiliate this node cannot decrypt", in_seconds(10)));
  auto own = c.members("127.24.0.40");
  CHECK(own.size() == 1);
  CHECK(own.contains("t1-stranger"));
  CHECK_FALSE(c.members(c.ip(0)).contains("t1-stranger"));
  CHECK(stranger.stop() == 0);
  CHECK(restarted.stop() == 0);
}

TEST_CASE("two local clusters side by side on different blocks see only their own members", "[cluster]") {
  LocalCluster a("ta", "127.25.0.0/24", 1, 1);
  LocalCluster b("tb", "127.26.0.0/24", 1, 0);
  auto from_a = a.members("127.25.0.10");
  CHECK(from_a.size() == 2);
  CHECK(from_a.contains("ta-worker-1"));
  auto from_b = b.members("127.26.0.10");
  CHECK(from_b.size() == 1);
  CHECK(from_b.contains("tb-controlplane-1"));
  auto twice = cosictl({"cluster", "create", "--name", "ta", "--cidr", "127.25.0.0/24", "--state-dir", a.root.string()});
  CHECK(twice.status != 0);
  CHECK_THAT(twice.err, Contains("cluster \"ta\" already exists"));
  auto outside = cosictl({"cluster", "create", "--name", "tx", "--cidr", "10.0.0.0/24", "--state-dir", a.root.string()});
  CHECK(outside.status != 0);
  CHECK_THAT(outside.err, Contains("--cidr \"10.0.0.0/24\" is not loopback"));
  CHECK_THAT(outside.err, Contains("needs --netns"));

  // The VIP needs nodes that own their links: refused on loopback, and checked against the
  // block, before anything is made.
  auto vip_on_loopback = cosictl({"cluster", "create", "--name", "tv", "--cidr", "127.23.0.0/24", "--vip", "127.23.0.5", "--state-dir", a.root.string()});
  CHECK(vip_on_loopback.status != 0);
  CHECK_THAT(vip_on_loopback.err, Contains("--vip needs --netns"));
  auto netns_on_loopback = cosictl({"cluster", "create", "--name", "tv", "--netns", "--cidr", "127.23.0.0/24", "--state-dir", a.root.string()});
  CHECK(netns_on_loopback.status != 0);
  CHECK_THAT(netns_on_loopback.err, Contains("is loopback: --netns"));
  for (const char* bad : {"198.51.100.200", "198.51.100.1", "198.51.100.10", "not-an-ip"}) {
    auto refused = cosictl({"cluster", "create", "--name", "tv", "--netns", "--cidr", "198.51.100.0/27", "--vip", bad, "--state-dir", a.root.string()});
    CHECK(refused.status != 0);
    CHECK_THAT(refused.err, Contains(std::string("--vip ")));
  }
  CHECK_FALSE(fs::exists(a.root / "tv"));
}

}  // namespace
}  // namespace cosi::testing
