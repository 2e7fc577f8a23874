// A local cluster for integration tests: made by `cosictl cluster create` (each test its own
// 127.N block), destroyed by PID when the test ends, with helpers to read what its nodes list.
#pragma once

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test/support/process.h"

namespace cosi::testing {

namespace fs = std::filesystem;

// A control-plane patch for etcd's fast raft timings (elections in tenths of a second).
inline const std::string kFast = "cluster:\n  etcd:\n    extraArgs:\n      heartbeat-interval: \"50\"\n      election-timeout: \"300\"\n";

inline std::string binary(const char* env) {
  const char* path = std::getenv(env);
  REQUIRE(path != nullptr);
  return path;
}

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline RunResult cosictl(std::vector<std::string> args, int seconds = 30) {
  args.insert(args.begin(), binary("COSI_COSICTL"));
  return run(args, in_seconds(seconds));
}

// A cluster made by `cosictl cluster create`, destroyed (by PID) when the test ends.
struct LocalCluster {
  LocalCluster(std::string name, std::string cidr, int control_planes, int workers, std::vector<std::string> extra = {})
      : name(std::move(name)), root(fs::temp_directory_path() / ("cosi-cluster-" + std::to_string(getpid()))) {
    fs::create_directories(root);
    setenv("TALOSCONFIG", (root / "talosconfig").c_str(), 1);
    std::vector<std::string> args = {"cluster", "create", "--name", this->name, "--cidr", cidr, "--controlplanes",
                                     std::to_string(control_planes), "--workers", std::to_string(workers), "--state-dir",
                                     root.string(), "--discovery-ttl", "3s", "--wait-timeout", "90"};
    args.insert(args.end(), extra.begin(), extra.end());
    created = cosictl(args, 120);
    INFO(created.out << created.err);
    REQUIRE(created.status == 0);
    state = YAML::LoadFile((dir() / "cluster.yaml").string());
  }
  ~LocalCluster() {
    auto destroyed = cosictl({"cluster", "destroy", "--name", name, "--state-dir", root.string()});
    CHECK(destroyed.status == 0);
    CHECK_FALSE(fs::exists(dir()));
  }
  fs::path dir() const { return root / name; }
  std::string talosconfig() const { return (dir() / "talosconfig").string(); }
  std::string ip(size_t node) const { return state["nodes"][node]["ip"].as<std::string>(); }
  std::string node_name(size_t node) const { return state["nodes"][node]["name"].as<std::string>(); }
  pid_t pid(size_t node) const { return state["nodes"][node]["pid"].as<pid_t>(); }
  std::string discovery_ip() const { return state["discoveryd"]["ip"].as<std::string>(); }

  // Member name → machine type and first address, as `node` lists them.
  std::map<std::string, std::pair<std::string, std::string>> members(const std::string& node_ip) const {
    auto r = cosictl({"--talosconfig", talosconfig(), "-e", node_ip, "-n", node_ip, "get", "members", "-o", "yaml"}, 10);
    std::map<std::string, std::pair<std::string, std::string>> out;
    if (r.status != 0) return {{"error", {r.err, ""}}};
    for (const auto& doc : YAML::LoadAll(r.out)) {
      out[doc["metadata"]["id"].as<std::string>()] = {doc["spec"]["machineType"].as<std::string>(),
                                                      doc["spec"]["addresses"][0].as<std::string>()};
    }
    return out;
  }
  std::map<std::string, std::string> created_times(const std::string& node_ip) const {
    auto r = cosictl({"--talosconfig", talosconfig(), "-e", node_ip, "-n", node_ip, "get", "members", "-o", "yaml"}, 10);
    REQUIRE(r.status == 0);
    std::map<std::string, std::string> out;
    for (const auto& doc : YAML::LoadAll(r.out)) out[doc["metadata"]["id"].as<std::string>()] = doc["metadata"]["created"].as<std::string>();
    return out;
  }

  std::string name;
  fs::path root;
  RunResult created;
  YAML::Node state;
};

}  // namespace cosi::testing
