#include "controllers/common/service_request.h"

#include <string>

#include "resources/v1alpha1/v1alpha1_resources.h"

namespace cosi::controllers {

using namespace cosi::resources;

Input service_request_input(std::string_view service) {
  return {kRuntimeNamespace, kServiceRequestType, std::string(service)};
}

ServiceRequest read_service_request(ControllerReader& ctx, std::string_view service) {
  auto r = ctx.get_typed<ServiceRequestSpec>({kRuntimeNamespace, kServiceRequestType, std::string(service)});
  if (!r.ok()) return {};
  return {.stopped = (*r)->spec().stopped(), .restarts = (*r)->spec().restarts()};
}

}  // namespace cosi::controllers
