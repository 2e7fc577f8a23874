// cosictl dashboard against a real local cluster of three control planes and a worker
// (127.42.0.0/24). In the terminal, under tmux: it draws the members and the quorum table,
// `]` `[` and the arrows switch nodes, it follows an etcd stopped behind its back (its watches,
// not a poll), and `q` and Ctrl-C leave a clean screen. On the web: the page in Debian's chromium
// driven by Playwright (test/web/dashboard_page_test.mjs: healthy, one etcd stopped, two, both
// started, a POST without its token refused), then the power buttons on the worker, and the
// refusals (a listen address off loopback, a POST without the token changes nothing).
#include <signal.h>

#include <algorithm>

#include <catch2/catch.hpp>

#include "test/integration/local_cluster.h"
#include "test/support/eventually.h"
#include "test/support/http_get.h"

namespace cosi::testing {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using namespace std::chrono_literals;

const std::string kWebListen = "127.42.0.1:8080";

// A tmux server of the test's own (its own socket), killed when the test ends.
class Tmux {
 public:
  explicit Tmux(const fs::path& dir) : socket_("cosi-dashboard-" + std::to_string(getpid())), conf_((dir / "tmux.conf").string()) {
    std::ofstream(conf_) << "set -g remain-on-exit on\nset -g status off\n";
  }
  ~Tmux() { run_tmux({"kill-server"}); }

  RunResult run_tmux(std::vector<std::string> args) {
    args.insert(args.begin(), {"tmux", "-L", socket_, "-f", conf_});
    return run(args, in_seconds(10));
  }
  // A window of 200 x 70 running `command` (through sh).
  void start(const std::string& name, const std::string& command) {
    auto r = run_tmux({"new-session", "-d", "-s", name, "-x", "200", "-y", "70", command});
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  std::string screen(const std::string& name) { return run_tmux({"capture-pane", "-p", "-t", name}).out; }
  // The screen and what scrolled off it.
  std::string history(const std::string& name) { return run_tmux({"capture-pane", "-p", "-S", "-", "-t", name}).out; }
  void keys(const std::string& name, const std::vector<std::string>& keys) {
    std::vector<std::string> args{"send-keys", "-t", name};
    args.insert(args.end(), keys.begin(), keys.end());
    REQUIRE(run_tmux(args).status == 0);
  }

 private:
  std::string socket_;
  std::string conf_;
};

// Running, not a zombie (a powered-off machined may wait for its reaper a while).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, comm, state;
  stat >> pid_field >> comm >> state;
  return stat && state != "Z";
}

std::string body_of(const std::string& response) {
  auto at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

std::string first_event(const std::string& host) {
  return body_of(http_send("127.42.0.1", 8080, "GET /events HTTP/1.1\r\nHost: " + host + "\r\n\r\n", "}\n\n"));
}

TEST_CASE("dashboard: the terminal under tmux, the web page in chromium, the buttons", "[dashboard]") {
  LocalCluster c("d", "127.42.0.0/24", 3, 1, {"--config-patch-control-plane", kFast});
  const std::string cp1 = c.ip(0), cp2 = c.ip(1), cp3 = c.ip(2), worker = c.ip(3);
  auto tc = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--talosconfig", c.talosconfig()});
    return cosictl(args, 20);
  };
  Tmux tmux(c.root);
  // Its exit status is printed after it, on the screen it gives back (tmux's own pane status is
  // not always there at once).
  const std::string dashboard = "env TALOSCONFIG=" + c.talosconfig() + " " + binary("COSI_COSICTL") + " dashboard --state-dir " +
                                c.root.string() + "; echo dashboard-exited=$?";
  auto exited_cleanly = [&](const std::string& window) {
    return eventually([&] {
      return tmux.history(window).find("dashboard-exited=0") != std::string::npos &&
             tmux.screen(window).find("ETCD QUORUM") == std::string::npos;
    }, in_seconds(10));
  };

  {  // in the terminal
    tmux.start("tui", dashboard);
    auto drawn = [&](const std::vector<std::string>& texts) {
      return eventually([&] {
        const auto s = tmux.screen("tui");
        return std::all_of(texts.begin(), texts.end(), [&](const auto& t) { return s.find(t) != std::string::npos; });
      }, in_seconds(20));
    };
    REQUIRE(drawn({"cosictl dashboard: d", "MEMBERS (4)", "ETCD QUORUM", "3/3", "writes available", "[d-controlplane-1]"}));
    CHECK_THAT(tmux.screen("tui"), Contains("d-worker-1"));

    tmux.keys("tui", {"]"});
    CHECK(drawn({"[d-controlplane-2]", "NODE d-controlplane-2 (" + cp2 + ")"}));
    tmux.keys("tui", {"Right"});
    CHECK(drawn({"[d-controlplane-3]"}));
    tmux.keys("tui", {"Left"});
    CHECK(drawn({"[d-controlplane-2]"}));
    tmux.keys("tui", {"["});
    CHECK(drawn({"[d-controlplane-1]"}));

    // etcd stopped on cp-3 behind the dashboard's back: its watches bring the change.
    REQUIRE(tc({"-n", cp3, "service", "etcd", "stop"}).status == 0);
    CHECK(drawn({"2/3", "writes available"}));
    REQUIRE(tc({"-n", cp3, "service", "etcd", "start"}).status == 0);
    CHECK(drawn({"3/3"}));

    tmux.keys("tui", {"q"});
    {
      const bool clean = exited_cleanly("tui");  // and the alternate screen is gone
      INFO(tmux.history("tui"));
      CHECK(clean);
    }

    tmux.start("tui2", dashboard);
    REQUIRE(eventually([&] { return tmux.screen("tui2").find("ETCD QUORUM") != std::string::npos; }, in_seconds(20)));
    tmux.keys("tui2", {"C-c"});
    {
      const bool clean = exited_cleanly("tui2");
      INFO(tmux.history("tui2"));
      CHECK(clean);
    }
  }

  {  // on the web
    // Off loopback: refused, and nothing listens.
    auto refused = tc({"dashboard", "--web", "--listen", "0.0.0.0:18080"});
    CHECK(refused.status != 0);
    CHECK_THAT(refused.err, Contains("loopback only"));

    Process web({binary("COSI_COSICTL"), "--talosconfig", c.talosconfig(), "dashboard", "--web", "--listen", kWebListen,
                 "--state-dir", c.root.string()});
    auto ready = web.wait_for_line("dashboard of", in_seconds(10));
    REQUIRE(ready);
    CHECK_THAT(*ready, Contains("http://" + kWebListen + "/"));
    CHECK_THAT(*ready, Contains("buttons on"));

    // The browser's part; its refused POST must leave cp-1's etcd as it was.
    const auto events_before = tc({"-n", cp1, "service", "etcd"}).out;
    const std::string shots = binary("COSI_SCREENSHOTS");
    INFO("playwright-core comes from `npm ci` in test/web (install-deps.sh)");
    REQUIRE(fs::exists(fs::path(binary("COSI_WEB_TESTS")) / "node_modules/playwright-core/package.json"));
    fs::create_directories(shots);
    auto browser = run({"node", binary("COSI_WEB_TESTS") + "/dashboard_page_test.mjs", "http://" + kWebListen + "/", cp1, cp2, cp3, shots},
                       in_seconds(240));
    INFO(browser.out << browser.err);
    CHECK(browser.status == 0);
    auto after = tc({"-n", cp1, "service", "etcd"});
    CHECK_THAT(after.out, Contains("Running"));
    CHECK(std::count(after.out.begin(), after.out.end(), '\n') == std::count(events_before.begin(), events_before.end(), '\n'));

    // The power buttons, on the worker: its machined goes and comes back.
    const std::string host = kWebListen;
    auto page = http_send("127.42.0.1", 8080, "GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
    const auto at = page.find("const TOKEN = \"");
    REQUIRE(at != std::string::npos);
    const std::string token = page.substr(at + 15, 32);
    auto post = [&](const std::string& action) {
      const std::string body = "{\"node\": \"" + worker + "\", \"action\": \"" + action + "\"}";
      return http_send("127.42.0.1", 8080, "POST /api/action HTTP/1.1\r\nHost: " + host + "\r\nX-CSRF-Token: " + token +
                                                 "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
    };
    const pid_t old_pid = c.pid(3);
    REQUIRE(running(old_pid));
    auto off = post("power-off");
    INFO(off);
    REQUIRE_THAT(off, StartsWith("HTTP/1.1 200 "));
    CHECK_FALSE(running(old_pid));
    const std::string down = "\"address\":\"" + worker + "\",\"hostname\":\"d-worker-1\",\"machine_type\":\"worker\",\"reachable\":false";
    CHECK(eventually([&] { return first_event(host).find(down) != std::string::npos; }, in_seconds(10)));
    CHECK_THAT(post("power-off"), StartsWith("HTTP/1.1 502 "));  // already off: says so
    REQUIRE_THAT(post("power-on"), StartsWith("HTTP/1.1 200 "));
    const std::string up = "\"address\":\"" + worker + "\",\"hostname\":\"d-worker-1\",\"machine_type\":\"worker\",\"reachable\":true";
    CHECK(eventually([&] { return first_event(host).find(up) != std::string::npos; }, in_seconds(30)));
    // The new PID is in the cluster state, so `cluster destroy` stops it.
    auto state = YAML::LoadFile((c.dir() / "cluster.yaml").string());
    CHECK(state["nodes"][3]["pid"].as<pid_t>() != old_pid);
    CHECK(web.stop() == 0);
  }
}

}  // namespace
}  // namespace cosi::testing
