// A fake etcd cluster for the etcd controllers' unit tests: the membership rules machined
// depends on (one learner at a time, promotion only once the learner caught up, learners
// answer only Status, members that are down answer nothing and drop their connections), kept
// in memory. Clients come from
// `factory()` as machined's real ones do, by endpoint; processes from `launcher()` become
// members that answer once "started".
#pragma once

#include <algorithm>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controllers/etcd/etcd_client.h"
#include "controllers/common/process.h"

namespace cosi::testing {

class FakeEtcd {
 public:
  // A member created by bootstrap (voting, started) at `ip`.
  uint64_t add_started_member(const std::string& name, const std::string& ip) {
    std::lock_guard lock(mu_);
    controllers::EtcdMemberInfo m{next_id_++, name, {"https://" + ip + ":2380"}, {"https://" + ip + ":2379"}, false};
    members_.push_back(m);
    up_.insert(ip + ":2379");
    if (leader_ == 0) leader_ = m.id;
    return m.id;
  }

  std::vector<controllers::EtcdMemberInfo> members() const {
    std::lock_guard lock(mu_);
    return members_;
  }
  // Learners catch up (promotion allowed) only when told.
  void set_learners_in_sync(bool in_sync) {
    std::lock_guard lock(mu_);
    learners_in_sync_ = in_sync;
  }
  // A member down answers nothing, and its clients' connections are lost (wait_for_disconnect).
  void set_down(const std::string& endpoint, bool down) {
    {
      std::lock_guard lock(mu_);
      if (down) {
        up_.erase(endpoint);
      } else {
        up_.insert(endpoint);
      }
    }
    changed_.notify_all();
  }
  // Clients waiting now for their connection to `endpoint` to be lost.
  int watching(const std::string& endpoint) const {
    std::lock_guard lock(mu_);
    auto it = watching_.find(endpoint);
    return it == watching_.end() ? 0 : it->second;
  }
  // The next MemberAdd gets no answer (its deadline passes), as etcd's raft drops a membership
  // change proposed while another is pending; with `applied_late`, the member is added anyway.
  void drop_next_member_add(bool applied_late) {
    std::lock_guard lock(mu_);
    drop_member_add_ = true;
    drop_applied_late_ = applied_late;
  }
  // The next `n` MemberAdds are refused as etcd's strict reconfig check refuses them while a
  // member has been connected for less than 5 s.
  void refuse_member_adds_as_unhealthy(int n) {
    std::lock_guard lock(mu_);
    unhealthy_refusals_ = n;
  }
  // MemberAdd calls that reached a voting member, refused ones included.
  int member_adds() const {
    std::lock_guard lock(mu_);
    return member_adds_;
  }
  // The argument lists etcd was started with, in order.
  std::vector<std::vector<std::string>> launches() const {
    std::lock_guard lock(mu_);
    return launches_;
  }

  controllers::EtcdClientFactory factory() {
    return [this](const std::string& endpoint, const controllers::EtcdTls&, std::chrono::milliseconds) {
      return std::make_unique<Client>(this, endpoint);
    };
  }

  // Starting etcd makes the member with that peer URL answer at its client URL, under its name.
  controllers::ProcessLauncher launcher() {
    return [this](const std::vector<std::string>& argv, const std::string&) -> Result<std::unique_ptr<controllers::Process>> {
      std::lock_guard lock(mu_);
      launches_.push_back(argv);
      const std::string name = flag(argv, "--name");
      const std::string peer_url = flag(argv, "--initial-advertise-peer-urls");
      const std::string client_url = flag(argv, "--advertise-client-urls");
      auto it = std::find_if(members_.begin(), members_.end(), [&](const auto& m) {
        return std::find(m.peer_urls.begin(), m.peer_urls.end(), peer_url) != m.peer_urls.end();
      });
      if (it == members_.end()) {  // a new cluster: this member alone
        members_.push_back({next_id_++, name, {peer_url}, {client_url}, false});
        leader_ = members_.back().id;
      } else {
        it->name = name;
        it->client_urls = {client_url};
      }
      up_.insert(client_url.substr(client_url.find("://") + 3));
      return std::unique_ptr<controllers::Process>(std::make_unique<Process>(static_cast<int>(1000 + launches_.size())));
    };
  }

 private:
  static std::string flag(const std::vector<std::string>& argv, const std::string& name) {
    for (const auto& a : argv) {
      if (a.starts_with(name + "=")) return a.substr(name.size() + 1);
    }
    return "";
  }

  class Process final : public controllers::Process {
   public:
    explicit Process(int pid) : pid_(pid) {}
    bool running() override { return true; }
    int pid() const override { return pid_; }

   private:
    int pid_;
  };

  class Client final : public controllers::EtcdClient {
   public:
    Client(FakeEtcd* etcd, std::string endpoint) : etcd_(etcd), endpoint_(std::move(endpoint)) {}

    Result<std::vector<controllers::EtcdMemberInfo>> member_list() override {
      std::lock_guard lock(etcd_->mu_);
      if (auto s = voting_locked(); !s.ok()) return s.error();
      return etcd_->members_;
    }
    Result<uint64_t> add_learner(const std::vector<std::string>& peer_urls) override {
      std::lock_guard lock(etcd_->mu_);
      if (auto s = voting_locked(); !s.ok()) return s.error();
      ++etcd_->member_adds_;
      for (const auto& m : etcd_->members_) {
        if (m.is_learner) return Error(ErrorKind::kFailedPrecondition, "etcdserver: too many learner members in cluster");
      }
      if (etcd_->unhealthy_refusals_ > 0) {
        --etcd_->unhealthy_refusals_;
        return Error(ErrorKind::kUnavailable, "etcd " + endpoint_ + " MemberAdd: etcdserver: unhealthy cluster");
      }
      const bool dropped = std::exchange(etcd_->drop_member_add_, false);
      if (!dropped || etcd_->drop_applied_late_) etcd_->members_.push_back({etcd_->next_id_++, "", peer_urls, {}, true});
      if (dropped) return Error(ErrorKind::kDeadlineExceeded, "etcd " + endpoint_ + " MemberAdd: Deadline Exceeded");
      return etcd_->members_.back().id;
    }
    Status promote(uint64_t id) override {
      std::lock_guard lock(etcd_->mu_);
      if (auto s = voting_locked(); !s.ok()) return s;
      auto* m = find_locked(id);
      if (m == nullptr) return Error(ErrorKind::kNotFound, "etcdserver: member not found");
      if (!etcd_->learners_in_sync_) {
        return Error(ErrorKind::kFailedPrecondition, "etcdserver: can only promote a learner member which is in sync with leader");
      }
      m->is_learner = false;
      return {};
    }
    Status remove(uint64_t id) override {
      std::lock_guard lock(etcd_->mu_);
      if (auto s = voting_locked(); !s.ok()) return s;
      auto& ms = etcd_->members_;
      const auto before = ms.size();
      std::erase_if(ms, [&](const auto& m) { return m.id == id; });
      if (ms.size() == before) return Error(ErrorKind::kNotFound, "etcdserver: member not found");
      return {};
    }
    Result<controllers::EtcdMemberStatus> status() override {
      std::lock_guard lock(etcd_->mu_);
      if (!etcd_->up_.contains(endpoint_)) return down();
      controllers::EtcdMemberStatus s;
      s.version = "3.4.23";
      s.leader = etcd_->leader_;
      if (auto* m = self_locked()) {
        s.member_id = m->id;
        s.is_learner = m->is_learner;
      }
      return s;
    }
    Status move_leader(uint64_t to) override {
      std::lock_guard lock(etcd_->mu_);
      etcd_->leader_ = to;
      return {};
    }
    Result<std::vector<controllers::EtcdAlarm>> alarms() override { return std::vector<controllers::EtcdAlarm>{}; }
    Status disarm(const controllers::EtcdAlarm&) override { return {}; }
    Status defragment() override { return {}; }
    Status snapshot(const std::function<Status(std::string_view)>&) override { return unimplemented(); }
    Result<int64_t> put(const std::string&, const std::string&, int64_t) override { return unimplemented(); }
    Result<std::vector<controllers::EtcdKeyValue>> range(const std::string&, const std::string&) override {
      return unimplemented();
    }
    Result<int64_t> remove_range(const std::string&, const std::string&) override { return unimplemented(); }
    Result<int64_t> grant_lease(std::chrono::seconds) override { return unimplemented(); }
    Result<int64_t> keep_alive(int64_t) override { return unimplemented(); }
    Result<controllers::EtcdRange> range_with(const std::string&, const controllers::EtcdRangeOptions&) override {
      return unimplemented();
    }
    Result<controllers::EtcdTxnResult> txn(const std::vector<controllers::EtcdCompare>&, const std::vector<controllers::EtcdTxnOp>&,
                                           const std::vector<controllers::EtcdTxnOp>&) override {
      return unimplemented();
    }
    Status revoke_lease(int64_t) override { return unimplemented(); }
    Status watch(const std::string&, const std::string&, int64_t, const std::function<bool(const std::vector<controllers::EtcdWatchEvent>&)>&,
                 std::chrono::milliseconds) override {
      return unimplemented();
    }
    Result<bool> wait_for_disconnect(std::chrono::milliseconds for_at_most) override {
      std::unique_lock lock(etcd_->mu_);
      if (!etcd_->up_.contains(endpoint_)) return Error(ErrorKind::kFailedPrecondition, "no open connection");
      ++etcd_->watching_[endpoint_];
      const bool lost = etcd_->changed_.wait_for(lock, for_at_most, [&] { return !etcd_->up_.contains(endpoint_); });
      --etcd_->watching_[endpoint_];
      return lost;
    }

   private:
    static Error unimplemented() { return Error(ErrorKind::kUnimplemented, "not in the fake"); }
    Error down() const { return Error(ErrorKind::kUnavailable, "etcd " + endpoint_ + ": connection refused"); }

    controllers::EtcdMemberInfo* self_locked() {
      for (auto& m : etcd_->members_) {
        if (std::find(m.client_urls.begin(), m.client_urls.end(), "https://" + endpoint_) != m.client_urls.end()) return &m;
      }
      return nullptr;
    }
    controllers::EtcdMemberInfo* find_locked(uint64_t id) {
      for (auto& m : etcd_->members_) {
        if (m.id == id) return &m;
      }
      return nullptr;
    }
    // Membership calls need a started voting member.
    Status voting_locked() {
      if (!etcd_->up_.contains(endpoint_)) return down();
      auto* m = self_locked();
      if (m == nullptr) return down();
      if (m->is_learner) return Error(ErrorKind::kUnavailable, "etcdserver: rpc not supported for learner");
      return {};
    }

    FakeEtcd* etcd_;
    std::string endpoint_;
  };

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<controllers::EtcdMemberInfo> members_;
  std::set<std::string> up_;  // client endpoints that answer
  std::map<std::string, int> watching_;
  std::vector<std::vector<std::string>> launches_;
  uint64_t next_id_ = 0x1000;
  uint64_t leader_ = 0;
  bool learners_in_sync_ = true;
  int member_adds_ = 0;
  bool drop_member_add_ = false;
  bool drop_applied_late_ = false;
  int unhealthy_refusals_ = 0;
};

}  // namespace cosi::testing
