#include "api/dashboard/web_dashboard.h"

#include <boost/json.hpp>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>

#include "api/dashboard/snapshot_json.h"
#include "api/host_port.h"
#include "api/http_server.h"
#include "dashboard_page.h"

namespace cosi::dashboard {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

constexpr std::size_t kTokensKept = 256;  // pages loaded and not yet forgotten
constexpr auto kKeepAlive = 15s;

std::string new_token() {
  std::random_device random;
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 32; ++i) out += hex[random() & 15];
  return out;
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

void replace_all(std::string& text, const std::string& what, const std::string& with) {
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size())) text.replace(at, what.size(), with);
}

api::HttpResponse answer(int status, const std::string& message) {
  json::object body{{"ok", status == 200}, {"message", message}};
  return {status, "application/json", json::serialize(body) + "\n"};
}

}  // namespace

struct WebDashboard::Shared {
  Shared(ClusterView& v, DashboardActions a, std::string t) : view(v), actions(std::move(a)), title(std::move(t)) {}

  ClusterView& view;
  DashboardActions actions;
  std::string title;
  std::string authority;  // guarded by mu: host:port, as the Host header must name it

  std::mutex mu;
  std::condition_variable changed;
  uint64_t changes = 0;             // guarded by mu
  std::deque<std::string> tokens;   // guarded by mu; newest last

  bool known_token(const std::string& token) {
    std::lock_guard lock(mu);
    return !token.empty() && std::find(tokens.begin(), tokens.end(), token) != tokens.end();
  }

  // The page, with a token of its own.
  api::HttpResponse page() {
    std::string token = new_token();
    {
      std::lock_guard lock(mu);
      tokens.push_back(token);
      if (tokens.size() > kTokensKept) tokens.pop_front();
    }
    std::string html(kDashboardPage);
    replace_all(html, "__CSRF_TOKEN__", token);
    replace_all(html, "__TITLE__", html_escape(title));
    replace_all(html, "__ACTIONS__", actions.enabled ? "true" : "false");
    return {200, "text/html; charset=utf-8", std::move(html), {{"Cache-Control", "no-store"}}};
  }

  // The snapshot now, then again each time the view changes; a comment line now and then keeps
  // the connection alive and finds a client that went.
  void events(api::HttpStream& out) {
    uint64_t sent = ~uint64_t{0};
    auto quiet_since = std::chrono::steady_clock::now();
    while (true) {
      const auto snapshot = view.snapshot();
      if (snapshot.generation != sent) {
        sent = snapshot.generation;
        if (!out.write("data: " + snapshot_json(snapshot) + "\n\n")) return;
        quiet_since = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - quiet_since > kKeepAlive) {
        if (!out.write(": keep-alive\n\n")) return;
        quiet_since = std::chrono::steady_clock::now();
      }
      {
        std::unique_lock lock(mu);
        const uint64_t seen = changes;
        changed.wait_for(lock, 200ms, [&] { return changes != seen; });
      }
      if (!out.open_after(0ms)) return;
    }
  }

  // Every route first: a page of another site that resolves its name to loopback (DNS rebinding)
  // names itself in Host, and gets nothing.
  api::HttpHandler guarded(api::HttpHandler handler) {
    return [this, handler = std::move(handler)](const api::HttpRequest& r) {
      std::string expected;
      {
        std::lock_guard lock(mu);
        expected = authority;
      }
      if (expected.empty() || r.header("host") != expected) return answer(403, "the Host header must be " + expected);
      return handler(r);
    };
  }

  api::HttpResponse act(const api::HttpRequest& r) {
    if (auto origin = r.header("origin"); !origin.empty() && origin != "http://" + authority) {
      return answer(403, "requests from " + origin + " are refused");
    }
    if (!known_token(r.header("x-csrf-token"))) return answer(403, "missing or unknown CSRF token: reload the page");
    if (!actions.enabled) return answer(403, "actions are offered only for clusters `cosictl cluster create` made");
    boost::system::error_code ec;
    json::value body = json::parse(r.body, ec);
    if (ec || !body.is_object()) return answer(400, "the body must be a JSON object {\"node\": ..., \"action\": ...}");
    const auto* node = body.as_object().if_contains("node");
    const auto* action = body.as_object().if_contains("action");
    if (node == nullptr || !node->is_string() || action == nullptr || !action->is_string()) {
      return answer(400, "the body needs \"node\" and \"action\" strings");
    }
    const std::string n(node->as_string()), a(action->as_string());
    const auto nodes = view.nodes();
    if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) return answer(400, "unknown node \"" + n + "\"");
    if (std::none_of(std::begin(kDashboardActions), std::end(kDashboardActions), [&](const char* k) { return a == k; })) {
      return answer(400, "unknown action \"" + a + "\" (etcd-stop, etcd-start, power-off, power-on)");
    }
    if (auto s = actions.act(n, a); !s.ok()) return answer(502, n + ": " + a + ": " + s.error().message());
    return answer(200, n + ": " + a + " done");
  }

  api::HttpResponse graph() {
    if (!actions.graph_svg) return {404, "text/plain; charset=utf-8", "no graph\n"};
    auto svg = actions.graph_svg();
    if (!svg.ok()) return {502, "text/plain; charset=utf-8", svg.error().message() + "\n"};
    return {200, "image/svg+xml", std::move(*svg)};
  }
};

Status check_loopback_listen(const std::string& listen) {
  auto hp = api::parse_host_port(listen, 8080);
  if (!hp.ok()) return Error(ErrorKind::kInvalidArgument, "--listen: " + hp.error().message());
  if (hp->host == "localhost" || !api::is_loopback(hp->host)) {
    return Error(ErrorKind::kInvalidArgument, "--listen " + listen +
                                                  ": the web dashboard serves loopback only (an address in 127.0.0.0/8 or ::1): "
                                                  "it acts with your talosconfig's credentials");
  }
  return {};
}

Result<std::unique_ptr<WebDashboard>> WebDashboard::start(const std::string& listen, ClusterView& view, DashboardActions actions,
                                                          std::string title) {
  if (auto s = check_loopback_listen(listen); !s.ok()) return s.error();
  auto shared = std::make_shared<Shared>(view, std::move(actions), std::move(title));
  auto* s = shared.get();
  // The bound port is known only once listening: until then every request is refused.
  auto server = api::HttpServer::start(
      listen,
      {{"/", s->guarded([s](const api::HttpRequest&) { return s->page(); })},
       {"/events", s->guarded([s](const api::HttpRequest&) {
          api::HttpResponse r{200, "text/event-stream", "", {{"Cache-Control", "no-store"}}};
          r.stream = [s](api::HttpStream& out) { s->events(out); };
          return r;
        })},
       {"/graph.svg", s->guarded([s](const api::HttpRequest&) { return s->graph(); })},
       {"POST /api/action", s->guarded([s](const api::HttpRequest& r) { return s->act(r); })}},
      {.what = "--listen", .max_streams = 16});
  if (!server.ok()) return server.error();
  auto hp = api::parse_host_port(listen, 8080);
  hp->port = (*server)->port();
  {
    std::lock_guard lock(s->mu);
    s->authority = hp->to_string();
  }
  std::string url = "http://" + shared->authority + "/";
  return std::unique_ptr<WebDashboard>(new WebDashboard(std::move(shared), std::move(*server), std::move(url)));
}

WebDashboard::WebDashboard(std::shared_ptr<Shared> shared, std::unique_ptr<api::HttpServer> server, std::string url)
    : shared_(std::move(shared)), server_(std::move(server)), url_(std::move(url)) {}

WebDashboard::~WebDashboard() { server_->stop(); }

void WebDashboard::changed() {
  {
    std::lock_guard lock(shared_->mu);
    ++shared_->changes;
  }
  shared_->changed.notify_all();
}

int WebDashboard::port() const { return server_->port(); }
std::string WebDashboard::url() const { return url_; }

}  // namespace cosi::dashboard
