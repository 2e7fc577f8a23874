// NodeEtcd: MachineService's etcd calls for machined — actions through the EtcdController,
// EtcdMemberList and EtcdStatus as views over the EtcdStatuses resources (they answer at once,
// whatever state the members are in).
#pragma once

#include <atomic>

#include "api/machine_server.h"
#include "controllers/etcd/etcd_controller.h"
#include "runtime/state/state.h"

namespace cosi::machined {

class NodeEtcd final : public api::EtcdOperator {
 public:
  NodeEtcd(State& state, controllers::EtcdController* controller) : state_(state), controller_(controller) {}

  Status bootstrap() override { return controller_->bootstrap(); }
  Status bootstrap_from_snapshot() override { return controller_->bootstrap_from_snapshot(); }
  Result<std::string> recover_path() override;
  Result<std::string> snapshot() override;
  Result<std::vector<machine::EtcdMemberAlarm>> alarms() override;
  Result<std::vector<machine::EtcdMemberAlarm>> disarm_alarms() override;
  Status defragment() override;
  Status leave() override { return controller_->leave(); }
  Status remove_member(uint64_t id) override;
  Result<std::string> forfeit_leadership() override;
  Result<std::vector<machine::EtcdMember>> members() override;
  Result<machine::EtcdMemberStatus> status() override;

 private:
  Status serving() const;
  State& state_;
  controllers::EtcdController* const controller_;
  std::atomic<int> snapshots_{0};
};

}  // namespace cosi::machined
