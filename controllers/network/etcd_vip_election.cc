#include "controllers/network/etcd_vip_election.h"

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace cosi::controllers {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kCallDeadline = 1s;
constexpr auto kRetryPause = 200ms;
// A watch ends this often with nothing seen, so a stop is noticed.
constexpr auto kWatchSlice = 500ms;

std::string lease_hex(int64_t lease) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(lease));
  return buf;
}

class EtcdVipElection final : public VipElection {
 public:
  EtcdVipElection(VipElectionOptions o, const EtcdClientFactory& clients)
      : o_(std::move(o)),
        prefix_(o_.key + "/"),
        calls_(clients(o_.endpoint, o_.tls, kCallDeadline)),
        every_(std::chrono::duration_cast<std::chrono::milliseconds>(o_.ttl) / 4),
        keep_alives_(clients(o_.endpoint, o_.tls, every_)) {
    campaigner_ = std::thread([this] { campaign(); });
    keeper_ = std::thread([this] { keep_alive(); });
  }

  ~EtcdVipElection() override { stop(); }

  VipElectionState state() const override {
    std::lock_guard lock(mu_);
    return published();
  }

  Status resign(std::chrono::milliseconds deadline) override {
    int64_t lease = 0;
    std::string key;
    int64_t revision = 0;
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      lease = lease_;
      key = key_;
      revision = revision_;
      lease_ = 0;
      leading_ = false;
    }
    cv_.notify_all();
    notify();
    Status result;
    if (lease != 0) {
      // etcd's Resign: delete the key only while it is still ours, then the lease too.
      if (revision != 0) {
        const EtcdCompare ours{key, EtcdCompare::Target::kCreateRevision, EtcdCompare::Op::kEqual, revision};
        if (auto r = calls_->txn({ours}, {EtcdTxnOp::remove(key)}, {}); !r.ok()) result = r.error();
      }
      if (auto s = calls_->revoke_lease(lease); !s.ok() && result.ok()) result = s;
    }
    stop();
    (void)deadline;  // every call above already has kCallDeadline, well under any caller's
    if (result.ok()) o_.log.info("resigned from the VIP election", {{"key", o_.key}});
    return result;
  }

 private:
  VipElectionState published() const {
    VipElectionState s;
    s.leading = leading_;
    s.valid_until = leading_ ? valid_until_ : SteadyTime{};
    s.holder = holder_;
    s.since = since_;
    return s;
  }

  void notify() {
    VipElectionState now;
    {
      std::lock_guard lock(mu_);
      now = published();
      if (now == last_told_) return;
      last_told_ = now;
    }
    if (o_.on_change) o_.on_change();
  }

  void stop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (campaigner_.joinable()) campaigner_.join();
    if (keeper_.joinable()) keeper_.join();
  }

  // Waits for `d` or a stop; false when stopping.
  bool pause(std::unique_lock<std::mutex>& lock, Clock::duration d) {
    cv_.wait_for(lock, d, [&] { return stopping_; });
    return !stopping_;
  }

  // A lease and our key on it: true when both exist.
  bool ensure_candidacy() {
    std::unique_lock lock(mu_);
    if (lease_ == 0) {
      lock.unlock();
      const auto sent = Clock::now();
      auto granted = calls_->grant_lease(o_.ttl);
      lock.lock();
      if (!granted.ok()) {
        o_.log.warn("VIP election: granting a lease", {{"error", granted.error().message()}});
        return false;
      }
      if (stopping_) {  // resigned meanwhile: this lease must not hold a candidacy
        lock.unlock();
        (void)calls_->revoke_lease(*granted);
        lock.lock();
        return false;
      }
      lease_ = *granted;
      key_ = prefix_ + lease_hex(lease_);
      revision_ = 0;
      valid_until_ = sent + o_.ttl - kVipLeaseMargin;
    }
    if (revision_ != 0) return true;
    const std::string key = key_;
    const int64_t lease = lease_;
    lock.unlock();
    // Create our key unless it exists; if it does (an earlier Txn whose answer we never got
    // did create it), read it back: its create revision is our place.
    const EtcdCompare absent{key, EtcdCompare::Target::kCreateRevision, EtcdCompare::Op::kEqual, 0};
    auto r = calls_->txn({absent}, {EtcdTxnOp::put(key, o_.candidate, lease)}, {EtcdTxnOp::get(key)});
    lock.lock();
    if (!r.ok()) {
      o_.log.warn("VIP election: creating the candidate key", {{"key", key}, {"error", r.error().message()}});
      return false;
    }
    if (stopping_ || key != key_) return false;  // resigned, or the lease was lost meanwhile
    if (r->succeeded) {
      revision_ = r->revision;
    } else if (!r->got.empty()) {
      revision_ = r->got.front().create_revision;
    } else {
      return false;
    }
    return true;
  }

  void campaign() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      lock.unlock();
      const bool candidate = ensure_candidacy();
      lock.lock();
      if (stopping_) break;
      if (!candidate) {
        pause(lock, kRetryPause);
        continue;
      }
      const std::string mine = key_;
      lock.unlock();
      using Sort = EtcdRangeOptions::Sort;
      auto oldest = calls_->range_with(prefix_, {.range_end = prefix_end(prefix_), .sort = Sort::kCreateAscending, .limit = 1});
      if (!oldest.ok()) {
        lock.lock();
        pause(lock, kRetryPause);
        continue;
      }
      bool won = false;
      {
        lock.lock();
        const std::string holder = oldest->kvs.empty() ? std::string() : oldest->kvs.front().value;
        const bool leading = !oldest->kvs.empty() && oldest->kvs.front().key == mine && mine == key_;
        if (holder != holder_) {
          holder_ = holder;
          since_ = std::chrono::system_clock::now();
          o_.log.info("VIP holder", {{"key", o_.key}, {"holder", holder.empty() ? "nobody" : holder}});
        }
        won = leading && !leading_;
        leading_ = leading;
        if (won) refresh_now_ = true;
        lock.unlock();
      }
      if (won) cv_.notify_all();  // a fresh keep-alive, so the VIP can be held the longest
      notify();
      // Until the prefix changes (a key added or gone), or a slice of time passed.
      (void)calls_->watch(prefix_, prefix_end(prefix_), oldest->revision + 1, [](const auto&) { return false; },
                          std::chrono::duration_cast<std::chrono::milliseconds>(kWatchSlice));
      lock.lock();
    }
  }

  void keep_alive() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      cv_.wait_for(lock, every_, [&] { return stopping_ || refresh_now_; });
      if (stopping_) break;
      refresh_now_ = false;
      const int64_t lease = lease_;
      if (lease == 0) continue;
      lock.unlock();
      const auto sent = Clock::now();
      auto ttl = keep_alives_->keep_alive(lease);
      lock.lock();
      if (lease != lease_) continue;
      if (ttl.ok()) {
        valid_until_ = std::max(valid_until_, sent + std::chrono::seconds(*ttl) - kVipLeaseMargin);
      } else if (ttl.error().is(ErrorKind::kNotFound)) {
        o_.log.warn("VIP election: the lease expired; campaigning again", {{"key", o_.key}});
        lease_ = 0;
        revision_ = 0;
        leading_ = false;
        cv_.notify_all();
      } else {
        continue;  // unknown: the lease may or may not have been refreshed, so valid_until stays
      }
      lock.unlock();
      notify();
      lock.lock();
    }
  }

  const VipElectionOptions o_;
  const std::string prefix_;
  const std::unique_ptr<EtcdClient> calls_;
  const std::chrono::milliseconds every_;  // TTL/4: how often the lease is kept alive
  const std::unique_ptr<EtcdClient> keep_alives_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;     // guarded by mu_
  bool refresh_now_ = false;  // guarded by mu_
  int64_t lease_ = 0;         // guarded by mu_; 0: none
  std::string key_;           // guarded by mu_
  int64_t revision_ = 0;      // guarded by mu_: our key's create revision; 0: not created yet
  bool leading_ = false;      // guarded by mu_
  SteadyTime valid_until_{};  // guarded by mu_
  std::string holder_;        // guarded by mu_
  std::chrono::system_clock::time_point since_{};  // guarded by mu_
  VipElectionState last_told_;                     // guarded by mu_
  std::thread campaigner_;
  std::thread keeper_;
};

}  // namespace

std::unique_ptr<VipElection> make_etcd_vip_election(VipElectionOptions options, EtcdClientFactory clients) {
  return std::make_unique<EtcdVipElection>(std::move(options), clients);
}

}  // namespace cosi::controllers
