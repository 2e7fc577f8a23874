// ClusterWatches: keeps a watch of every kind the dashboard draws (watched_kinds()) open on
// every node of a ClusterView, each node over a connection of its own so that one node powered
// off blinds nothing else. A watch that ends is forgotten in the view and opened again a second
// later (a new connection each time: a node that comes back is seen within about a second);
// nodes that Members name are added as they appear. `changed` runs after each batch the view
// took, on the watches' thread.
//
//   ClusterView view;
//   view.add_node("127.5.0.10");
//   ClusterWatches watches(view, dial, types, [&] { screen.redraw(); });
//   watches.start();
//   ...
//   watches.stop();
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "api/dashboard/cluster_view.h"
#include "runtime/proto/resource_types.h"
#include "runtime/state/watch.h"

namespace grpc {
class Channel;
}

namespace cosi::dashboard {

// A connection to `node` (its API, with the caller's credentials), or why there is none.
using Dial = std::function<Result<std::shared_ptr<grpc::Channel>>(const std::string& node)>;

struct ClusterWatchesOptions {
  std::chrono::milliseconds open_deadline{2000};  // to open one watch
  std::chrono::milliseconds retry{1000};          // after a watch ended or could not open
};

class ClusterWatches {
 public:
  ClusterWatches(ClusterView& view, Dial dial, const ResourceTypes& types, std::function<void()> changed,
                 ClusterWatchesOptions options = {});
  ~ClusterWatches();

  void start();
  void stop();

 private:
  struct NodeWatches;
  void run();
  // Opens the watches due on the node; when it does not answer, the rest wait a retry.
  void open_due(const std::string& address, NodeWatches& node, std::chrono::steady_clock::time_point now);
  // Takes the node's events into the view; true when a watch had more than one batch waiting.
  bool drain(const std::string& address, NodeWatches& node, std::chrono::steady_clock::time_point now);

  ClusterView& view_;
  Dial dial_;
  const ResourceTypes& types_;
  std::function<void()> changed_;
  ClusterWatchesOptions options_;

  std::mutex mu_;
  std::condition_variable wake_;
  bool woken_ = false;     // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::map<std::string, std::unique_ptr<NodeWatches>> nodes_;  // the run thread's own
  std::thread thread_;
};

}  // namespace cosi::dashboard
