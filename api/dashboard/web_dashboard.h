// WebDashboard: `cosictl dashboard --web` — one page, served on a loopback address only, that
// draws the ClusterSnapshot (pushed to it with server-sent events as the view changes) and, for a
// cluster `cosictl cluster create` made, buttons that act through DashboardActions. cosictl holds
// the talosconfig's credentials and makes every call itself: the page only ever talks to this
// server, so no key reaches the browser.
//
//   GET  /             the page, with a CSRF token of its own
//   GET  /events       text/event-stream: the snapshot as JSON (snapshot_json.h) at once and on change
//   GET  /graph.svg    the controller graph (`inspect dependencies`, drawn by graphviz)
//   POST /api/action   {"node": "127.5.0.12", "action": "etcd-stop"}, header X-CSRF-Token: the page's token
//
// A POST without a token this server handed out, or from another origin, is 403 and changes
// nothing; so is any POST when the cluster was not made by cosictl. A Host header that names
// anything but the listen address is refused (no DNS rebinding).
//
//   auto web = WebDashboard::start("127.0.0.1:8080", view, actions, "demo");
//   watches = ClusterWatches(view, dial, types, [&] { (*web)->changed(); });
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "api/dashboard/cluster_view.h"
#include "runtime/base/result.h"

namespace cosi::api {
class HttpServer;
}

namespace cosi::dashboard {

// What the page's buttons do, for clusters cosictl made.
struct DashboardActions {
  bool enabled = false;
  // action: "etcd-stop", "etcd-start" (ServiceStop / ServiceStart of the node's etcd),
  // "power-off", "power-on" (the node's machined process). An unknown action is kInvalidArgument.
  std::function<Status(const std::string& node, const std::string& action)> act;
  // The controller dependency graph as SVG.
  std::function<Result<std::string>()> graph_svg;
};

// The actions the page offers, in the order its buttons show.
inline constexpr const char* kDashboardActions[] = {"etcd-stop", "etcd-start", "power-off", "power-on"};

// "127.0.0.1:8080" and every 127.0.0.0/8 or [::1] address pass; anything else is
// kInvalidArgument naming the flag.
Status check_loopback_listen(const std::string& listen);

class WebDashboard {
 public:
  static Result<std::unique_ptr<WebDashboard>> start(const std::string& listen, ClusterView& view, DashboardActions actions,
                                                     std::string title);
  ~WebDashboard();

  // The view changed: streams send the new snapshot.
  void changed();
  int port() const;
  std::string url() const;

 private:
  struct Shared;
  WebDashboard(std::shared_ptr<Shared> shared, std::unique_ptr<api::HttpServer> server, std::string url);

  std::shared_ptr<Shared> shared_;
  std::unique_ptr<api::HttpServer> server_;
  std::string url_;
};

}  // namespace cosi::dashboard
