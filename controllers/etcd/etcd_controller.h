// EtcdController: runs this control plane's etcd member from its EtcdSpec and EtcdCerts.
//
//   data in STATE/etcd/data   restart the member it holds
//   bootstrap() was called    start a new single-member cluster here
//   otherwise                 join: ask the control planes discovery knows (Endpoints) for
//                             the cluster, remove a stale member with our name, MemberAdd us
//                             as a learner, start with initial-cluster-state=existing,
//                             promote once in sync. One learner at a time: while another
//                             node's learner is there, wait; one that has not started 30 s
//                             after we first saw it was abandoned, and one that started but
//                             has not answered for 60 s died: either is removed
//
// The process is supervised: restarted with backoff when it exits, stopped with the
// controller, and stopped, started and restarted as runtime/ServiceRequests "etcd" asks (the
// API's ServiceStop, ServiceStart, ServiceRestart). Until a cluster exists it logs, every 30 s,
// that one control plane needs `bootstrap`. Publishes EtcdMembers "local" (this member's id)
// and runtime/Services "etcd" (running, healthy: this member answers Status).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "controllers/etcd/etcd_client.h"
#include "controllers/common/process.h"
#include "controllers/common/service_request.h"
#include "controllers/etcd/etcd_view.h"
#include "controllers/etcd/kept_clients.h"
#include "runtime/controller/context.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

struct EtcdControllerOptions {
  std::string state_dir;            // etcd keeps STATE/etcd/{data,pki,etcd.log}
  std::string etcd_binary = "etcd";
  std::string etcdctl_binary = "etcdctl";
  int client_port = 2379;
  int peer_port = 2380;
};

class EtcdController final : public Controller {
 public:
  EtcdController(EtcdControllerOptions options, ProcessLauncher launcher, EtcdClientFactory clients, CommandRunner runner = {})
      : options_(std::move(options)), launcher_(std::move(launcher)), clients_(std::move(clients)), runner_(std::move(runner)) {}

  std::string name() const override { return "etcd.EtcdController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

  // MachineService.Bootstrap: kUnimplemented off control planes, kAlreadyExists when the data
  // directory is not empty, kFailedPrecondition naming a control plane whose etcd already
  // runs a cluster. Safe from any thread.
  Status bootstrap();
  // Bootstrap{recover_etcd}: as bootstrap(), but the new single-member cluster starts from the
  // snapshot uploaded by EtcdRecover (`etcdctl snapshot restore`).
  Status bootstrap_from_snapshot();
  // Where EtcdRecover stores the uploaded snapshot.
  std::string recover_path() const { return options_.state_dir + "/etcd/recover.snapshot"; }
  // EtcdSnapshot: this member's snapshot written to `path`.
  Status snapshot(const std::string& path);
  // EtcdAlarmList and EtcdAlarmDisarm (which returns what it disarmed), through any member.
  Result<std::vector<EtcdAlarm>> alarms();
  Result<std::vector<EtcdAlarm>> disarm_alarms();
  // EtcdDefragment of this member.
  Status defragment();
  // EtcdLeaveCluster: removes this member (through a voting member), stops etcd, wipes its data.
  // This node does not join again until it is reset.
  Status leave();
  // EtcdRemoveMemberByID, through a voting member.
  Status remove_member(uint64_t id);
  // EtcdForfeitLeadership: when this member leads, hands leadership to another voting member;
  // the new leader's id (0 when this member was not the leader).
  Result<uint64_t> forfeit_leadership();
  // Whether this node runs etcd at all (a control plane with its spec and certificates).
  bool serving() const;
  // Stops etcd now (machined's shutdown and reset: the process must not outlive machined).
  void stop();

 private:
  std::string data_dir() const;
  std::string pki_dir() const;
  bool has_data() const;
  std::vector<std::string> args(const EtcdView& v, const std::string& initial_cluster, bool existing) const;
  Status write_pki(const EtcdView& v) const;
  Status check_bootstrap(std::shared_ptr<const EtcdView>* view);
  std::shared_ptr<const EtcdView> current_view() const;
  // A voting member's client: the other control planes first, then this one.
  std::unique_ptr<EtcdClient> voting_client(const EtcdView& v) const;
  // Starts etcd (mu_ held).
  ReconcileResult start(ControllerContext& ctx, const EtcdView& v, const std::string& initial_cluster, bool existing);
  // Joins the cluster the other control planes run (mu_ held).
  ReconcileResult join(ControllerContext& ctx, const EtcdView& v);
  std::optional<ReconcileResult> remove_dead_learner(ControllerContext& ctx, const EtcdView& v, const EtcdMemberInfo& learner,
                                                     EtcdClient& via, const std::string& peer);
  // Logs, once per wait, that another node holds etcd's one learner place.
  void log_waiting_for_learner(ControllerContext& ctx, uint64_t learner);
  // Publishes EtcdMembers "local" from this member's status, or keeps it; true when it answered.
  bool publish_member(ControllerContext& ctx, const EtcdView& v);
  ReconcileResult pass(ControllerContext& ctx);
  void publish_service(ControllerContext& ctx);

  const EtcdControllerOptions options_;
  const ProcessLauncher launcher_;
  const EtcdClientFactory clients_;
  const CommandRunner runner_;

  mutable std::mutex mu_;
  std::shared_ptr<const EtcdView> view_;
  ControllerContext::Waker waker_;
  std::unique_ptr<Process> process_;
  bool bootstrap_requested_ = false;
  bool restore_requested_ = false;
  bool left_ = false;
  std::optional<uint64_t> learner_;  // our id while we wait to be promoted
  // When this joiner saw etcd's learner place free, while control planes before it were not
  // members yet (kJoinStagger).
  std::optional<SteadyTime> place_free_since_;
  // Reconcile thread only: the voting member a learner asks for its promotion.
  std::shared_ptr<EtcdClient> promoter_;
  // etcd's raft drops a membership change proposed while another is still pending (two nodes'
  // MemberAdds racing for the learner place), and the loser's call then waits out its whole
  // deadline: 1.0-1.5 s of a three-node bootstrap, in one of eight here. A membership change
  // takes one commit (milliseconds); after this long the next pass looks again, and finds the
  // other node's learner to wait for, or its own member, added late, to start.
  static constexpr std::chrono::milliseconds kMemberChangeDeadline{300};
  // This member (its health check every 2 s, every 10 ms while a learner), over a connection
  // kept while it answers.
  KeptClients kept_{clients_, std::chrono::seconds(1)};
  // The peers a joiner asks for the members, to add it and to promote it (kMemberChangeDeadline).
  KeptClients joining_{clients_, kMemberChangeDeadline};
  int failures_ = 0;
  bool healthy_ = false;
  bool checked_ = false;
  std::chrono::steady_clock::time_point next_start_{};
  std::chrono::steady_clock::time_point last_wait_log_{};
  bool learner_wait_logged_ = false;
  bool health_wait_logged_ = false;
  RestartTracker restarts_;
  // Other nodes' learners without a name (not started), by id: when we first saw each.
  std::map<uint64_t, SteadyTime> unstarted_learners_;
  // Other nodes' started learners that stopped answering, by id: since when.
  std::map<uint64_t, SteadyTime> dead_learners_;
};

}  // namespace cosi::controllers
