// EtcdStatusController: etcd's health as resources, refreshed twice a second on control planes.
// One EtcdStatuses per member (id = its member id in hex): Maintenance.Status of that member
// with a short deadline, or the error that call got; and EtcdClusters "etcd": members, voting,
// healthy, quorum needed, failures tolerated, whether it has quorum, the leader, and how often
// the leader changed while this node watched (not the first election). The member
// list comes from any voting member; when none answers, the last one seen stands, so a dead
// majority shows as errors rather than as an empty cluster. Each member is asked over a
// connection kept while it answers; besides the poll, MemberConnections wakes it as soon as a
// member's connection is lost.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "controllers/etcd/etcd_client.h"
#include "controllers/etcd/kept_clients.h"
#include "controllers/etcd/member_connections.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

class EtcdStatusController final : public Controller {
 public:
  EtcdStatusController(EtcdClientFactory clients, int client_port = 2379, int peer_port = 2380,
                       std::chrono::milliseconds every = std::chrono::milliseconds(500))
      : clients_(std::move(clients)), client_port_(client_port), peer_port_(peer_port), every_(every) {}

  static constexpr std::chrono::milliseconds kStatusDeadline{700};

  std::string name() const override { return "etcd.StatusController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  const EtcdClientFactory clients_;
  const int client_port_;
  const int peer_port_;
  const std::chrono::milliseconds every_;
  std::vector<EtcdMemberInfo> last_members_;
  std::string last_leader_;  // as EtcdClusters shows it: empty without quorum or leader
  bool seen_leader_ = false;
  uint64_t leader_changes_ = 0;
  KeptClients kept_{clients_, kStatusDeadline};     // each member asked over one connection
  std::unique_ptr<MemberConnections> connections_;  // made on the first pass (it needs the waker)
};

}  // namespace cosi::controllers
