#include "cmd/cosictl/cluster_prometheus.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "cmd/common/files.h"

namespace cosi::cosictl {

namespace {

constexpr int kPort = 9090;

// The program on PATH, or kNotFound saying what to install.
Result<std::string> on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string d; std::getline(dirs, d, ':');) {
    const auto candidate = std::filesystem::path(d.empty() ? "." : d) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return Error(ErrorKind::kNotFound, "--prometheus: " + name + " is not on PATH (apt-get install --no-install-recommends prometheus)");
}

// Whether something accepts TCP connections on ip:port.
bool listening(const std::string& ip, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, ip.c_str(), &addr.sin_addr);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

}  // namespace

std::string prometheus_config(const LocalCluster& c) {
  std::string out =
      "# The scrape of local cluster " + c.name + ", written by cosictl cluster create --prometheus.\n"
      "global:\n"
      "  scrape_interval: 1s\n"
      "  scrape_timeout: 1s\n"
      "scrape_configs:\n"
      "  - job_name: machined\n"
      "    static_configs:\n";
  for (const auto& n : c.nodes) {
    out += "      - targets: ['" + n.ip + ":9100']\n        labels: {node: '" + n.name + "'}\n";
  }
  out += "  - job_name: discoveryd\n"
         "    static_configs:\n"
         "      - targets: ['" + c.discovery_ip + ":3001']\n";
  return out;
}

Status start_prometheus(LocalCluster& c, const std::string& dir, std::chrono::steady_clock::time_point deadline) {
  auto program = on_path("prometheus");
  if (!program.ok()) return program.error();
  if (listening(c.discovery_ip, kPort)) {
    return Error(ErrorKind::kAlreadyExists, "--prometheus: " + c.discovery_ip + ":" + std::to_string(kPort) + " is already taken");
  }
  if (auto s = cmd::write_file_atomically(dir + "/prometheus.yml", prometheus_config(c), 0644); !s.ok()) return s;
  const std::string listen = c.discovery_ip + ":" + std::to_string(kPort);
  auto pid = start_detached({*program, "--config.file=" + dir + "/prometheus.yml", "--storage.tsdb.path=" + dir + "/prometheus",
                             "--web.listen-address=" + listen, "--storage.tsdb.retention.time=1d"},
                            dir + "/prometheus.log", "");
  if (!pid.ok()) return pid.error();
  c.prometheus_pid = *pid;
  c.prometheus_url = "http://" + listen;
  while (!listening(c.discovery_ip, kPort)) {
    if (!alive(c.prometheus_pid)) return Error(ErrorKind::kUnavailable, "--prometheus: prometheus exited; see " + dir + "/prometheus.log");
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error(ErrorKind::kDeadlineExceeded, "--prometheus: prometheus does not listen on " + listen + "; see " + dir + "/prometheus.log");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return {};
}

}  // namespace cosi::cosictl
