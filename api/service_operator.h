// The services machined runs, as MachineService's ServiceList / ServiceStart / ServiceStop /
// ServiceRestart see them. StoreServices is the node's: a view over runtime/ServiceStatuses,
// and the asks written as runtime/ServiceRequests for the service's controller to act on (the
// API never touches a process itself).
//
//   StoreServices services(state);
//   services.stop("etcd");     // ServiceRequests "etcd" {stopped: true}; EtcdController stops it
//   services.stop("nope");     // kNotFound: service "nope" not defined
#pragma once

#include <string>
#include <vector>

#include "machine.pb.h"
#include "runtime/base/result.h"
#include "runtime/state/state.h"

namespace cosi::api {

class ServiceOperator {
 public:
  virtual ~ServiceOperator() = default;
  virtual Result<std::vector<machine::ServiceInfo>> list() = 0;
  // Each kNotFound `service "ID" not defined` for a service this node does not run.
  virtual Status start(const std::string& id) = 0;
  virtual Status stop(const std::string& id) = 0;
  virtual Status restart(const std::string& id) = 0;
};

class StoreServices final : public ServiceOperator {
 public:
  explicit StoreServices(State& state) : state_(state) {}

  Result<std::vector<machine::ServiceInfo>> list() override;
  Status start(const std::string& id) override;
  Status stop(const std::string& id) override;
  Status restart(const std::string& id) override;

  // The owner of the ServiceRequests it writes.
  static constexpr std::string_view kOwner = "api.ServiceRequests";

 private:
  // Checks the service exists, then edits its request (created when absent).
  Status ask(const std::string& id, const std::function<void(bool& stopped, uint64_t& restarts)>& edit);

  State& state_;
};

}  // namespace cosi::api
