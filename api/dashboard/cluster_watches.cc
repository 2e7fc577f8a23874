#include "api/dashboard/cluster_watches.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>

#include "api/state_client.h"

namespace cosi::dashboard {

using Clock = std::chrono::steady_clock;

struct ClusterWatches::NodeWatches {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<api::GrpcState> state;
  std::map<Kind, WatchPtr> open;               // destroyed before `state`
  std::map<Kind, Clock::time_point> due;       // kinds to open, and when

  ~NodeWatches() { open.clear(); }
};

ClusterWatches::ClusterWatches(ClusterView& view, Dial dial, const ResourceTypes& types, std::function<void()> changed,
                               ClusterWatchesOptions options)
    : view_(view), dial_(std::move(dial)), types_(types), changed_(std::move(changed)), options_(options) {}

ClusterWatches::~ClusterWatches() { stop(); }

void ClusterWatches::start() { thread_ = std::thread([this] { run(); }); }

void ClusterWatches::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ClusterWatches::run() {
  uint64_t shown = 0;
  Clock::time_point next = Clock::now();
  while (true) {
    {
      std::unique_lock lock(mu_);
      wake_.wait_until(lock, next, [&] { return woken_ || stopping_; });
      if (stopping_) break;
      woken_ = false;
    }
    const auto now = Clock::now();
    for (const auto& address : view_.nodes()) {
      auto& node = nodes_[address];
      if (node) continue;
      node = std::make_unique<NodeWatches>();
      for (const auto& kind : watched_kinds()) node->due[kind] = now;
    }
    bool more = false;
    for (auto& [address, node] : nodes_) more |= drain(address, *node, now);
    for (auto& [address, node] : nodes_) open_due(address, *node, Clock::now());
    for (const auto& address : view_.undiscovered()) more |= view_.add_node(address);

    next = Clock::now() + options_.retry;
    for (const auto& [_, node] : nodes_) {
      for (const auto& [kind, when] : node->due) next = std::min(next, when);
    }
    if (more) next = Clock::now();
    if (const auto generation = view_.generation(); generation != shown) {
      shown = generation;
      changed_();
    }
  }
  nodes_.clear();
}

// Takes what the node's watches have into the view; a watch that ended is forgotten and due
// again after a retry. True when there may be more to take at once.
bool ClusterWatches::drain(const std::string& address, NodeWatches& node, Clock::time_point now) {
  bool more = false;
  std::vector<Event> events;
  for (auto it = node.open.begin(); it != node.open.end();) {
    events.clear();
    constexpr std::size_t kBatch = 256;
    const std::size_t n = it->second->poll(events, kBatch);
    more |= n == kBatch;
    bool ended = false;
    for (const auto& e : events) {
      if (e.type == EventType::kErrored) {
        view_.lost(address, it->first, e.error ? e.error->message() : "the watch ended");
        ended = true;
        break;
      }
      view_.apply(address, e);
    }
    if (!ended) {
      ++it;
      continue;
    }
    node.due[it->first] = now + options_.retry;
    it = node.open.erase(it);
  }
  // Nothing open: the next attempt dials again rather than wait out the channel's backoff.
  if (node.open.empty() && node.state) {
    node.state.reset();
    node.channel.reset();
  }
  return more;
}

void ClusterWatches::open_due(const std::string& address, NodeWatches& node, Clock::time_point now) {
  std::vector<Kind> due;
  for (const auto& [kind, when] : node.due) {
    if (when <= now) due.push_back(kind);
  }
  if (due.empty()) return;
  auto retry_all = [&](const std::string& error) {
    for (const auto& kind : due) {
      view_.lost(address, kind, error);
      node.due[kind] = now + options_.retry;
    }
  };
  if (!node.state) {
    auto channel = dial_(address);
    if (!channel.ok()) return retry_all(channel.error().message());
    node.channel = *channel;
    node.state = std::make_unique<api::GrpcState>(
        node.channel, types_, api::GrpcStateOptions{.deadline = options_.open_deadline, .metadata = {{"node", address}}});
  }
  for (const auto& kind : due) {
    auto watch = node.state->watch_kind(kind, {.bootstrap_contents = true});
    if (!watch.ok()) {
      const Error& e = watch.error();
      if (e.is(ErrorKind::kUnavailable) || e.is(ErrorKind::kDeadlineExceeded)) {
        // The node does not answer: the rest of its kinds wait too.
        std::erase_if(due, [&](const Kind& k) { return node.open.contains(k); });
        return retry_all(e.message());
      }
      // Refused (a role without access, a type this node does not serve): asked again rarely.
      view_.lost(address, kind, e.message());
      node.due[kind] = now + options_.retry * 10;
      continue;
    }
    node.due.erase(kind);
    (*watch)->set_notify([this] {
      {
        std::lock_guard lock(mu_);
        woken_ = true;
      }
      wake_.notify_all();
    });
    node.open[kind] = std::move(*watch);
    view_.opened(address, kind);
  }
}

}  // namespace cosi::dashboard
