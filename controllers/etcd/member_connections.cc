#include "controllers/etcd/member_connections.h"

#include <algorithm>
#include <utility>

namespace cosi::controllers {

using namespace std::chrono_literals;

namespace {
constexpr auto kRetry = 250ms;     // a member that did not answer is asked again after this
constexpr auto kWaitStep = 250ms;  // how long one wait lasts: also how soon a watcher stops
}  // namespace

struct MemberConnections::Member {
  std::string endpoint;
  EtcdTls tls;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  bool poke = false;  // try again now: the caller just saw the member answer
  std::thread thread;
};

MemberConnections::MemberConnections(KeptClients& kept, std::function<void()> on_change)
    : kept_(kept), on_change_(std::move(on_change)) {}

MemberConnections::~MemberConnections() { watch({}, {}); }

void MemberConnections::watch(const std::vector<std::string>& endpoints, const EtcdTls& tls) {
  std::vector<std::unique_ptr<Member>> stopping;
  const bool new_credentials = tls.crt != crt_;
  for (auto it = members_.begin(); it != members_.end();) {
    const bool listed = std::find(endpoints.begin(), endpoints.end(), it->first) != endpoints.end();
    if (listed && !new_credentials) {
      ++it;
      continue;
    }
    stopping.push_back(std::move(it->second));
    it = members_.erase(it);
  }
  for (auto& m : stopping) {
    {
      std::lock_guard lock(m->mu);
      m->stop = true;
    }
    m->cv.notify_all();
  }
  for (auto& m : stopping) m->thread.join();
  crt_ = tls.crt;
  for (const auto& endpoint : endpoints) {
    auto& m = members_[endpoint];
    if (m) {  // one waiting to try again is told to try now
      {
        std::lock_guard lock(m->mu);
        m->poke = true;
      }
      m->cv.notify_all();
      continue;
    }
    m = std::make_unique<Member>();
    m->endpoint = endpoint;
    m->tls = tls;
    m->thread = std::thread([this, member = m.get()] { run(*member); });
  }
}

void MemberConnections::run(Member& m) {
  auto stopped = [&](std::chrono::milliseconds within) {
    std::unique_lock lock(m.mu);
    m.cv.wait_for(lock, within, [&] { return m.stop || m.poke; });
    m.poke = false;
    return m.stop;
  };
  bool open = false;         // open at the end of our last wait
  bool lost_before = false;  // it was open once, then lost
  while (!stopped(0ms)) {
    auto client = kept_.get(m.endpoint, m.tls);
    auto lost = client->wait_for_disconnect(kWaitStep);
    if (!lost.ok() && lost.error().kind() == ErrorKind::kUnimplemented) return;  // polling alone, as before
    if (lost.ok() && !*lost) {  // open all along (someone connected it: the member answers)
      open = true;
      if (std::exchange(lost_before, false)) on_change_();  // back
      continue;
    }
    if (lost.ok() || open) {  // lost while we waited, or since our last wait
      open = false;
      lost_before = true;
      on_change_();
      continue;
    }
    // Not connected: connect (a Status), or look again later.
    if (client->status().ok()) {
      if (std::exchange(lost_before, false)) on_change_();  // back
      continue;
    }
    kept_.forget(m.endpoint, client);  // a new connection next time, not one in reconnect backoff
    if (stopped(kRetry)) return;
  }
}

}  // namespace cosi::controllers
