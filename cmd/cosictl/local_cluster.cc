#include "cmd/cosictl/local_cluster.h"

#include <arpa/inet.h>
#include <signal.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cmd/common/files.h"
#include "controllers/common/spawn.h"
#include "resources/config/yaml_reader.h"

namespace cosi::cosictl {

namespace {

std::string ip_text(uint32_t host_order) {
  in_addr a{htonl(host_order)};
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &a, buf, sizeof buf);
  return buf;
}

// The program a PID runs, from /proc; empty when it is gone.
std::string program_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string argv0;
  std::getline(in, argv0, '\0');
  return std::filesystem::path(argv0).filename().string();
}

}  // namespace

bool alive(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, comm, state;
  in >> pid_field >> comm >> state;
  return state != "Z";
}

LocalNetwork LocalCluster::network() const {
  LocalNetwork net;
  net.bridge = bridge;
  for (const auto& n : nodes) net.namespaces.push_back(n.netns);
  return net;
}

Result<LocalCluster> plan_cluster(const std::string& name, const std::string& cidr, int control_planes, int workers,
                                  const ClusterLayout& layout) {
  if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
    return Error(ErrorKind::kInvalidArgument, "--name \"" + name + "\": use lowercase letters, digits and '-'");
  }
  if (control_planes < 1) return Error(ErrorKind::kInvalidArgument, "--controlplanes must be at least 1");
  if (workers < 0) return Error(ErrorKind::kInvalidArgument, "--workers cannot be negative");
  const auto slash = cidr.find('/');
  in_addr base{};
  int bits = -1;
  if (slash != std::string::npos && inet_pton(AF_INET, cidr.substr(0, slash).c_str(), &base) == 1) {
    try {
      bits = std::stoi(cidr.substr(slash + 1));
    } catch (...) {
    }
  }
  if (bits < 8 || bits > 30) {
    return Error(ErrorKind::kInvalidArgument, "--cidr \"" + cidr + "\" is not an IPv4 block like " +
                                                  (layout.netns ? "198.51.100.0/24" : "127.5.0.0/24"));
  }
  const uint32_t first = ntohl(base.s_addr) & (bits == 0 ? 0 : ~0u << (32 - bits));
  if (!layout.netns && (first >> 24) != 127) {
    return Error(ErrorKind::kInvalidArgument, "--cidr \"" + cidr +
                                                  "\" is not loopback: nodes sharing the host live in 127.0.0.0/8 (a block of your "
                                                  "own, like 198.51.100.0/24, needs --netns)");
  }
  if (layout.netns && (first >> 24) == 127) {
    return Error(ErrorKind::kInvalidArgument, "--cidr \"" + cidr + "\" is loopback: --netns puts the nodes on a bridge of their own, "
                                                  "in a block like 198.51.100.0/24");
  }
  const uint64_t size = uint64_t{1} << (32 - bits);
  const int total = control_planes + workers;
  if (10 + static_cast<uint64_t>(total) > size - 1) {
    return Error(ErrorKind::kInvalidArgument, "--cidr " + cidr + " has no room for " + std::to_string(total) +
                                                  " nodes from ." + "10 up");
  }
  LocalCluster c;
  c.name = name;
  c.cidr = ip_text(first) + "/" + std::to_string(bits);
  c.discovery_ip = ip_text(first + 1);
  c.netns = layout.netns;
  c.bits = bits;
  std::vector<std::string> names;
  for (int i = 0; i < total; ++i) {
    const bool cp = i < control_planes;
    c.nodes.push_back({name + (cp ? "-controlplane-" + std::to_string(i + 1) : "-worker-" + std::to_string(i - control_planes + 1)),
                       ip_text(first + 10 + static_cast<uint32_t>(i)), cp, 0, ""});
    names.push_back(c.nodes.back().name);
  }
  if (layout.netns) {
    const auto net = plan_network(name, names);
    c.bridge = net.bridge;
    for (size_t i = 0; i < c.nodes.size(); ++i) c.nodes[i].netns = net.namespaces[i];
  }
  if (!layout.vip.empty()) {
    if (!layout.netns) {
      return Error(ErrorKind::kInvalidArgument, "--vip needs --netns: nodes on loopback share one host, so none can hold an address alone");
    }
    in_addr vip{};
    if (inet_pton(AF_INET, layout.vip.c_str(), &vip) != 1) return Error(ErrorKind::kInvalidArgument, "--vip \"" + layout.vip + "\" is not an IPv4 address");
    const uint32_t v = ntohl(vip.s_addr);
    const bool in_block = (v & (~0u << (32 - bits))) == first;
    const uint32_t offset = v - first;
    if (!in_block || offset <= 1 || offset == size - 1 || (offset >= 10 && offset < 10 + static_cast<uint32_t>(total))) {
      return Error(ErrorKind::kInvalidArgument, "--vip " + layout.vip + " must be a free address of " + c.cidr +
                                                    " (not the network, the broadcast, the host's ." + "1 or a node's)");
    }
    c.vip = layout.vip;
  }
  return c;
}

Status save_cluster_state(const std::string& path, const LocalCluster& c) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << c.name;
  out << YAML::Key << "cidr" << YAML::Value << c.cidr;
  if (c.netns) {
    out << YAML::Key << "netns" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "bridge" << YAML::Value << c.bridge
        << YAML::Key << "bits" << YAML::Value << c.bits << YAML::Key << "vip" << YAML::Value << c.vip << YAML::EndMap;
  }
  out << YAML::Key << "discoveryd" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "ip" << YAML::Value
      << c.discovery_ip << YAML::Key << "pid" << YAML::Value << c.discovery_pid << YAML::EndMap;
  if (c.prometheus_pid > 0) {
    out << YAML::Key << "prometheus" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "url" << YAML::Value
        << c.prometheus_url << YAML::Key << "pid" << YAML::Value << c.prometheus_pid << YAML::EndMap;
  }
  out << YAML::Key << "nodes" << YAML::Value << YAML::BeginSeq;
  for (const auto& n : c.nodes) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << n.name << YAML::Key << "ip" << YAML::Value
        << n.ip << YAML::Key << "type" << YAML::Value << (n.control_plane ? "controlplane" : "worker") << YAML::Key << "pid"
        << YAML::Value << n.pid;
    if (!n.netns.empty()) out << YAML::Key << "netns" << YAML::Value << n.netns;
    if (!n.argv.empty()) out << YAML::Key << "argv" << YAML::Value << YAML::Flow << n.argv;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return cmd::write_file_atomically(path, std::string(out.c_str()) + "\n", 0600);
}

Result<LocalCluster> load_cluster_state(const std::string& path) {
  auto text = cmd::read_file(path);
  if (!text.ok()) return text.error();
  try {
    YAML::Node doc = config::load_yaml_document(*text);
    LocalCluster c;
    c.name = doc["name"].as<std::string>();
    c.cidr = doc["cidr"].as<std::string>();
    c.discovery_ip = doc["discoveryd"]["ip"].as<std::string>();
    c.discovery_pid = doc["discoveryd"]["pid"].as<pid_t>();
    if (doc["prometheus"]) {
      c.prometheus_url = doc["prometheus"]["url"].as<std::string>();
      c.prometheus_pid = doc["prometheus"]["pid"].as<pid_t>();
    }
    if (doc["netns"]) {
      c.netns = true;
      c.owns_network = true;
      c.bridge = doc["netns"]["bridge"].as<std::string>();
      c.bits = doc["netns"]["bits"].as<int>();
      c.vip = doc["netns"]["vip"].as<std::string>("");
    }
    for (const auto& n : doc["nodes"]) {
      c.nodes.push_back({n["name"].as<std::string>(), n["ip"].as<std::string>(), n["type"].as<std::string>() == "controlplane",
                         n["pid"].as<pid_t>(), n["netns"] ? n["netns"].as<std::string>() : "",
                         n["argv"] ? n["argv"].as<std::vector<std::string>>() : std::vector<std::string>{}});
    }
    return c;
  } catch (const YAML::Exception& e) {
    return Error(ErrorKind::kInvalidArgument, path + " is not a cluster state file: " + e.what());
  }
}

Result<pid_t> start_detached(const std::vector<std::string>& argv, const std::string& log_path, const std::string& netns) {
  return controllers::spawn_logged(argv, log_path, controllers::Session::kOwn, netns);
}

bool stop_processes(const std::vector<RunningProgram>& targets, std::chrono::milliseconds grace) {
  std::vector<pid_t> ours;
  for (const auto& t : targets) {
    if (t.pid > 0 && alive(t.pid) && program_of(t.pid) == t.program) ours.push_back(t.pid);
  }
  auto wait_gone = [&](std::chrono::milliseconds within) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    while (std::chrono::steady_clock::now() < deadline) {
      if (std::none_of(ours.begin(), ours.end(), alive)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::none_of(ours.begin(), ours.end(), alive);
  };
  for (pid_t pid : ours) kill(pid, SIGTERM);
  if (wait_gone(grace)) return true;
  // Past the grace, the whole process group: machined leads its own (start_detached), and a
  // machined killed alone left its children (an nginx it ran) behind, orphaned.
  for (pid_t pid : ours) {
    if (!alive(pid)) continue;
    kill(-pid, SIGKILL);  // ESRCH when it leads no group: then the next line is the kill
    kill(pid, SIGKILL);
  }
  return wait_gone(std::chrono::seconds(5));
}

std::string cluster_dir(const std::string& state_dir, const std::string& name) {
  std::string root = state_dir;
  if (root.empty()) {
    const char* home = std::getenv("HOME");
    root = std::string(home != nullptr && *home != '\0' ? home : "/root") + "/.cosi/clusters";
  }
  return (std::filesystem::path(root) / name).string();
}

namespace {

Result<LocalNode*> node_at(LocalCluster& c, const std::string& ip) {
  for (auto& n : c.nodes) {
    if (n.ip == ip) return &n;
  }
  return Error(ErrorKind::kNotFound, "no node of cluster " + c.name + " has the address " + ip);
}

bool runs_machined(pid_t pid) { return pid > 0 && alive(pid) && program_of(pid) == "machined"; }

}  // namespace

Status power_off(LocalCluster& c, const std::string& node_ip) {
  auto node = node_at(c, node_ip);
  if (!node.ok()) return node.error();
  LocalNode& n = **node;
  if (!runs_machined(n.pid)) return Error(ErrorKind::kFailedPrecondition, n.name + " is already off");
  // machined leads its own session and process group (start_detached); its children are in it.
  ::kill(-n.pid, SIGKILL);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (alive(n.pid) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (alive(n.pid)) return Error(ErrorKind::kDeadlineExceeded, n.name + ": machined (pid " + std::to_string(n.pid) + ") outlived SIGKILL for 5 s");
  return {};
}

Status power_on(LocalCluster& c, const std::string& node_ip, const std::string& dir) {
  auto node = node_at(c, node_ip);
  if (!node.ok()) return node.error();
  LocalNode& n = **node;
  if (runs_machined(n.pid)) return Error(ErrorKind::kFailedPrecondition, n.name + " is already on (pid " + std::to_string(n.pid) + ")");
  if (n.argv.empty()) {
    return Error(ErrorKind::kFailedPrecondition, n.name + ": the cluster state does not say how to start it (made by an older cosictl)");
  }
  auto pid = start_detached(n.argv, dir + "/" + n.name + ".log", n.netns);
  if (!pid.ok()) return pid.error();
  n.pid = *pid;
  return {};
}

Result<std::string> find_program(const std::string& name) {
  std::error_code ec;
  const auto self = std::filesystem::canonical("/proc/self/exe", ec);
  if (ec) return Error(ErrorKind::kInternal, "cannot find cosictl's own path: " + ec.message());
  for (const auto& candidate : {self.parent_path() / name, self.parent_path().parent_path() / name / name}) {
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return Error(ErrorKind::kNotFound, name + " is not next to cosictl (" + self.parent_path().string() + ")");
}

}  // namespace cosi::cosictl
