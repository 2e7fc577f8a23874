// The runtime namespace: Services, one per service machined runs (etcd, trustd, kubeprism, the
// API server stand-in), with Talos's type name and spec, written by the service's controller;
// and ours, ServiceStatuses (state, health, events: what `talosctl service` shows) and
// ServiceRequests (what the API asked: stopped, restarts), both with the service's id.
#pragma once

#include <string_view>

#include "resources/talos_yaml_style.h"
#include "runtime/proto/proto_spec.h"
#include "service_status.pb.h"
#include "v1alpha1.pb.h"

namespace cosi::resources {

inline constexpr std::string_view kRuntimeNamespace = "runtime";
inline constexpr std::string_view kServiceType = "Services.v1alpha1.talos.dev";

inline constexpr std::string_view kServiceStatusType = "ServiceStatuses.v1alpha1.talos.dev";
inline constexpr std::string_view kServiceRequestType = "ServiceRequests.v1alpha1.talos.dev";

using ServiceSpec = ::talos::resource::definitions::v1alpha1::ServiceSpec;
using ServiceStatusSpec = ::talos::resource::definitions::v1alpha1::ServiceStatusSpec;
using ServiceRequestSpec = ::talos::resource::definitions::v1alpha1::ServiceRequestSpec;

}  // namespace cosi::resources

COSI_TALOS_YAML(::talos::resource::definitions::v1alpha1::ServiceSpec);
COSI_TALOS_YAML(::talos::resource::definitions::v1alpha1::ServiceStatusSpec);
COSI_TALOS_YAML(::talos::resource::definitions::v1alpha1::ServiceRequestSpec);
