#include "cmd/cosictl/local_network.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include "cmd/common/netns.h"
#include "controllers/common/spawn.h"

namespace cosi::cosictl {

namespace {

using namespace std::chrono_literals;
constexpr auto kIpDeadline = 10s;

// `prefix` + `name`, cut to `max` characters; a cut name ends in a hash of the whole one, so
// two long names that share a beginning still differ.
std::string short_name(const std::string& prefix, const std::string& name, size_t max) {
  if (prefix.size() + name.size() <= max) return prefix + name;
  uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  char hash[9];
  std::snprintf(hash, sizeof hash, "%08x", h);
  const size_t keep = max - prefix.size() - 4;
  return prefix + name.substr(0, keep) + std::string(hash, 4);
}

// `ip ARGS`, in the namespace `netns` when one is named.
Status ip(std::vector<std::string> args, const std::string& netns = "") {
  args.insert(args.begin(), "ip");
  auto r = controllers::run_command(args, kIpDeadline, netns);
  if (!r.ok()) return Error(r.error().kind(), (netns.empty() ? "" : "in " + netns + ": ") + r.error().message());
  return {};
}

// The host's end of the veth pair whose other end is the namespace's eth0.
std::string host_end(const std::string& ns) { return short_name("cv", ns, 15); }

bool exists(const std::string& ns) {
  std::error_code ec;
  return std::filesystem::exists("/run/netns/" + ns, ec);
}

}  // namespace

LocalNetwork plan_network(const std::string& cluster, const std::vector<std::string>& node_names) {
  LocalNetwork net;
  net.bridge = short_name("cosi-", cluster, 15);
  for (const auto& n : node_names) net.namespaces.push_back("cosi-" + n);
  return net;
}

Status require_root(const std::string& what) {
  if (geteuid() == 0) return {};
  return Error(ErrorKind::kPermissionDenied, what + " needs root (network namespaces, veth pairs and a bridge)");
}

Status create_network(const LocalNetwork& net, const std::string& host_ip, int bits, const std::vector<std::string>& ips) {
  const std::string suffix = "/" + std::to_string(bits);
  if (controllers::run_command({"ip", "link", "show", net.bridge}, kIpDeadline).ok()) {
    return Error(ErrorKind::kAlreadyExists, "a link named " + net.bridge + " already exists (another cluster of that name?)");
  }
  for (const auto& ns : net.namespaces) {
    if (exists(ns)) return Error(ErrorKind::kAlreadyExists, "network namespace " + ns + " already exists (another cluster of that name?)");
  }
  LocalNetwork made;  // what to remove if a step fails: only what this call made
  auto steps = [&]() -> Status {
    if (auto s = ip({"link", "add", net.bridge, "type", "bridge"}); !s.ok()) return s;
    made.bridge = net.bridge;
    if (auto s = ip({"link", "set", net.bridge, "up"}); !s.ok()) return s;
    if (auto s = ip({"addr", "add", host_ip + suffix, "dev", net.bridge}); !s.ok()) return s;
    for (size_t i = 0; i < net.namespaces.size(); ++i) {
      const std::string& ns = net.namespaces[i];
      const std::string veth = host_end(ns);
      if (auto s = ip({"netns", "add", ns}); !s.ok()) return s;
      made.namespaces.push_back(ns);
      if (auto s = ip({"link", "set", "lo", "up"}, ns); !s.ok()) return s;
      if (auto s = ip({"link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns}); !s.ok()) return s;
      if (auto s = ip({"link", "set", veth, "master", net.bridge, "up"}); !s.ok()) return s;
      // Up before the address: an address given to a link that is down leaves IPv6 there without
      // its multicast route.
      if (auto s = ip({"link", "set", "eth0", "up"}, ns); !s.ok()) return s;
      if (auto s = ip({"addr", "add", ips[i] + suffix, "dev", "eth0"}, ns); !s.ok()) return s;
    }
    return {};
  };
  auto result = steps();
  if (!result.ok()) (void)destroy_network(made);
  return result;
}

Status destroy_network(const LocalNetwork& net) {
  Status result;
  for (const auto& ns : net.namespaces) {
    // The pair goes now: a namespace's own links are destroyed later, by the kernel's clean-up,
    // and a cluster created again at once must find the names free.
    const std::string veth = host_end(ns);
    if (controllers::run_command({"ip", "link", "show", veth}, kIpDeadline).ok()) {
      if (auto s = ip({"link", "del", veth}); !s.ok() && result.ok()) result = s;
    }
    if (!exists(ns)) continue;
    for (pid_t pid : cmd::pids_in_netns(ns)) kill(pid, SIGKILL);
    if (auto s = ip({"netns", "del", ns}); !s.ok() && result.ok()) result = s;
  }
  if (!net.bridge.empty() && controllers::run_command({"ip", "link", "show", net.bridge}, kIpDeadline).ok()) {
    if (auto s = ip({"link", "del", net.bridge}); !s.ok() && result.ok()) result = s;
  }
  return result;
}

}  // namespace cosi::cosictl
