// The shared VIP with real processes (root): `cosictl cluster create --netns --vip` makes three
// control planes, each machined in a network namespace of its own on one bridge
// (198.51.100.0/27, VIP .5), and a client namespace joins the bridge at .20. Through all of it a
// sampler reads every control plane's addresses every 20 ms and fails on any instant with two
// holders.
//
//   the VIP answers: machined's API port accepts a connection on it, ARP replies come from the
//   holder's MAC; SIGKILL of the holder's machined → another node holds it, and the client's
//   neighbour entry points at the new MAC; SIGSTOP of the holder → held elsewhere once its
//   lease could have expired, and when thawed the old holder never takes it back; etcd frozen
//   on two of three → nobody holds it within the TTL; thawed → held again.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <netinet/in.h>

#include "test/integration/local_cluster.h"
#include "test/support/eventually.h"
#include "test/support/vip_watch.h"

namespace cosi::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const bool skipped = (skip_unless_root(), false);

const std::string kVip = "198.51.100.5";

// A TCP connection from the client namespace to the VIP's API port, within a second.
bool connects(const std::string& client_ns, const std::string& ip, int port) {
  return in_netns(client_ns, [&] {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, ip.c_str(), &to.sin_addr);
    connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to);
    pollfd p{fd, POLLOUT, 0};
    int error = -1;
    socklen_t len = sizeof error;
    if (poll(&p, 1, 1000) == 1) getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
    close(fd);
    return error == 0;
  });
}

std::string mac_text(const std::string& bytes) { return resources::hardware_addr_text(bytes); }

TEST_CASE("the shared VIP: one holder, moved on a kill or a freeze, withdrawn without quorum", "[vip]") {
  LocalCluster c("vipt", "198.51.100.0/27", 3, 0,
                 {"--netns", "--vip", kVip, "--config-patch-control-plane", kFast});
  std::vector<std::string> namespaces;
  for (size_t i = 0; i < 3; ++i) namespaces.push_back(c.state["nodes"][i]["netns"].as<std::string>());
  VipWatch watch(namespaces, c.state["netns"]["bridge"].as<std::string>(), "198.51.100.20", 27, kVip);

  // Every control plane says who holds it; the holder answers on the VIP.
  REQUIRE(eventually([&] { return watch.holder() >= 0; }, in_seconds(20)));
  int holder = watch.holder();
  for (size_t i = 0; i < 3; ++i) {
    auto r = cosictl({"--talosconfig", c.talosconfig(), "-e", c.ip(i), "-n", c.ip(i), "get", "vipstatuses", "-o", "yaml"});
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::Matchers::Contains("holder: " + c.node_name(holder)));
    CHECK_THAT(r.out, Catch::Matchers::Contains(std::string("heldByThisNode: ") + (static_cast<int>(i) == holder ? "true" : "false")));
  }
  auto statuses = cosictl({"--talosconfig", c.talosconfig(), "-e", c.ip(holder), "-n", c.ip(holder), "get", "addressstatuses"});
  CHECK_THAT(statuses.out, Catch::Matchers::Contains("eth0/198.51.100.5/32"));
  auto members = cosictl({"--talosconfig", c.talosconfig(), "-e", c.ip(holder), "-n", c.ip(holder), "get", "members", "-o", "yaml"});
  CHECK_THAT(members.out, !Catch::Matchers::Contains(kVip));  // never a node's address
  REQUIRE(connects(watch.client(), kVip, 50000));
  REQUIRE(eventually([&] { return watch.client_asks(300ms) == watch.mac(holder); }, in_seconds(5)));
  REQUIRE(watch.client_neighbour() == mac_text(watch.mac(holder)));

  // SIGKILL of the holder's machined: no resign; the kernel drops the address by itself, and
  // another node takes it once the lease expired.
  const int killed = holder;
  kill(c.pid(killed), SIGKILL);
  REQUIRE(eventually([&] { int h = watch.holder(); return h >= 0 && h != killed; }, in_seconds(10), 10ms));
  holder = watch.holder();
  REQUIRE(eventually([&] { return watch.client_asks(300ms) == watch.mac(holder); }, in_seconds(5)));
  // The gratuitous ARPs repointed the client's entry without it asking.
  CHECK(eventually([&] { return watch.client_neighbour() == mac_text(watch.mac(holder)); }, in_seconds(3)));
  CHECK(connects(watch.client(), kVip, 50000));

  // SIGSTOP of the holder: frozen, it cannot refresh; held elsewhere after its lease, and
  // once thawed it lets go rather than take it back.
  const int frozen = holder;
  kill(c.pid(frozen), SIGSTOP);
  REQUIRE(eventually([&] { int h = watch.holder(); return h >= 0 && h != frozen; }, in_seconds(10), 10ms));
  holder = watch.holder();
  CHECK(holder != killed);
  kill(c.pid(frozen), SIGCONT);
  auto thawed_view = [&] {
    auto r = cosictl({"--talosconfig", c.talosconfig(), "-e", c.ip(frozen), "-n", c.ip(frozen), "get", "vipstatuses", "-o", "yaml"});
    return r.out;
  };
  REQUIRE(eventually([&] { return thawed_view().find("holder: " + c.node_name(holder)) != std::string::npos; }, in_seconds(10)));
  CHECK(watch.holder() == holder);

  // etcd frozen on the two nodes that do not hold the VIP: the holder's member has no quorum,
  // its keep-alives fail, and it withdraws within the TTL; nobody else can take it.
  std::vector<pid_t> etcds;
  for (int i = 0; i < 3; ++i) {
    if (i != holder) etcds.push_back(pid_in_netns(namespaces[i], "etcd"));
  }
  for (pid_t pid : etcds) {
    REQUIRE(pid > 0);
    kill(pid, SIGSTOP);
  }
  const auto lost = Clock::now();
  REQUIRE(eventually([&] { return watch.holders().empty(); }, Clock::now() + 2s, 10ms));
  INFO("withdrawn after " << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - lost).count() << " ms");
  for (int i = 0; i < 20; ++i) {  // and stays withdrawn while quorum is gone
    CHECK(watch.holders().empty());
    std::this_thread::sleep_for(100ms);  // observing for two seconds, not waiting for a condition
  }
  for (pid_t pid : etcds) kill(pid, SIGCONT);
  REQUIRE(eventually([&] { return watch.holder() >= 0; }, in_seconds(20), 10ms));

  CHECK(watch.samples() > 100);
  CHECK(watch.double_holder_ms() == 0);
}

}  // namespace
}  // namespace cosi::testing
