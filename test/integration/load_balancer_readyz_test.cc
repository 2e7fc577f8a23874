// KubePrism's HTTPS /readyz health check with real TLS on loopback (127.37.0.x): an in-process
// HTTPS server whose /readyz answers what the test says (200, or 500 as an API server that has
// lost etcd does). With the readyz check an upstream that accepts connections but is not ready
// is down within 2 s, and up again once it answers 200; with the TCP check the same upstream
// stays up. A check of a server that accepts and never answers ends by its deadline.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <list>
#include <mutex>
#include <thread>

#include "controllers/k8s/load_balancer/load_balancer.h"
#include "controllers/k8s/load_balancer/readyz_check.h"
#include "resources/secrets/certs.h"
#include "test/support/eventually.h"
#include "test/support/process.h"

namespace cosi::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using controllers::HealthCheck;
using controllers::LoadBalancer;
using controllers::NameResolver;
using controllers::ReadyzCheck;

// HTTPS on ip:port with a certificate of a CA nobody trusts; GET /readyz answers `status`
// (0: accepts, then never answers). Each connection on a thread of its own.
class ReadyzServer {
 public:
  ReadyzServer(const std::string& ip, int port) : address_(ip + ":" + std::to_string(port)) {
    const auto ca_key = pki::PrivateKey::ecdsa_p256();
    const auto ca = pki::Certificate::self_signed_ca(ca_key, {"test"}, pki::kDay);
    const auto key = pki::PrivateKey::ecdsa_p256();
    auto cert = pki::Certificate::issue(ca, ca_key, key.get(), {.common_name = "apiserver", .ips = {ip}});
    REQUIRE(cert.ok());
    ctx_ = SSL_CTX_new(TLS_server_method());
    REQUIRE(SSL_CTX_use_certificate(ctx_, cert->get()) == 1);
    REQUIRE(SSL_CTX_use_PrivateKey(ctx_, key.get()) == 1);
    const auto at = NameResolver::parse_numeric(address_);
    REQUIRE(at);
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    REQUIRE(bind(fd_, at->get(), at->length) == 0);
    REQUIRE(listen(fd_, 64) == 0);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~ReadyzServer() {
    stopping_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    acceptor_.join();
    {
      std::lock_guard lock(mu_);
      for (int c : clients_) shutdown(c, SHUT_RDWR);
    }
    for (auto& t : workers_) t.join();
    for (int c : clients_) close(c);
    SSL_CTX_free(ctx_);
  }
  const std::string& address() const { return address_; }
  std::atomic<int> status{200};
  std::atomic<int> answered{0};

 private:
  void accept_loop() {
    while (!stopping_) {
      const int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) return;
      std::lock_guard lock(mu_);
      clients_.push_back(c);
      workers_.emplace_back([this, c] { serve(c); });
    }
  }
  void serve(int c) {
    const int answer = status;
    if (answer == 0) return;  // the connection stays open, silent
    SSL* ssl = SSL_new(ctx_);
    SSL_set_fd(ssl, c);
    if (SSL_accept(ssl) == 1) {
      char buf[2048];
      std::string request;
      int n;
      while (request.find("\r\n\r\n") == std::string::npos && (n = SSL_read(ssl, buf, sizeof buf)) > 0) {
        request.append(buf, static_cast<size_t>(n));
      }
      const bool readyz = request.rfind("GET /readyz ", 0) == 0;
      const std::string body = answer == 200 ? "ok" : "[-]etcd failed: reason withheld\nreadyz check failed";
      const std::string reply = "HTTP/1.1 " + std::to_string(readyz ? answer : 404) + (answer == 200 ? " OK" : " Internal Server Error") +
                                "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
      SSL_write(ssl, reply.data(), static_cast<int>(reply.size()));
      SSL_shutdown(ssl);
      ++answered;
    }
    SSL_free(ssl);
  }

  const std::string address_;
  SSL_CTX* ctx_ = nullptr;
  int fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<int> clients_;       // guarded by mu_
  std::list<std::thread> workers_;  // guarded by mu_ while the acceptor runs
};

bool healthy(const LoadBalancer& lb, const std::string& address) {
  for (const auto& u : lb.upstreams()) {
    if (u.address == address) return u.healthy;
  }
  return false;
}

std::unique_ptr<LoadBalancer> balancer(int port, const std::string& upstream, HealthCheck check) {
  auto lb = LoadBalancer::start({.host = "127.37.0.1", .port = port, .health_check = check});
  REQUIRE(lb.ok());
  (*lb)->set_upstreams({upstream});
  return std::move(*lb);
}

TEST_CASE("load balancer, readyz check: an upstream that accepts but is not ready is down, and up once ready", "[kubeprism]") {
  ReadyzServer server("127.37.0.10", 16443);
  auto readyz = balancer(17460, server.address(), HealthCheck::kHttpsReadyz);
  auto tcp = balancer(17461, server.address(), HealthCheck::kTcpConnect);
  REQUIRE(eventually([&] { return healthy(*readyz, server.address()) && healthy(*tcp, server.address()); }, in_seconds(5)));
  CHECK(server.answered >= 2);  // two good /readyz in a row made it healthy

  server.status = 500;
  const auto failing = Clock::now();
  REQUIRE(eventually([&] { return !healthy(*readyz, server.address()); }, in_seconds(5)));
  CHECK(Clock::now() - failing < 2s);
  CHECK(healthy(*tcp, server.address()));  // a connect still works: the TCP check cannot tell

  server.status = 200;
  CHECK(eventually([&] { return healthy(*readyz, server.address()); }, in_seconds(5)));
}

TEST_CASE("readyz check: the answer decides, and a silent server costs no more than the deadline", "[kubeprism]") {
  ReadyzServer server("127.37.0.11", 16443);
  const auto at = NameResolver::parse_numeric(server.address());
  REQUIRE(at);
  auto good = ReadyzCheck::run(server.address(), *at, 1000ms);
  CHECK(good.ok);
  CHECK(good.connect_latency > 0us);

  server.status = 500;
  auto bad = ReadyzCheck::run(server.address(), *at, 1000ms);
  CHECK_FALSE(bad.ok);
  CHECK(bad.why == "/readyz answered \"HTTP/1.1 500 Internal Server Error\"");

  server.status = 0;
  const auto started = Clock::now();
  auto silent = ReadyzCheck::run(server.address(), *at, 300ms);
  CHECK_FALSE(silent.ok);
  CHECK(Clock::now() - started < 300ms + 200ms);

  const auto nobody = NameResolver::parse_numeric("127.37.0.12:16443");
  auto refused = ReadyzCheck::run("127.37.0.12:16443", *nobody, 300ms);
  CHECK_FALSE(refused.ok);
  CHECK(refused.why == "connect: Connection refused");
}

}  // namespace
}  // namespace cosi::testing
