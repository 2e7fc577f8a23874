// ServiceStatusController: what `talosctl service` shows of each service machined runs. From
// the Services each service's controller publishes (running, healthy) and the ServiceRequests
// the API wrote (stopped, restarts) it keeps one ServiceStatuses per service — its state in
// Talos's words, its health and when that last changed, and its events, oldest first, at
// most 64 as Talos keeps:
//
//   running, not asked to stop     Running    "Service started", then "Health check successful"
//   running, asked to stop         Stopping   "Stop requested"
//   not running, asked to stop     Finished   "Service stopped"
//   not running, was running       Failed     "Service exited; restarting"
//   not running, was stopped       Waiting    "Start requested"
//   not running, never ran         Waiting    "Waiting for the service to start"
//
// A ServiceRestart adds "Restart requested". Times come from `wall` (the system clock, or a
// test's). A service whose Services resource goes (a node that stops being a control plane)
// loses its status too.
//
//   runtime.add(std::make_unique<ServiceStatusController>());
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "resources/v1alpha1/v1alpha1_resources.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

using WallClock = std::function<std::chrono::system_clock::time_point()>;

class ServiceStatusController final : public Controller {
 public:
  static constexpr int kMaxEvents = 64;

  explicit ServiceStatusController(WallClock wall = [] { return std::chrono::system_clock::now(); }) : wall_(std::move(wall)) {}

  std::string name() const override { return "v1alpha1.ServiceStatusController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  struct Tracked {
    resources::ServiceStatusSpec status;
    uint64_t restarts = 0;
  };

  void add_event(Tracked& t, const std::string& state, const std::string& msg);

  const WallClock wall_;
  std::map<std::string, Tracked> services_;  // only the controller's pass touches it
};

}  // namespace cosi::controllers
