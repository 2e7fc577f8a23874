// Prometheus against a real local cluster (127.40.0.0/24): `cosictl cluster create --prometheus`
// starts Debian's prometheus scraping every machined and discoveryd each second; every target
// comes up; PromQL through its HTTP API finds a reconcile counter per controller, the work
// queue gauges, and our etcd gauges, which follow when a member's etcd is stopped and when
// the leadership moves.
#include <boost/json.hpp>
#include <boost/json/src.hpp>

#include <catch2/catch.hpp>

#include <set>

#include "test/integration/local_cluster.h"
#include "test/support/eventually.h"
#include "test/support/http_get.h"

namespace cosi::testing {
namespace {

using Catch::Matchers::Contains;
namespace json = boost::json;


std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char ch : s) {
    if (std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~') {
      out += static_cast<char>(ch);
    } else {
      out += '%';
      out += hex[ch >> 4];
      out += hex[ch & 15];
    }
  }
  return out;
}

// A body sent with Transfer-Encoding: chunked, joined.
std::string dechunk(const std::string& body) {
  std::string out;
  size_t at = 0;
  while (at < body.size()) {
    const auto eol = body.find("\r\n", at);
    if (eol == std::string::npos) break;
    const size_t n = std::stoul(body.substr(at, eol - at), nullptr, 16);
    if (n == 0) break;
    out += body.substr(eol + 2, n);
    at = eol + 2 + n + 2;
  }
  return out;
}

// The JSON body of a GET to prometheus (null when it does not answer 200).
json::value prometheus(const std::string& ip, const std::string& path) {
  const std::string response = http_get(ip, 9090, path);
  const auto body = response.find("\r\n\r\n");
  if (response.rfind("HTTP/1.1 200", 0) != 0 || body == std::string::npos) return nullptr;
  const bool chunked = response.substr(0, body).find("Transfer-Encoding: chunked") != std::string::npos;
  boost::system::error_code ec;
  auto v = json::parse(chunked ? dechunk(response.substr(body + 4)) : response.substr(body + 4), ec);
  return ec ? json::value(nullptr) : v;
}

// The result vector of an instant query.
json::array query(const std::string& ip, const std::string& promql) {
  auto v = prometheus(ip, "/api/v1/query?query=" + url_encode(promql));
  if (!v.is_object() || v.at("status") != "success") return {};
  return v.at("data").at("result").as_array();
}

// The value of a query with one series; nullopt without one.
std::optional<double> scalar(const std::string& ip, const std::string& promql) {
  auto r = query(ip, promql);
  if (r.size() != 1) return std::nullopt;
  return std::stod(std::string(r[0].at("value").as_array()[1].as_string()));
}

TEST_CASE("prometheus: every machined and discoveryd scraped; controllers, work queues and etcd's quorum in PromQL", "[prometheus]") {
  LocalCluster c("p", "127.40.0.0/24", 3, 1, {"--prometheus", "--config-patch-control-plane", kFast});
  CHECK_THAT(c.created.out, Contains("prometheus at http://127.40.0.1:9090 scrapes every machined and discoveryd"));
  const std::string prom = c.discovery_ip(), cp1 = c.ip(0), cp3 = c.ip(2);
  REQUIRE(c.state["prometheus"]["pid"].as<pid_t>() > 0);

  // Every target up: four machined and discoveryd.
  json::array targets;
  REQUIRE(eventually([&] {
    auto v = prometheus(prom, "/api/v1/targets?state=active");
    if (!v.is_object()) return false;
    targets = v.at("data").at("activeTargets").as_array();
    return targets.size() == 5 && std::all_of(targets.begin(), targets.end(), [](const json::value& t) { return t.at("health") == "up"; });
  }, in_seconds(30), std::chrono::milliseconds(200)));

  // A reconcile counter for every controller the node itself lists.
  const std::string metrics = http_get(cp1, 9100, "/metrics");
  std::set<std::string> listed;
  const std::string series = "controller_runtime_reconcile_total{controller=\"";
  for (size_t at = 0; (at = metrics.find(series, at)) != std::string::npos;) {
    at += series.size();
    listed.insert(metrics.substr(at, metrics.find('"', at) - at));
  }
  REQUIRE(listed.size() > 20);
  CHECK(listed.contains("etcd.EtcdController"));
  CHECK(listed.contains("v1alpha1.ServiceStatusController"));
  std::set<std::string> scraped;
  REQUIRE(eventually([&] {
    scraped.clear();
    for (const auto& s : query(prom, "controller_runtime_reconcile_total{instance=\"" + cp1 + ":9100\"}")) {
      scraped.insert(std::string(s.at("metric").at("controller").as_string()));
    }
    return scraped == listed;
  }, in_seconds(10), std::chrono::milliseconds(200)));
  CHECK_FALSE(query(prom, "workqueue_depth{job=\"machined\"}").empty());

  // etcd's gauges: three healthy, then two when one member's etcd is stopped, with quorum.
  const std::string on_cp1 = "{instance=\"" + cp1 + ":9100\"}";
  REQUIRE(eventually([&] { return scalar(prom, "cosi_etcd_healthy_members" + on_cp1) == 3.0; }, in_seconds(20), std::chrono::milliseconds(200)));
  CHECK(scalar(prom, "cosi_etcd_members" + on_cp1) == 3.0);
  CHECK(scalar(prom, "cosi_etcd_has_quorum" + on_cp1) == 1.0);
  CHECK(query(prom, "cosi_etcd_members{instance=\"" + c.ip(3) + ":9100\"}").empty());  // no etcd on the worker
  const auto changes = scalar(prom, "cosi_etcd_leader_changes_seen_total" + on_cp1);
  REQUIRE(changes.has_value());

  auto tc = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--talosconfig", c.talosconfig()});
    return cosictl(args, 20);
  };
  REQUIRE(tc({"-n", cp3, "service", "etcd", "stop"}).status == 0);
  CHECK(eventually([&] { return scalar(prom, "cosi_etcd_healthy_members" + on_cp1) == 2.0; }, in_seconds(15), std::chrono::milliseconds(200)));
  CHECK(scalar(prom, "cosi_etcd_has_quorum" + on_cp1) == 1.0);
  REQUIRE(tc({"-n", cp3, "service", "etcd", "start"}).status == 0);
  CHECK(eventually([&] { return scalar(prom, "cosi_etcd_healthy_members" + on_cp1) == 3.0; }, in_seconds(20), std::chrono::milliseconds(200)));

  // The leader hands over (asked of each node until the one that leads): cp1 counts the change.
  bool moved = false;
  for (size_t i = 0; i < 3 && !moved; ++i) {
    auto r = tc({"-n", c.ip(i), "etcd", "forfeit-leadership"});
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    moved = r.out.find("leadership moved to") != std::string::npos;
  }
  REQUIRE(moved);
  CHECK(eventually([&] { return scalar(prom, "cosi_etcd_leader_changes_seen_total" + on_cp1) > *changes; }, in_seconds(15),
                   std::chrono::milliseconds(200)));
}

}  // namespace
}  // namespace cosi::testing
