// KubePrism's load balancer with real sockets on loopback (127.33.0.x): in-process TCP echo
// servers as upstreams, real clients. Bytes both ways and half-close; a dead upstream costs no
// client connection and shows unhealthy within 2 s; with every upstream down a client gets a
// clean close within the dial deadline times the upstreams; a restarted upstream is used again;
// a long-lived connection keeps flowing while the upstreams change; a slow upstream (accepts,
// never answers) holds up nobody else; an upstream named by a host name ("localhost", bound to
// what it resolves to) is resolved by the checks and dialed; past the connection bound clients
// are closed at once.
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <list>
#include <mutex>
#include <thread>

#include "controllers/k8s/load_balancer/load_balancer.h"
#include "controllers/k8s/load_balancer/name_resolver.h"
#include "test/support/eventually.h"
#include "test/support/process.h"

namespace cosi::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using controllers::LoadBalancer;

sockaddr_in address_of(const std::string& ip, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  return a;
}

// A TCP server on ip:port: echoes what it reads until EOF, then closes; or, kSilent, accepts
// and never answers; or, kSlam, reads the first bytes and ends the connection without an
// answer (as a server that dies with a request in hand would). A health check (a
// connect, then close) sees nothing wrong with either.
class EchoServer {
 public:
  enum Mode { kEcho, kSilent, kSlam };
  EchoServer(std::string ip, int port, Mode mode = kEcho) : ip_(std::move(ip)), port_(port), mode_(mode) { start(); }
  ~EchoServer() { stop(); }

  void start() {
    const auto a = controllers::NameResolver::parse_numeric(address());
    REQUIRE(a);
    fd_ = socket(a->family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    REQUIRE(bind(fd_, a->get(), a->length) == 0);
    REQUIRE(listen(fd_, 128) == 0);
    stopping_ = false;
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  void stop() {
    if (fd_ < 0) return;
    stopping_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    fd_ = -1;
    acceptor_.join();
    std::lock_guard lock(mu_);
    for (int c : clients_) shutdown(c, SHUT_RDWR);
    for (auto& t : workers_) t.join();
    for (int c : clients_) close(c);
    clients_.clear();
    workers_.clear();
  }
  std::string address() const { return (ip_.find(':') != std::string::npos ? "[" + ip_ + "]" : ip_) + ":" + std::to_string(port_); }
  int accepted() const { return accepted_; }

 private:
  void accept_loop() {
    while (!stopping_) {
      const int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) return;
      ++accepted_;
      std::lock_guard lock(mu_);
      clients_.push_back(c);
      if (mode_ == kSilent) continue;
      if (mode_ == kSlam) {
        workers_.emplace_back([c] {
          char buf[4096];
          if (read(c, buf, sizeof buf) <= 0) return;
          shutdown(c, SHUT_RDWR);  // no answer: the end, at once
        });
        continue;
      }
      workers_.emplace_back([c] {
        char buf[4096];
        while (true) {
          const ssize_t n = read(c, buf, sizeof buf);
          if (n <= 0) break;
          if (write(c, buf, static_cast<size_t>(n)) != n) break;
        }
        shutdown(c, SHUT_WR);
      });
    }
  }

  const std::string ip_;
  const int port_;
  const Mode mode_;
  int fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<int> clients_;
  std::list<std::thread> workers_;
};

// A client connection to the balancer; reads and writes with a deadline.
struct Client {
  explicit Client(int port) {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    auto a = address_of("127.33.0.1", port);
    connected = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    const timeval deadline{3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &deadline, sizeof deadline);
  }
  ~Client() { close(fd); }
  bool send(const std::string& s) const { return write(fd, s.data(), s.size()) == static_cast<ssize_t>(s.size()); }
  // Up to `n` bytes; "" at EOF; nullopt on a timeout or error.
  std::optional<std::string> receive(size_t n) const {
    std::string out(n, '\0');
    const ssize_t got = read(fd, out.data(), n);
    if (got < 0) return std::nullopt;
    out.resize(static_cast<size_t>(got));
    return out;
  }
  // A whole exchange: `s` out, the same back.
  bool echoes(const std::string& s) const {
    if (!send(s)) return false;
    std::string back;
    while (back.size() < s.size()) {
      auto part = receive(s.size() - back.size());
      if (!part || part->empty()) return false;
      back += *part;
    }
    return back == s;
  }
  int fd = -1;
  bool connected = false;
};

// What the balancer logged, from its thread.
struct Logged {
  bool contains(const std::string& message) {
    std::lock_guard lock(mu);
    return std::find(messages.begin(), messages.end(), message) != messages.end();
  }
  std::mutex mu;
  std::vector<std::string> messages;  // guarded by mu
};

std::unique_ptr<LoadBalancer> balancer(int port, std::vector<std::string> upstreams, int max_connections = 8192,
                                       Logged* logged = nullptr) {
  Logger log;
  if (logged != nullptr) {
    log = Logger([logged](const LogRecord& r) {
      std::lock_guard lock(logged->mu);
      logged->messages.push_back(r.message);
    });
  }
  auto lb = LoadBalancer::start({.host = "127.33.0.1", .port = port, .max_connections = max_connections, .log = log});
  REQUIRE(lb.ok());
  (*lb)->set_upstreams(upstreams);
  return std::move(*lb);
}

bool healthy(const LoadBalancer& lb, const std::string& address) {
  for (const auto& u : lb.upstreams()) {
    if (u.address == address) return u.healthy;
  }
  return false;
}

TEST_CASE("load balancer: bytes both ways, and a half-close passed on", "[kubeprism]") {
  EchoServer a("127.33.0.10", 16443);
  auto lb = balancer(17445, {a.address()});
  Client c(17445);
  REQUIRE(c.connected);
  CHECK(c.echoes("hello"));
  const std::string big(1 << 20, 'x');  // more than one buffer's worth, both ways
  CHECK(c.echoes(big));
  // The client stops writing: the upstream sees EOF, echoes what it had and closes; the client
  // reads it all, then EOF.
  REQUIRE(c.send("last words"));
  shutdown(c.fd, SHUT_WR);
  auto tail = c.receive(64);
  REQUIRE(tail);
  CHECK(*tail == "last words");
  auto eof = c.receive(64);
  REQUIRE(eof);
  CHECK(eof->empty());
  CHECK(eventually([&] { return lb->connections() == 0; }, in_seconds(5)));
}

TEST_CASE("load balancer: a dead upstream costs no client connection, and shows unhealthy", "[kubeprism]") {
  EchoServer a("127.33.0.10", 16443);
  EchoServer b("127.33.0.11", 16443);
  auto lb = balancer(17446, {"127.33.0.12:16443", a.address(), b.address()});  // .12: nobody listens
  REQUIRE(eventually([&] { return healthy(*lb, a.address()) && healthy(*lb, b.address()); }, in_seconds(5)));
  CHECK_FALSE(healthy(*lb, "127.33.0.12:16443"));

  // One upstream goes away in the middle of the load.
  int failed = 0;
  for (int i = 0; i < 400; ++i) {
    if (i == 100) a.stop();
    Client c(17446);
    if (!c.connected || !c.echoes("ping " + std::to_string(i))) ++failed;
  }
  CHECK(failed == 0);
  const auto killed = Clock::now();
  REQUIRE(eventually([&] { return !healthy(*lb, a.address()); }, in_seconds(5)));
  CHECK(Clock::now() - killed < 2s);

  // Back: used again once two checks in a row pass.
  a.start();
  REQUIRE(eventually([&] { return healthy(*lb, a.address()); }, in_seconds(5)));
  const int before = a.accepted();
  std::vector<std::unique_ptr<Client>> held;  // least active first: new clients spread to it
  for (int i = 0; i < 6; ++i) {
    held.push_back(std::make_unique<Client>(17446));
    CHECK(held.back()->echoes("x"));
  }
  CHECK(a.accepted() > before);
}

TEST_CASE("load balancer: with every upstream down, a clean close within the dial deadlines", "[kubeprism]") {
  auto lb = balancer(17447, {"127.33.0.12:16443", "127.33.0.13:16443", "127.33.0.14:16443"});
  const auto start = Clock::now();
  Client c(17447);
  REQUIRE(c.connected);  // the balancer accepts, then finds nobody
  auto got = c.receive(16);
  REQUIRE(got);           // not a timeout
  CHECK(got->empty());    // EOF
  CHECK(Clock::now() - start < 3 * 250ms + 500ms);
}

TEST_CASE("load balancer: a long-lived connection keeps flowing while the upstreams change", "[kubeprism]") {
  EchoServer a("127.33.0.10", 16443);
  EchoServer b("127.33.0.11", 16443);
  auto lb = balancer(17448, {a.address()});
  Client c(17448);
  REQUIRE(c.echoes("before"));
  lb->set_upstreams({b.address()});
  CHECK(c.echoes("after"));
  Client d(17448);
  CHECK(d.echoes("new"));
  a.stop();  // c went through a, d through b
  CHECK(d.echoes("still"));
  CHECK_FALSE(c.echoes("gone"));
}

TEST_CASE("load balancer: a slow upstream holds up nobody else", "[kubeprism]") {
  EchoServer slow("127.33.0.10", 16443, EchoServer::kSilent);
  EchoServer b("127.33.0.11", 16443);
  auto lb = balancer(17449, {slow.address(), b.address()});
  REQUIRE(eventually([&] { return healthy(*lb, slow.address()) && healthy(*lb, b.address()); }, in_seconds(5)));
  Client stuck(17449);  // to the slow one (first, least active): its bytes go nowhere
  REQUIRE(stuck.send("anyone?"));
  auto active = [&](const std::string& address) {
    for (const auto& u : lb->upstreams()) {
      if (u.address == address) return u.active;
    }
    return -1;
  };
  REQUIRE(eventually([&] { return active(slow.address()) == 1; }, in_seconds(5)));
  for (int i = 0; i < 20; ++i) {
    {
      Client c(17449);  // to b: the slow one has a connection already
      CHECK(c.echoes("quick"));
    }
    REQUIRE(eventually([&] { return active(b.address()) == 0; }, in_seconds(5)));
  }
  CHECK(active(slow.address()) == 1);
}

TEST_CASE("load balancer: an upstream that drops a connection before answering costs the client nothing", "[kubeprism]") {
  EchoServer slam("127.33.0.10", 16443, EchoServer::kSlam);  // health checks pass; requests get no answer
  EchoServer b("127.33.0.11", 16443);
  auto lb = balancer(17451, {slam.address(), b.address()});
  REQUIRE(eventually([&] { return healthy(*lb, slam.address()) && healthy(*lb, b.address()); }, in_seconds(5)));
  for (int i = 0; i < 20; ++i) {
    Client c(17451);
    CHECK(c.echoes("replayed " + std::to_string(i)));  // the bytes sent to the first are given to b
  }
  CHECK(slam.accepted() > 2);  // some of them did go there first
}

// What "localhost" resolves to first here (127.0.0.1 or ::1, as /etc/hosts and the address
// sorting have it), as text; empty where nothing resolves it (a bare root without /etc/hosts).
std::string first_address_of_localhost() {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo("localhost", "1", &hints, &found) != 0) return "";
  char text[INET6_ADDRSTRLEN] = {};
  const void* at = found->ai_family == AF_INET6 ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(found->ai_addr)->sin6_addr)
                                                : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr);
  inet_ntop(found->ai_family, at, text, sizeof text);
  freeaddrinfo(found);
  return text;
}

TEST_CASE("load balancer: an upstream named by a host name is resolved by the checks and dialed", "[kubeprism]") {
  const std::string localhost = first_address_of_localhost();
  if (localhost.empty()) {
    WARN("\"localhost\" resolves to nothing on this machine (no /etc/hosts?): no name to dial");
    return;
  }
  EchoServer named(localhost, 16452);
  auto lb = balancer(17452, {"localhost:16452"});
  REQUIRE(eventually([&] { return healthy(*lb, "localhost:16452"); }, in_seconds(5)));
  Client c(17452);
  CHECK(c.echoes("by name"));
  CHECK(named.accepted() >= 3);  // two checks, then the client
}

TEST_CASE("load balancer: past its connection bound, clients are closed at once and the log says so", "[kubeprism]") {
  EchoServer a("127.33.0.10", 16443);
  Logged logged;
  auto lb = balancer(17450, {a.address()}, 2, &logged);
  Client one(17450), two(17450);
  REQUIRE(one.echoes("1"));
  REQUIRE(two.echoes("2"));
  Client three(17450);
  auto got = three.receive(8);
  REQUIRE(got);
  CHECK(got->empty());
  CHECK(eventually([&] { return logged.contains("KubePrism connection limit reached: new clients are closed"); }, in_seconds(2)));
}

}  // namespace
}  // namespace cosi::testing
