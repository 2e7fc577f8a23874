#include "cmd/cosictl/cluster_checks.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "api/state_client.h"
#include "cmd/cosictl/connection.h"
#include "resources/catalog.h"
#include "resources/cluster/cluster_resources.h"
#include "resources/etcd/etcd_resources.h"

namespace cosi::cosictl {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const ResourceTypes& types() {
  static const ResourceTypes all = [] {
    ResourceTypes t;
    resources::register_types(t);
    return t;
  }();
  return all;
}

Result<std::vector<ResourcePtr>> list_on(const std::string& ip, const std::string& talosconfig, const Kind& kind) {
  auto connection = Connection::open({.endpoints = {ip}, .nodes = {ip}, .timeout = 3s, .talosconfig = talosconfig});
  if (!connection.ok()) return connection.error();
  api::GrpcState state(connection->channel(), types(), {.deadline = 3s});
  return state.list(kind);
}

void progress(std::string& last, const std::string& line) {
  if (line == last) return;
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  last = line;
}

}  // namespace

Result<std::vector<std::string>> members_of(const std::string& ip, const std::string& talosconfig) {
  auto list = list_on(ip, talosconfig, {resources::kClusterNamespace, resources::kMemberType});
  if (!list.ok()) return list.error();
  std::vector<std::string> names;
  for (const auto& r : *list) names.push_back(r->metadata().id());
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::vector<CheckedNode>> cluster_nodes(const std::string& ip, const std::string& talosconfig) {
  auto list = list_on(ip, talosconfig, {resources::kClusterNamespace, resources::kMemberType});
  if (!list.ok()) return Error(list.error().kind(), ip + ": " + list.error().message());
  std::vector<CheckedNode> out;
  for (const auto& r : *list) {
    auto m = resource_cast<resources::MemberSpec>(r);
    if (!m || m->spec().addresses_size() == 0) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const std::string& raw = m->spec().addresses(0).ip();
    inet_ntop(raw.size() == 4 ? AF_INET : AF_INET6, raw.data(), text, sizeof text);
    out.push_back({r->metadata().id(), text, m->spec().machine_type() == ::talos::resource::definitions::enums::TYPE_CONTROL_PLANE});
  }
  return out;
}

bool wait_for_members(const std::vector<CheckedNode>& nodes, const std::string& talosconfig, Clock::time_point deadline) {
  std::vector<std::string> expected;
  for (const auto& n : nodes) expected.push_back(n.name);
  std::sort(expected.begin(), expected.end());
  std::string last;
  while (true) {
    size_t complete = 0;
    std::string line = "waiting for members:";
    for (const auto& n : nodes) {
      auto names = members_of(n.ip, talosconfig);
      complete += names.ok() && *names == expected ? 1 : 0;
      line += " " + n.name + " " + (names.ok() ? std::to_string(names->size()) + "/" + std::to_string(expected.size()) : "-");
    }
    progress(last, line);
    if (complete == nodes.size()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(250ms);
  }
}

bool wait_for_etcd(const std::string& ip, size_t voting, const std::string& talosconfig, Clock::time_point deadline) {
  std::string last;
  while (true) {
    auto list = list_on(ip, talosconfig, {resources::kEtcdNamespace, resources::kEtcdClusterType});
    std::string line = "waiting for etcd: no status yet";
    bool done = false;
    if (list.ok() && !list->empty()) {
      if (auto c = resource_cast<resources::EtcdClusterSpec>(list->front())) {
        const auto& s = c->spec();
        line = "waiting for etcd: " + std::to_string(s.voting_members()) + "/" + std::to_string(voting) + " voting members, " +
               std::to_string(s.healthy_members()) + " healthy, quorum " + (s.has_quorum() ? "yes" : "no");
        done = s.has_quorum() && s.voting_members() == voting && s.members() == voting && s.healthy_members() == voting;
      }
    }
    progress(last, line);
    if (done) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(250ms);
  }
}

}  // namespace cosi::cosictl
