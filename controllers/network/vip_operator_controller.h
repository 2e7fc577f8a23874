// VIPOperatorController: the shared VIPs of a control plane. For every VIP OperatorSpec it runs
// a campaign (VipElection) once this node's etcd is running and healthy, and while the
// campaign leads — and its lease surely lives — it asks for the address on the link: an
// AddressSpec "<link>/<ip>/32" (or /128), announced with ARP, whose valid-until annotation is
// the campaign's `valid_until`, so the kernel drops the address by itself if this process stops
// refreshing it. It is woken whenever the campaign changes and at `valid_until`, so a holder
// whose keep-alives stopped getting through lets go in time even with nothing else happening.
// VIPStatuses (network/<ip>) say who holds each VIP, from the campaign's view of the election.
//
// Letting go on purpose (stop, graceful reset, a VIP gone from the config): the address is
// dropped first, and only once the kernel reports it gone does the campaign resign, so the
// next control plane takes over at once — never while this one still answers for it.
//
//   auto vip = std::make_unique<VIPOperatorController>(make_elections(), VIPOperatorOptions{.lease_ttl = 2s});
//   vip->release(2s);   // machined's stop: address off, then resign
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "controllers/network/vip_election.h"
#include "runtime/controller/context.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

struct VIPOperatorOptions {
  std::chrono::seconds lease_ttl{2};
  int etcd_client_port = 2379;
  int etcd_peer_port = 2380;
};

class VIPOperatorController final : public Controller {
 public:
  explicit VIPOperatorController(VipElectionFactory elections, VIPOperatorOptions options = {})
      : elections_(std::move(elections)), options_(options) {}

  std::string name() const override { return "network.VIPOperatorController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

  // Stops holding every VIP for good; each campaign resigns once its address is off the link.
  // Returns at once (the controller's passes do the work). Safe from any thread.
  void step_down();
  // step_down(), then waits up to `deadline` for every campaign to have resigned. When an
  // address is still on the link at the deadline, that campaign does not resign: its lease
  // runs out, and the kernel removes the address before it does.
  Status release(std::chrono::milliseconds deadline);

 private:
  struct Campaign {
    std::string link;
    std::string ip;  // 4 or 16 bytes
    bool announce = false;
    std::unique_ptr<VipElection> election;
  };

  const VipElectionFactory elections_;
  const VIPOperatorOptions options_;

  std::mutex mu_;
  std::condition_variable released_cv_;
  std::map<std::string, Campaign> campaigns_;  // guarded by mu_; by OperatorSpec id
  bool stepping_down_ = false;                 // guarded by mu_
  int resigning_ = 0;                          // guarded by mu_: resigns under way
  ControllerContext::Waker waker_;             // guarded by mu_
};

}  // namespace cosi::controllers
