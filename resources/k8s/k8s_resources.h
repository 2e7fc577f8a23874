// The k8s namespace's resources: KubePrism's endpoints, configuration and status, and ours, one
// KubePrismUpstreams per upstream; and in the controlplane namespace the control planes'
// addresses (Endpoints "discovery").
#pragma once

#include <string_view>

#include "k8s.pb.h"
#include "resources/talos_yaml_style.h"
#include "runtime/proto/proto_spec.h"

namespace cosi::resources {

inline constexpr std::string_view kK8sNamespace = "k8s";
inline constexpr std::string_view kControlPlaneNamespace = "controlplane";

inline constexpr std::string_view kEndpointType = "Endpoints.kubernetes.talos.dev";
inline constexpr std::string_view kDiscoveredEndpointsId = "discovery";

inline constexpr std::string_view kKubePrismEndpointsType = "KubePrismEndpoints.kubernetes.talos.dev";
inline constexpr std::string_view kKubePrismConfigType = "KubePrismConfigs.kubernetes.talos.dev";
inline constexpr std::string_view kKubePrismStatusType = "KubePrismStatuses.kubernetes.talos.dev";
inline constexpr std::string_view kKubePrismUpstreamType = "KubePrismUpstreams.kubernetes.talos.dev";

inline constexpr std::string_view kKubePrismEndpointsId = "k8s-cluster";
inline constexpr std::string_view kKubePrismConfigId = "k8s-loadbalancer-config";
inline constexpr std::string_view kKubePrismStatusId = "k8s-loadbalancer";

using EndpointSpec = ::talos::resource::definitions::k8s::EndpointSpec;
using KubePrismEndpointsSpec = ::talos::resource::definitions::k8s::KubePrismEndpointsSpec;
using KubePrismConfigSpec = ::talos::resource::definitions::k8s::KubePrismConfigSpec;
using KubePrismStatusesSpec = ::talos::resource::definitions::k8s::KubePrismStatusesSpec;
using KubePrismUpstreamSpec = ::talos::resource::definitions::k8s::KubePrismUpstreamSpec;

}  // namespace cosi::resources

COSI_TALOS_YAML(::talos::resource::definitions::k8s::EndpointSpec);
COSI_TALOS_YAML(::talos::resource::definitions::k8s::KubePrismEndpointsSpec);
COSI_TALOS_YAML(::talos::resource::definitions::k8s::KubePrismConfigSpec);
COSI_TALOS_YAML(::talos::resource::definitions::k8s::KubePrismStatusesSpec);
COSI_TALOS_YAML(::talos::resource::definitions::k8s::KubePrismUpstreamSpec);
