// The node's services through the API, with real processes (127.38.0.0/24): a local cluster of
// three control planes lists etcd, trustd, kubeprism and the API server stand-in as talosctl
// shows them; stopping one member's etcd stops the process, and the others' EtcdClusters show
// the member down with quorum kept; starting it brings it back; a restart restarts; an unknown
// service is NOT_FOUND; an os:reader lists but may not stop. Then `cosictl logs` of the same
// cluster: the last lines of every member's etcd, one followed as it writes, a follower that goes.
#include <signal.h>

#include <cstdio>
#include <ctime>
#include <optional>

#include <catch2/catch.hpp>

#include "cmd/cosictl/talosconfig.h"
#include "resources/config/machine_config.h"
#include "resources/secrets/certs.h"
#include "resources/secrets/keys.h"
#include "test/integration/local_cluster.h"
#include "test/support/eventually.h"
#include "test/support/http_get.h"

namespace cosi::testing {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::Matches;
using Catch::Matchers::StartsWith;
using namespace std::chrono_literals;


YAML::Node etcd_cluster(const LocalCluster& c, const std::string& ip) {
  auto r = cosictl({"--talosconfig", c.talosconfig(), "-e", ip, "-n", ip, "get", "etcdclusters", "-o", "yaml"}, 10);
  if (r.status != 0 || r.out.empty()) return YAML::Node();
  return YAML::Load(r.out)["spec"];
}

// The last pid machined logged for `what` ("etcd started").
pid_t logged_pid(const LocalCluster& c, size_t node, const std::string& what) {
  std::ifstream log(c.dir() / (c.node_name(node) + ".log"));
  pid_t pid = 0;
  for (std::string line; std::getline(log, line);) {
    const auto field = line.find(" pid=");
    if (line.find("msg=\"" + what + "\"") != std::string::npos && field != std::string::npos) {
      pid = static_cast<pid_t>(std::stoi(line.substr(field + 5)));
    }
  }
  return pid;
}

bool alive(pid_t pid) { return pid > 0 && kill(pid, 0) == 0; }

// A talosconfig whose client certificate carries only os:reader, signed by the cluster's CA.
std::string reader_talosconfig(const LocalCluster& c) {
  auto loaded = config::parse_machine_config(slurp(c.dir() / "controlplane.yaml"));
  REQUIRE(loaded.ok());
  auto ca = pki::Certificate::parse(loaded->config.ca.crt);
  auto ca_key = pki::PrivateKey::parse(loaded->config.ca.key);
  REQUIRE(ca.ok());
  REQUIRE(ca_key.ok());
  auto key = pki::PrivateKey::ed25519();
  auto crt = pki::Certificate::issue(*ca, *ca_key, key.get(), {.organizations = {"os:reader"}, .usage = pki::Usage::kClient});
  REQUIRE(crt.ok());
  auto admin = cosictl::load_talosconfig(c.talosconfig());
  REQUIRE(admin.ok());
  cosictl::TalosConfig reader = *admin;
  for (auto& [name, ctx] : reader.contexts) {
    ctx.crt = crt->pem();
    ctx.key = key.pem();
  }
  const auto path = (c.dir() / "reader-talosconfig").string();
  std::ofstream(path) << cosictl::render_talosconfig(reader);
  return path;
}

// When etcd wrote a line ("2026-12-06 23:56:50.104728 I | etcdserver: ..."), local time; nullopt
// for a line of another shape.
std::optional<std::chrono::system_clock::time_point> etcd_time(const std::string& line) {
  std::tm tm{};
  int micros = 0;
  if (line.size() < 26 || std::sscanf(line.c_str(), "%4d-%2d-%2d %2d:%2d:%2d.%6d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                                      &tm.tm_min, &tm.tm_sec, &micros) != 7) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_isdst = -1;
  return std::chrono::system_clock::from_time_t(std::mktime(&tm)) + std::chrono::microseconds(micros);
}

int log_followers(const std::string& ip) {
  const std::string metrics = http_get(ip, 9100, "/metrics");
  const std::string key = "\ncosi_service_log_followers ";
  const auto at = metrics.find(key);
  return at == std::string::npos ? -1 : std::stoi(metrics.substr(at + key.size()));
}

// cosictl logs: the last lines of every node's etcd, following one as it writes, a follower
// that goes freeing its stream, machined's own log, refusals.
void check_logs(const LocalCluster& c) {
  const std::string cp1 = c.ip(0), cp2 = c.ip(1), cp3 = c.ip(2);
  auto tc = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--talosconfig", c.talosconfig()});
    return cosictl(args, 20);
  };
  auto tail = tc({"-n", cp1 + "," + cp2 + "," + cp3, "logs", "etcd", "--tail", "5"});
  INFO(tail.err);
  REQUIRE(tail.status == 0);
  std::map<std::string, int> per_node;
  std::istringstream lines(tail.out);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(": ");
    REQUIRE(colon != std::string::npos);
    ++per_node[line.substr(0, colon)];
    CHECK(line.size() > colon + 2);  // each a whole line of etcd's
  }
  CHECK(per_node == std::map<std::string, int>{{cp1, 5}, {cp2, 5}, {cp3, 5}});

  // Following cp-1's etcd: a line it writes shows within a second (cp-3's etcd restarting makes it write).
  REQUIRE(log_followers(cp1) == 0);
  Process follow({binary("COSI_COSICTL"), "--talosconfig", c.talosconfig(), "-n", cp1, "logs", "etcd", "-f", "--tail", "0"});
  REQUIRE(eventually([&] { return log_followers(cp1) == 1; }, in_seconds(10)));
  REQUIRE(tc({"-n", cp3, "service", "etcd", "restart"}).status == 0);
  // (etcd's raft lines carry whole seconds only: the first line with microseconds is measured.)
  std::optional<std::chrono::system_clock::time_point> written;
  std::chrono::system_clock::time_point seen;
  const auto until = in_seconds(10);
  while (!written) {
    auto line = follow.read_line(until);
    REQUIRE(line);
    seen = std::chrono::system_clock::now();
    INFO(*line);
    REQUIRE_THAT(*line, StartsWith(cp1 + ": "));
    written = etcd_time(line->substr(cp1.size() + 2));
  }
  CHECK(seen - *written < std::chrono::seconds(1));

  // A follower that goes frees its stream on the node.
  follow.kill_now();
  CHECK(eventually([&] { return log_followers(cp1) == 0; }, in_seconds(5)));

  // machined's own log; a service that keeps none.
  auto own = tc({"-n", cp2, "logs", "machined", "--tail", "3"});
  CHECK(own.status == 0);
  CHECK(std::count(own.out.begin(), own.out.end(), '\n') == 3);
  CHECK_THAT(own.out, StartsWith(cp2 + ": ts="));
  auto none = tc({"-n", cp2, "logs", "nginx"});
  CHECK(none.status != 0);
  CHECK_THAT(none.err, Contains("no log of service \"nginx\""));
  REQUIRE(eventually([&] { auto s = etcd_cluster(c, cp1); return s && s["healthyMembers"].as<int>() == 3; }, in_seconds(20), 200ms));
}

TEST_CASE("services: list, stop and start etcd for real, restart, refusals", "[services]") {
  LocalCluster c("s", "127.38.0.0/24", 3, 0, {"--config-patch-control-plane", kFast});
  const std::string cp1 = c.ip(0), cp3 = c.ip(2);
  auto tc = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--talosconfig", c.talosconfig()});
    return cosictl(args, 20);
  };

  // The list, as talosctl prints it, once every service is up and etcd's health is known.
  RunResult list;
  REQUIRE(eventually([&] {
    list = tc({"-n", cp3, "service"});
    return list.status == 0 && list.out.find("etcd        Running   OK") != std::string::npos &&
           list.out.find("kubeprism   Running   OK") != std::string::npos;
  }, in_seconds(20), 200ms));
  INFO(list.out);
  CHECK_THAT(list.out, StartsWith("NODE          SERVICE     STATE     HEALTH   LAST CHANGE   LAST EVENT\n"));
  for (const char* service : {"apiserver", "etcd", "kubeprism", "trustd"}) {
    CHECK_THAT(list.out, Contains(std::string(cp3) + "   " + service));
  }
  CHECK_THAT(list.out, Matches("(.|\n)*etcd        Running   OK       [0-9hms]+ ago +Health check successful\n(.|\n)*"));

  // Stop etcd on the third member: its process goes, the others see it down, quorum holds.
  const pid_t etcd = logged_pid(c, 2, "etcd started");
  REQUIRE(alive(etcd));
  auto stopped = tc({"-n", cp3, "service", "etcd", "stop"});
  INFO(stopped.err);
  REQUIRE(stopped.status == 0);
  CHECK(stopped.out == "NODE          RESPONSE\n" + cp3 + "   Service \"etcd\" stopped\n");
  CHECK(eventually([&] { return !alive(etcd); }, in_seconds(10)));
  REQUIRE(eventually([&] { auto s = etcd_cluster(c, cp1); return s && s["healthyMembers"].as<int>() == 2; }, in_seconds(10)));
  auto quorum = etcd_cluster(c, cp1);
  CHECK(quorum["hasQuorum"].as<bool>());
  CHECK(quorum["members"].as<int>() == 3);
  RunResult one;
  CHECK(eventually([&] {
    one = tc({"-n", cp3, "service", "etcd"});
    return one.out.find("STATE    Finished\n") != std::string::npos;
  }, in_seconds(10), 200ms));
  INFO(one.out);
  CHECK_THAT(one.out, StartsWith("NODE     " + cp3 + "\nID       etcd\nSTATE    Finished\nHEALTH   ?\n"));
  CHECK_THAT(one.out, Contains("EVENTS   [Finished]: Service stopped ("));
  CHECK_THAT(one.out, Contains("         [Stopping]: Stop requested ("));
  // Still stopped a while later: nothing restarts it behind the request's back.
  CHECK_FALSE(eventually([&] { return logged_pid(c, 2, "etcd started") != etcd; }, in_seconds(2), 200ms));

  // Start it again: a new process, three healthy members.
  auto started = tc({"-n", cp3, "service", "etcd", "start"});
  REQUIRE(started.status == 0);
  CHECK_THAT(started.out, Contains("Service \"etcd\" started"));
  REQUIRE(eventually([&] { auto s = etcd_cluster(c, cp1); return s && s["healthyMembers"].as<int>() == 3; }, in_seconds(20), 200ms));
  CHECK(alive(logged_pid(c, 2, "etcd started")));

  // Restart: another process, the cluster whole again.
  const pid_t before = logged_pid(c, 2, "etcd started");
  auto restarted = tc({"-n", cp3, "service", "etcd", "restart"});
  REQUIRE(restarted.status == 0);
  CHECK_THAT(restarted.out, Contains("Service \"etcd\" restarted"));
  REQUIRE(eventually([&] { const pid_t now = logged_pid(c, 2, "etcd started"); return now != before && alive(now); }, in_seconds(10)));
  REQUIRE(eventually([&] { auto s = etcd_cluster(c, cp1); return s && s["healthyMembers"].as<int>() == 3; }, in_seconds(20), 200ms));

  // trustd stops and starts alone: the API keeps answering meanwhile.
  REQUIRE(tc({"-n", cp1, "service", "trustd", "stop"}).status == 0);
  CHECK(eventually([&] { return tc({"-n", cp1, "service", "trustd"}).out.find("STATE    Finished") != std::string::npos; },
                   in_seconds(10), 200ms));
  REQUIRE(tc({"-n", cp1, "service", "trustd", "start"}).status == 0);
  // (Healthy again, it has a LAST HEALTH MESSAGE row, which widens the label column.)
  CHECK(eventually([&] { return tc({"-n", cp1, "service", "trustd"}).out.find("STATE                 Running\n") != std::string::npos; },
                   in_seconds(10), 200ms));

  // Refusals: an unknown service, an unknown action, a reader stopping.
  auto unknown = tc({"-n", cp1, "service", "nope", "stop"});
  CHECK(unknown.status != 0);
  CHECK_THAT(unknown.err, Contains("service \"nope\" not defined"));
  auto action = tc({"-n", cp1, "service", "etcd", "pause"});
  CHECK(action.status != 0);
  CHECK_THAT(action.err, Contains("unsupported service action: \"pause\""));
  const auto reader = reader_talosconfig(c);
  auto read = cosictl({"--talosconfig", reader, "-n", cp1, "service"});
  INFO(read.err);
  CHECK(read.status == 0);
  CHECK_THAT(read.out, Contains("etcd"));
  auto refused = cosictl({"--talosconfig", reader, "-n", cp1, "service", "etcd", "stop"});
  CHECK(refused.status != 0);
  CHECK_THAT(refused.err, Contains("os:reader"));
  CHECK(etcd_cluster(c, cp1)["healthyMembers"].as<int>() == 3);

  check_logs(c);
}

}  // namespace
}  // namespace cosi::testing
