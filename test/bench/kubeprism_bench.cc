// KubePrism's load balancer against HAProxy (`meson test --benchmark`, release build), on
// loopback (127.36.0.x): three nginx upstreams serving a two-byte answer, wrk as the client,
// our balancer in a process of its own (this binary's `serve` mode) and HAProxy 2.6 (mode tcp,
// one thread, leastconn, the same upstreams and a 1 s check) — measured in the same run, their
// rounds interleaved, the median of five each. wrk, haproxy and nginx come from Debian; the
// benchmark installs them when missing.
// Usage: kubeprism-bench rps_keepalive|rps_close|failover_failed|memory_per_conn
//
// rps_keepalive: wrk -t1 -c50 for 3 s through each; ratio ours/haproxy (higher is better) ≥ 1.
// rps_close: the same with "Connection: close", a new connection per request; ratio ≥ 1.
// failover_failed: under the close-per-request load, one of the three nginx SIGKILLed after a
// second: the requests wrk saw fail (socket errors, non-2xx). Ours = 0; HAProxy's count printed.
// memory_per_conn: 8,000 idle client connections through our balancer (two sockets each):
// its heap growth per connection. Ours ≤ 40 KiB.
#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <stdexcept>
#include <thread>

#include "controllers/k8s/load_balancer/load_balancer.h"
#include "test/bench/bench_report.h"
#include "test/support/process.h"

namespace cosi::bench {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::vector<std::string> kUpstreams = {"127.36.0.10:8080", "127.36.0.11:8080", "127.36.0.12:8080"};
const std::string kOurs = "127.36.0.1:7445";
const std::string kHaproxy = "127.36.0.2:7446";

void raise_fd_limit() {
  rlimit r{};
  getrlimit(RLIMIT_NOFILE, &r);
  r.rlim_cur = r.rlim_max;
  setrlimit(RLIMIT_NOFILE, &r);
}

void ensure_installed() {
  if (system("command -v wrk >/dev/null && command -v haproxy >/dev/null && command -v nginx >/dev/null") == 0) return;
  // As install-deps.sh: no default instances started by the packages.
  if (system("printf '#!/bin/sh\\nexit 101\\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && apt-get update -qq && "
             "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk haproxy nginx >/dev/null; "
             "s=$?; rm -f /usr/sbin/policy-rc.d; exit $s") != 0) {
    throw std::runtime_error("cannot install wrk, haproxy and nginx");
  }
}

fs::path work_dir() {
  static const fs::path dir = fs::temp_directory_path() / ("cosi-kubeprism-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

// One nginx in the foreground on `address`, answering "ok" and holding idle connections.
struct Nginx {
  explicit Nginx(const std::string& address) {
    const fs::path dir = work_dir() / ("nginx-" + address);
    fs::create_directories(dir / "tmp");
    std::ofstream(dir / "nginx.conf") << "daemon off;\nmaster_process off;\nworker_rlimit_nofile 20000;\npid " << (dir / "nginx.pid").string()
                                      << ";\nerror_log " << (dir / "error.log").string() << " warn;\nevents { worker_connections 10000; }\n"
                                      << "http {\n  access_log off;\n  client_body_temp_path " << (dir / "tmp").string()
                                      << ";\n  keepalive_requests 1000000;\n  keepalive_timeout 300s;\n  client_header_timeout 300s;\n"
                                      << "  server {\n    listen " << address << " reuseport backlog=4096;\n"
                                      << "    location / { default_type text/plain; return 200 \"ok\"; }\n  }\n}\n";
    process = std::make_unique<testing::Process>(std::vector<std::string>{"nginx", "-e", (dir / "error.log").string(), "-p", dir.string(),
                                                                         "-c", (dir / "nginx.conf").string()});
    std::this_thread::sleep_for(200ms);  // nginx has no readiness line; a fifth of a second to bind
  }
  std::unique_ptr<testing::Process> process;
};

struct Upstreams {
  Upstreams() {
    for (const auto& a : kUpstreams) servers.push_back(std::make_unique<Nginx>(a));
  }
  void restart(size_t i) { servers[i] = std::make_unique<Nginx>(kUpstreams[i]); }
  std::vector<std::unique_ptr<Nginx>> servers;
};

// Our balancer in its own process (`serve` mode), ready when it says so.
struct OurBalancer {
  OurBalancer() {
    std::string upstreams;
    for (const auto& u : kUpstreams) upstreams += (upstreams.empty() ? "" : ",") + u;
    char self[4096] = {};
    if (readlink("/proc/self/exe", self, sizeof self - 1) < 0) throw std::runtime_error("no /proc/self/exe");
    process = std::make_unique<testing::Process>(std::vector<std::string>{self, "serve", "127.36.0.1", "7445", upstreams});
    if (!process->wait_for_line("serving", testing::in_seconds(10))) throw std::runtime_error("our balancer did not start");
    std::this_thread::sleep_for(2500ms);  // two health checks: every upstream up
  }
  std::unique_ptr<testing::Process> process;
};

struct Haproxy {
  Haproxy() {
    const fs::path cfg = work_dir() / "haproxy.cfg";
    std::ofstream out(cfg);
    out << "global\n  nbthread 1\n  maxconn 9000\n  log stderr format short local0 err\n"
        << "defaults\n  mode tcp\n  timeout connect 250ms\n  timeout client 300s\n  timeout server 300s\n  retries 3\n  option redispatch\n"
        << "frontend kubeprism\n  bind " << kHaproxy << "\n  default_backend apiservers\n"
        << "backend apiservers\n  balance leastconn\n";
    for (size_t i = 0; i < kUpstreams.size(); ++i) out << "  server s" << i << " " << kUpstreams[i] << " check inter 1s\n";
    out.close();
    process = std::make_unique<testing::Process>(std::vector<std::string>{"haproxy", "-db", "-f", cfg.string()});
    std::this_thread::sleep_for(2500ms);  // its first checks
  }
  std::unique_ptr<testing::Process> process;
};

struct WrkResult {
  double rps = 0;
  long failed = 0;  // socket errors and non-2xx answers
};

WrkResult wrk(const std::string& address, bool close_each, std::chrono::seconds duration,
              const std::function<void()>& during = {}) {
  std::vector<std::string> argv{"wrk", "-t1", "-c50", "-d" + std::to_string(duration.count()) + "s", "--timeout", "2s"};
  if (close_each) argv.insert(argv.end(), {"-H", "Connection: close"});
  argv.push_back("http://" + address + "/");
  testing::Process p(argv);
  if (during) during();
  std::string out;
  while (auto line = p.read_line(testing::in_seconds(static_cast<int>(duration.count()) + 20))) out += *line + "\n";
  std::string err;
  while (auto line = p.read_line(testing::in_seconds(1), true)) err += *line + "\n";
  p.stop();
  out += err;
  WrkResult r;
  std::smatch m;
  if (std::regex_search(out, m, std::regex("Requests/sec:\\s+([0-9.]+)"))) r.rps = std::stod(m[1]);
  if (std::regex_search(out, m, std::regex("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)"))) {
    r.failed += std::stol(m[1]) + std::stol(m[2]) + std::stol(m[3]) + std::stol(m[4]);
  }
  if (std::regex_search(out, m, std::regex("Non-2xx or 3xx responses: (\\d+)"))) r.failed += std::stol(m[1]);
  if (r.rps == 0) throw std::runtime_error("wrk printed no rate:\n" + out);
  return r;
}

int bench_rps(bool close_each) {
  Upstreams nginx;
  OurBalancer ours;
  Haproxy haproxy;
  const double direct = wrk(kUpstreams[0], close_each, 3s).rps;
  Rounds r;
  for (int round = 0; round < 5; ++round) {
    r.ours.push_back(wrk(kOurs, close_each, 3s).rps);
    r.baseline.push_back(wrk(kHaproxy, close_each, 3s).rps);
  }
  std::printf("wrk -t1 -c50%s, median of 5 interleaved rounds of 3 s: ours %.0f req/s, haproxy %.0f req/s, straight to one nginx "
              "%.0f req/s\n",
              close_each ? " (Connection: close)" : "", r.ours_median(), r.baseline_median(), direct);
  return report(close_each ? "kubeprism.rps_close" : "kubeprism.rps_keepalive", r, Target::ratio_at_least(1.0));
}

int bench_failover_failed() {
  long failed[2] = {0, 0};
  for (int side = 0; side < 2; ++side) {
    Upstreams nginx;
    std::unique_ptr<OurBalancer> ours;
    std::unique_ptr<Haproxy> haproxy;
    if (side == 0) {
      ours = std::make_unique<OurBalancer>();
    } else {
      haproxy = std::make_unique<Haproxy>();
    }
    auto r = wrk(side == 0 ? kOurs : kHaproxy, true, 4s, [&] {
      std::this_thread::sleep_for(1s);
      nginx.servers[0]->process->kill_now();
    });
    failed[side] = r.failed;
    std::printf("%s: %.0f req/s, %ld failed, one of three upstreams SIGKILLed after 1 s\n", side == 0 ? "ours" : "haproxy", r.rps, r.failed);
  }
  return report("kubeprism.failover_failed", static_cast<double>(failed[0]), static_cast<double>(failed[1]), Target::ours(0));
}

long heap_of(testing::Process& lb) {
  if (write(lb.stdin_fd(), "heap\n", 5) != 5) throw std::runtime_error("cannot ask the balancer");
  auto line = lb.wait_for_line("heap ", testing::in_seconds(10));
  if (!line) throw std::runtime_error("the balancer did not answer");
  return std::stol(line->substr(line->find("heap ") + 5));
}

int bench_memory_per_conn() {
  Upstreams nginx;
  OurBalancer ours;
  const long before = heap_of(*ours.process);
  constexpr int kConnections = 8000;
  std::vector<int> clients;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(7445);
  inet_pton(AF_INET, "127.36.0.1", &to.sin_addr);
  for (int i = 0; i < kConnections; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) throw std::runtime_error("client " + std::to_string(i));
    clients.push_back(fd);
  }
  std::this_thread::sleep_for(2s);  // every connection dialed through
  const long after = heap_of(*ours.process);
  for (int fd : clients) close(fd);
  const double per = static_cast<double>(after - before) / kConnections;
  std::printf("%d idle connections through our balancer: heap %ld → %ld bytes, %.0f bytes (%.2f KiB) each\n", kConnections, before, after,
              per, per / 1024);
  return report("kubeprism.memory_per_conn", per / 1024, 0, Target::ours(40));
}

// `serve HOST PORT UP,UP,...`: our balancer until stdin closes; "heap" on stdin prints the
// allocated heap.
int serve(const std::string& host, int port, const std::string& upstreams) {
  auto lb = controllers::LoadBalancer::start({.host = host, .port = port});
  if (!lb.ok()) {
    std::fprintf(stderr, "%s\n", lb.error().message().c_str());
    return 1;
  }
  std::vector<std::string> list;
  for (size_t at = 0; at <= upstreams.size();) {
    const size_t comma = std::min(upstreams.find(',', at), upstreams.size());
    list.push_back(upstreams.substr(at, comma - at));
    at = comma + 1;
  }
  (*lb)->set_upstreams(list);
  std::printf("serving on %s\n", (*lb)->address().c_str());
  std::fflush(stdout);
  for (std::string line; std::getline(std::cin, line);) {
    if (line == "heap") {
      std::printf("heap %zu\n", mallinfo2().uordblks);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace cosi::bench

int main(int argc, char** argv) {
  cosi::bench::raise_fd_limit();
  const std::string which = argc > 1 ? argv[1] : "";
  try {
    if (which == "serve" && argc == 5) return cosi::bench::serve(argv[2], std::stoi(argv[3]), argv[4]);
    cosi::bench::ensure_installed();
    int rc = 2;
    if (which == "rps_keepalive") rc = cosi::bench::bench_rps(false);
    if (which == "rps_close") rc = cosi::bench::bench_rps(true);
    if (which == "failover_failed") rc = cosi::bench::bench_failover_failed();
    if (which == "memory_per_conn") rc = cosi::bench::bench_memory_per_conn();
    std::filesystem::remove_all(cosi::bench::work_dir());
    if (rc != 2) return rc;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubeprism-bench %s: %s\n", which.c_str(), e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: kubeprism-bench rps_keepalive|rps_close|failover_failed|memory_per_conn\n");
  return 2;
}
