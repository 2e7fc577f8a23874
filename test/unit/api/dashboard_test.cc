// The dashboard without a cluster: the view built from events by hand (which control plane speaks
// for etcd, roles and health per card, nodes found through Members, what an unreachable node
// keeps), the terminal screen drawn from it, and the web server's page, events and refusals.
#include <catch2/catch.hpp>


#include "api/dashboard/cluster_view.h"
#include "api/dashboard/snapshot_json.h"
#include "api/dashboard/text_screen.h"
#include "api/dashboard/web_dashboard.h"
#include "resources/cluster/cluster_resources.h"
#include "resources/common/ip.h"
#include "resources/etcd/etcd_resources.h"
#include "resources/network/network_resources.h"
#include "resources/v1alpha1/v1alpha1_resources.h"
#include "test/support/http_get.h"

namespace cosi::dashboard {
namespace {

using namespace cosi::resources;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

Event created(ResourcePtr r) { return Event{EventType::kCreated, std::move(r)}; }

ResourcePtr member(const std::string& name, const std::string& ip, bool control_plane) {
  MemberSpec m;
  m.add_addresses()->set_ip(*ip_bytes(ip));
  m.set_hostname(name);
  m.set_machine_type(control_plane ? talos::resource::definitions::enums::TYPE_CONTROL_PLANE
                                   : talos::resource::definitions::enums::TYPE_WORKER);
  return make_resource(Metadata(kClusterNamespace, kMemberType, name), m);
}

ResourcePtr hostname(const std::string& name) {
  HostnameStatusSpec h;
  h.set_hostname(name);
  return make_resource(Metadata(kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)), h);
}

ResourcePtr etcd_cluster(uint32_t voting, uint32_t healthy, const std::string& leader) {
  EtcdClusterSpec c;
  c.set_members(voting);
  c.set_voting_members(voting);
  c.set_healthy_members(healthy);
  c.set_quorum_needed(voting / 2 + 1);
  c.set_failures_tolerated(voting - (voting / 2 + 1));
  c.set_has_quorum(healthy >= voting / 2 + 1);
  c.set_leader(leader);
  return make_resource(Metadata(kEtcdNamespace, kEtcdClusterType, std::string(kEtcdClusterId)), c);
}

ResourcePtr etcd_status(uint64_t id, const std::string& host, const std::string& error = "") {
  EtcdStatusSpec s;
  s.set_member_id(id);
  s.set_hostname(host);
  if (!error.empty()) s.add_errors(error);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(id));
  return make_resource(Metadata(kEtcdNamespace, kEtcdStatusType, hex), s);
}

ResourcePtr service(const std::string& id, const std::string& state) {
  ServiceStatusSpec s;
  s.set_state(state);
  s.set_healthy(state == "Running");
  return make_resource(Metadata(kRuntimeNamespace, kServiceStatusType, id), s);
}

const Kind kMembers{kClusterNamespace, kMemberType};

// Three control planes at .10-.12 and a worker at .20; every node lists every member, and each
// control plane sees the etcd cluster with the given healthy count (cp-3's own etcd stopped when
// `cp3_down`).
void three_control_planes(ClusterView& view, bool cp3_down) {
  const std::vector<std::pair<std::string, std::string>> nodes = {
      {"cp-1", "127.9.0.10"}, {"cp-2", "127.9.0.11"}, {"cp-3", "127.9.0.12"}, {"w-1", "127.9.0.20"}};
  for (const auto& [name, ip] : nodes) {
    view.add_node(ip);
    view.opened(ip, kMembers);
    view.apply(ip, created(hostname(name)));
    for (const auto& [m, mip] : nodes) view.apply(ip, created(member(m, mip, m.rfind("cp", 0) == 0)));
    if (name == "w-1") continue;
    view.apply(ip, created(etcd_cluster(3, cp3_down ? 2 : 3, "0000000000000001")));
    view.apply(ip, created(etcd_status(1, "cp-1")));
    view.apply(ip, created(etcd_status(2, "cp-2")));
    view.apply(ip, created(etcd_status(3, "cp-3", cp3_down ? "connection refused" : "")));
    view.apply(ip, created(service("etcd", name == "cp-3" && cp3_down ? "Finished" : "Running")));
  }
}

ClusterSnapshot snapshot_of_three(bool cp3_down) {
  ClusterView view;
  three_control_planes(view, cp3_down);
  return view.snapshot();
}

const NodeCard& card(const ClusterSnapshot& s, const std::string& host) {
  for (const auto& c : s.nodes) {
    if (c.hostname == host) return c;
  }
  FAIL("no card for " << host);
  throw;
}

TEST_CASE("the quorum table is the seed's, with the current row marked") {
  auto rows = quorum_table(3);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0].quorum == 1);
  CHECK(rows[1].tolerates == 0);
  CHECK(rows[2].quorum == 2);
  CHECK(rows[2].tolerates == 1);
  CHECK(rows[2].current);
  CHECK(rows[3].quorum == 3);
  CHECK(rows[4].tolerates == 2);
  CHECK(quorum_table(7).size() == 7);
}

TEST_CASE("the view: cards, roles, health and the quorum, control planes first") {
  auto s = snapshot_of_three(false);
  REQUIRE(s.nodes.size() == 4);
  CHECK(s.nodes[0].hostname == "cp-1");
  CHECK(s.nodes[3].hostname == "w-1");
  CHECK(s.nodes[3].machine_type == "worker");
  CHECK(card(s, "cp-1").etcd_role == "leader");
  CHECK(card(s, "cp-2").etcd_role == "follower");
  CHECK(card(s, "cp-3").etcd_healthy);
  CHECK(card(s, "cp-1").config == "applied");
  CHECK(s.members.size() == 4);
  CHECK(s.quorum.known);
  CHECK(s.quorum.healthy == 3);
  CHECK(s.quorum.tolerated == 1);
  CHECK(s.quorum.leader == "cp-1");
  CHECK(s.writes_available);
}

TEST_CASE("the view: a stopped member shows unhealthy, and does not speak for the cluster") {
  ClusterView view;
  three_control_planes(view, true);
  // cp-3's own view would be the last word if order decided: it says something else.
  view.apply("127.9.0.12", created(etcd_cluster(3, 1, "")));
  auto s = view.snapshot();
  CHECK(s.quorum.seen_from == "cp-1");
  CHECK(s.quorum.healthy == 2);
  CHECK(s.writes_available);
  CHECK_FALSE(card(s, "cp-3").etcd_healthy);
  CHECK(card(s, "cp-3").etcd_error == "connection refused");
  CHECK(card(s, "cp-3").services.front().state == "Finished");
}

TEST_CASE("the view: an unreachable node keeps its name and type, and says why") {
  ClusterView view;
  three_control_planes(view, false);
  const auto before = view.generation();
  for (const auto& kind : watched_kinds()) view.lost("127.9.0.11", kind, "connection refused");
  CHECK(view.generation() > before);
  const auto after = view.generation();
  view.lost("127.9.0.11", kMembers, "connection refused");  // nothing new: no change
  CHECK(view.generation() == after);
  auto s = view.snapshot();
  const auto& cp2 = card(s, "cp-2");
  CHECK_FALSE(cp2.reachable);
  CHECK(cp2.error == "connection refused");
  CHECK(cp2.machine_type == "controlplane");
  CHECK(cp2.services.empty());
}

TEST_CASE("the view: Members name the nodes still to watch") {
  ClusterView view;
  view.add_node("127.9.0.10");
  view.apply("127.9.0.10", created(member("cp-1", "127.9.0.10", true)));
  view.apply("127.9.0.10", created(member("w-1", "127.9.0.20", false)));
  CHECK(view.undiscovered() == std::vector<std::string>{"127.9.0.20"});
  CHECK(view.add_node("127.9.0.20"));
  CHECK_FALSE(view.add_node("127.9.0.20"));
  CHECK(view.undiscovered().empty());
}

TEST_CASE("the screen: the selected node's card, members, quorum with the current row highlighted") {
  auto s = snapshot_of_three(true);
  auto lines = render_screen(s, 2, "demo", 100);
  std::string text;
  std::vector<std::string> highlighted;
  for (const auto& l : lines) {
    text += l.text + "\n";
    CHECK(l.text.size() <= 100);
    if (l.highlight) highlighted.push_back(l.text);
  }
  CHECK_THAT(text, Contains("cosictl dashboard: demo"));
  CHECK_THAT(text, Contains("[cp-3]"));
  CHECK_THAT(text, Contains("NODE cp-3 (127.9.0.12)"));
  CHECK_THAT(text, Contains("follower, unhealthy: connection refused"));
  CHECK_THAT(text, Contains("MEMBERS (4)"));
  CHECK_THAT(text, Contains("ETCD QUORUM (as cp-1 sees it)"));
  CHECK_THAT(text, Contains("2/3"));
  CHECK_THAT(text, Contains("writes available"));
  REQUIRE(highlighted.size() == 1);
  CHECK_THAT(highlighted[0], StartsWith("  3"));
  CHECK_THAT(highlighted[0], Contains("<- now"));
}

TEST_CASE("the snapshot as JSON names what the page draws") {
  auto json = snapshot_json(snapshot_of_three(false));
  CHECK_THAT(json, Contains("\"writes_available\":true"));
  CHECK_THAT(json, Contains("\"hostname\":\"cp-2\""));
  CHECK_THAT(json, Contains("\"tolerated\":1"));
}

std::string body_of(const std::string& response) {
  auto at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

std::string post(int port, const std::string& token, const std::string& body, const std::string& host = "") {
  const std::string h = host.empty() ? "127.0.0.1:" + std::to_string(port) : host;
  std::string req = "POST /api/action HTTP/1.1\r\nHost: " + h + "\r\nContent-Type: application/json\r\n";
  if (!token.empty()) req += "X-CSRF-Token: " + token + "\r\n";
  req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  return testing::http_send("127.0.0.1", port, req);
}

TEST_CASE("the web dashboard listens on loopback only, and says so") {
  CHECK(check_loopback_listen("127.0.0.1:8080").ok());
  CHECK(check_loopback_listen("127.44.0.1:0").ok());
  CHECK(check_loopback_listen("[::1]:8080").ok());
  auto refused = check_loopback_listen("0.0.0.0:8080");
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message(), StartsWith("--listen 0.0.0.0:8080: the web dashboard serves loopback only"));
  CHECK_FALSE(check_loopback_listen("198.51.100.1:8080").ok());
  CHECK_FALSE(check_loopback_listen("localhost:8080").ok());
  ClusterView view;
  CHECK_FALSE(WebDashboard::start("192.0.2.1:8080", view, {}, "x").ok());
}

TEST_CASE("the web dashboard: the page carries a token, a POST needs it, its origin and Host") {
  ClusterView view;
  three_control_planes(view, false);
  std::vector<std::string> done;
  DashboardActions actions{.enabled = true, .act = [&](const std::string& node, const std::string& action) {
                             done.push_back(node + " " + action);
                             return Status();
                           }};
  auto web = WebDashboard::start("127.0.0.1:0", view, actions, "demo <&>");
  REQUIRE(web.ok());
  const int port = (*web)->port();
  const std::string host = "127.0.0.1:" + std::to_string(port);

  auto page = testing::http_send("127.0.0.1", port, "GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
  CHECK_THAT(page, StartsWith("HTTP/1.1 200 OK"));
  CHECK_THAT(page, Contains("cluster demo &lt;&amp;&gt;"));
  const auto at = page.find("const TOKEN = \"");
  REQUIRE(at != std::string::npos);
  const std::string token = page.substr(at + 15, 32);
  CHECK_THAT(page, Contains("const ACTIONS = true;"));

  const std::string body = R"({"node": "127.9.0.12", "action": "etcd-stop"})";
  CHECK_THAT(post(port, "", body), StartsWith("HTTP/1.1 403 "));
  CHECK_THAT(post(port, "0123456789abcdef0123456789abcdef", body), StartsWith("HTTP/1.1 403 "));
  CHECK_THAT(post(port, token, body, "evil.example:" + std::to_string(port)), StartsWith("HTTP/1.1 403 "));
  CHECK(done.empty());
  CHECK_THAT(post(port, token, R"({"node": "127.9.0.99", "action": "etcd-stop"})"), StartsWith("HTTP/1.1 400 "));
  CHECK_THAT(post(port, token, R"({"node": "127.9.0.12", "action": "rm-rf"})"), StartsWith("HTTP/1.1 400 "));
  CHECK_THAT(post(port, token, "not json"), StartsWith("HTTP/1.1 400 "));
  CHECK(done.empty());
  auto ok = post(port, token, body);
  CHECK_THAT(ok, StartsWith("HTTP/1.1 200 OK"));
  CHECK_THAT(body_of(ok), Contains("etcd-stop done"));
  CHECK(done == std::vector<std::string>{"127.9.0.12 etcd-stop"});

  // Events: the snapshot at once, as JSON.
  auto events = testing::http_send("127.0.0.1", port, "GET /events HTTP/1.1\r\nHost: " + host + "\r\n\r\n", "}\n\n");
  CHECK_THAT(events, StartsWith("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream"));
  CHECK_THAT(body_of(events), StartsWith("data: {\"generation\":"));
  CHECK_THAT(events, Contains("\"healthy\":3"));
  // Another origin's page cannot read it.
  CHECK_THAT(testing::http_send("127.0.0.1", port, "GET /events HTTP/1.1\r\nHost: evil.example\r\n\r\n"),
             StartsWith("HTTP/1.1 403 "));
}

TEST_CASE("the web dashboard offers no actions for a cluster cosictl did not make") {
  ClusterView view;
  auto web = WebDashboard::start("127.0.0.1:0", view, {.enabled = false}, "elsewhere");
  REQUIRE(web.ok());
  const int port = (*web)->port();
  const std::string host = "127.0.0.1:" + std::to_string(port);
  auto page = testing::http_send("127.0.0.1", port, "GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
  CHECK_THAT(page, Contains("const ACTIONS = false;"));
  const std::string token = page.substr(page.find("const TOKEN = \"") + 15, 32);
  CHECK_THAT(post(port, token, R"({"node": "x", "action": "power-off"})"), StartsWith("HTTP/1.1 403 "));
}

}  // namespace
}  // namespace cosi::dashboard
