// What the API asked of a service machined runs (runtime/ServiceRequests, id = the service):
// stopped until started again, and a restart count that grows by one per ServiceRestart. A
// service's controller takes service_request_input(name) among its inputs and asks
// read_service_request each pass; no request at all means "run it".
//
//   auto request = read_service_request(ctx, "etcd");
//   if (request.stopped) { process_.reset(); ... }
//   if (restarts_.due(request)) process_.reset();   // started again below
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "runtime/controller/context.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

struct ServiceRequest {
  bool stopped = false;
  uint64_t restarts = 0;
};

Input service_request_input(std::string_view service);
ServiceRequest read_service_request(ControllerReader& ctx, std::string_view service);

// Says once per new restart count that a restart is due. The first count it sees is taken as
// done: a controller that starts with a request already there does not restart for it.
class RestartTracker {
 public:
  bool due(const ServiceRequest& request) {
    const bool fresh = seen_.has_value() && *seen_ != request.restarts;
    seen_ = request.restarts;
    return fresh;
  }

 private:
  std::optional<uint64_t> seen_;
};

}  // namespace cosi::controllers
