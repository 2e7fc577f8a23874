// KubePrism with real processes: a local cluster of three control planes and a worker
// (127.35.0.0/24), each control plane running the API server stand-in (nginx). Every node lists
// the endpoint and the three control planes; a client loops short HTTPS requests through the
// worker's KubePrism while one stand-in, then a second, is killed (its machined frozen, so
// nothing restarts it) — not one request fails while an upstream lives, and the dead ones show
// unhealthy within 2 s; thawed, they come back and are used again. kubectl, with the admin
// kubeconfig `cosictl kubeconfig` merges, reaches /healthz through the endpoint and through
// KubePrism. A config with a bad KubePrism port or endpoint is refused, the old one kept.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "test/integration/local_cluster.h"
#include "test/support/eventually.h"

namespace cosi::testing {
namespace {

using namespace std::chrono_literals;
using Catch::Matchers::Contains;

// GET /healthz over TLS (any certificate) at ip:port; true for a 200 "ok".
bool healthz(const std::string& ip, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const timeval deadline{3, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &deadline, sizeof deadline);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &deadline, sizeof deadline);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, ip.c_str(), &to.sin_addr);
  bool ok = false;
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0) {
    SSL_CTX* tls = SSL_CTX_new(TLS_client_method());
    SSL* s = SSL_new(tls);
    SSL_set_fd(s, fd);
    if (SSL_connect(s) == 1) {
      const std::string request = "GET /healthz HTTP/1.1\r\nHost: kubernetes\r\nConnection: close\r\n\r\n";
      SSL_write(s, request.data(), static_cast<int>(request.size()));
      std::string reply;
      char buf[4096];
      int n;
      while ((n = SSL_read(s, buf, sizeof buf)) > 0) reply.append(buf, static_cast<size_t>(n));
      ok = reply.rfind("HTTP/1.1 200", 0) == 0 && reply.size() >= 2 && reply.substr(reply.size() - 2) == "ok";
    }
    SSL_free(s);
    SSL_CTX_free(tls);
  }
  close(fd);
  return ok;
}

// The upstream's health as `node`'s KubePrismUpstreams has it (asked through the third control
// plane, which stays up).
bool upstream_healthy(const LocalCluster& c, const std::string& node, const std::string& upstream) {
  auto r = cosictl({"--talosconfig", c.talosconfig(), "-e", c.ip(2), "-n", node, "get", "kubeprismupstreams", upstream, "-o", "yaml"}, 10);
  return r.status == 0 && r.out.find("healthy: true") != std::string::npos;
}

pid_t stand_in_pid(const LocalCluster& c, size_t node) {
  std::ifstream pid_file(c.dir() / c.node_name(node) / "apiserver" / "nginx.pid");
  pid_t pid = 0;
  pid_file >> pid;
  return pid;
}

TEST_CASE("KubePrism: no failed connection while one API server lives", "[kubeprism]") {
  signal(SIGPIPE, SIG_IGN);  // a request to a server that went away fails; it must not kill the test
  LocalCluster c("kp", "127.35.0.0/24", 3, 1);
  const std::string worker = c.ip(3);
  const int prism = 7445;

  for (size_t n = 0; n < 4; ++n) {
    auto r = cosictl({"--talosconfig", c.talosconfig(), "-e", c.ip(0), "-n", c.ip(n), "get", "kubeprismendpoints", "-o", "yaml"});
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    for (size_t cp = 0; cp < 3; ++cp) CHECK_THAT(r.out, Contains("host: " + c.ip(cp)));
  }
  auto statuses = cosictl({"--talosconfig", c.talosconfig(), "-e", c.ip(0), "-n", worker, "get", "kubeprismstatuses", "-o", "yaml"});
  CHECK_THAT(statuses.out, Contains("host: " + worker + ":7445"));  // on loopback: the node's own address
  for (size_t cp = 0; cp < 3; ++cp) REQUIRE(eventually([&] { return upstream_healthy(c, worker, c.ip(cp) + ":6443"); }, in_seconds(30)));

  // A request in flight on a server when it is killed fails, through any balancer; every request
  // started after a kill must not.
  std::atomic<bool> running{true};
  std::atomic<int> requests{0}, failures{0}, in_flight_at_a_kill{0};
  std::atomic<int64_t> last_kill{0};
  auto now_ns = [] { return std::chrono::steady_clock::now().time_since_epoch().count(); };
  std::thread client([&] {
    while (running) {
      const int64_t started = now_ns();
      ++requests;
      if (healthz(worker, prism)) continue;
      if (started <= last_kill) {
        ++in_flight_at_a_kill;
      } else {
        ++failures;
      }
    }
  });
  // Two of three API servers die, one after the other; their machineds are frozen so that
  // nothing brings them back.
  for (size_t victim : {size_t{0}, size_t{1}}) {
    const pid_t nginx = stand_in_pid(c, victim);
    REQUIRE(nginx > 0);
    kill(c.pid(victim), SIGSTOP);
    const auto killed = std::chrono::steady_clock::now();
    last_kill = now_ns();
    kill(nginx, SIGKILL);
    REQUIRE(eventually([&] { return !upstream_healthy(c, worker, c.ip(victim) + ":6443"); }, in_seconds(10)));
    CHECK(std::chrono::steady_clock::now() - killed < 2s + 1s);  // within 2 s, and a second for cosictl's round trip
  }
  const int during = requests;
  REQUIRE(eventually([&] { return requests > during + 20; }, in_seconds(10)));
  for (size_t victim : {size_t{0}, size_t{1}}) kill(c.pid(victim), SIGCONT);
  for (size_t cp = 0; cp < 3; ++cp) CHECK(eventually([&] { return upstream_healthy(c, worker, c.ip(cp) + ":6443"); }, in_seconds(20)));
  running = false;
  client.join();
  INFO(requests << " requests through KubePrism, " << in_flight_at_a_kill << " of them in flight at a kill");
  CHECK(requests > 100);
  CHECK(failures == 0);
  CHECK(in_flight_at_a_kill <= 2);  // at most the one in flight at each kill

  // kubectl, with the kubeconfig cosictl merges, through the endpoint and through KubePrism.
  const std::string home = (c.root / "kube-home").string();
  auto kubeconfig = run({binary("COSI_COSICTL"), "--talosconfig", c.talosconfig(), "-e", c.ip(0), "-n", c.ip(0), "kubeconfig",
                         home + "/config"},
                        in_seconds(10));
  INFO(kubeconfig.out << kubeconfig.err);
  REQUIRE(kubeconfig.status == 0);
  auto direct = run({"kubectl", "--kubeconfig", home + "/config", "get", "--raw", "/healthz"}, in_seconds(20));
  INFO("kubectl: status " << direct.status << ": " << direct.out << direct.err);
  CHECK(direct.out == "ok");
  auto through = run({"kubectl", "--kubeconfig", home + "/config", "--server", "https://" + worker + ":7445", "get", "--raw", "/healthz"},
                     in_seconds(20));
  INFO("kubectl: status " << through.status << ": " << through.out << through.err);
  CHECK(through.out == "ok");
  auto from_worker = run({binary("COSI_COSICTL"), "--talosconfig", c.talosconfig(), "-e", c.ip(0), "-n", worker, "kubeconfig",
                          home + "/worker"},
                         in_seconds(10));
  CHECK(from_worker.status != 0);
  CHECK_THAT(from_worker.err, Contains("kubeconfig is only available on control plane nodes"));

  // A bad KubePrism port or endpoint: refused by apply-config, naming it; nothing changes.
  const std::string applied = slurp(c.dir() / c.node_name(3) / "config.yaml");
  for (const auto& [bad, says] : {std::pair{"machine:\n  features:\n    kubePrism:\n      port: 0\n", "machine.features.kubePrism.port"},
                                  std::pair{"machine:\n  features:\n    kubePrism:\n      port: 70000\n", "machine.features.kubePrism.port"},
                                  std::pair{"cluster:\n  controlPlane:\n    endpoint: not a url\n", "cluster.controlPlane.endpoint"}}) {
    const auto patched = c.root / "bad.yaml";
    auto made = run({binary("COSI_COSICTL"), "machineconfig", "patch", (c.dir() / (c.node_name(3) + ".yaml")).string(), "-p", bad, "-o",
                     patched.string()},
                    in_seconds(10));
    REQUIRE(made.status == 0);
    auto refused = cosictl({"--talosconfig", c.talosconfig(), "-e", c.ip(0), "-n", worker, "apply-config", "-f", patched.string()});
    CHECK(refused.status != 0);
    CHECK_THAT(refused.err, Contains(says));
  }
  CHECK(slurp(c.dir() / c.node_name(3) / "config.yaml") == applied);
  auto still = cosictl({"--talosconfig", c.talosconfig(), "-e", c.ip(0), "-n", worker, "get", "kubeprismconfigs", "-o", "yaml"});
  CHECK_THAT(still.out, Contains("port: 7445"));
}

}  // namespace
}  // namespace cosi::testing
