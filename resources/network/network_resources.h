// The network namespace's resources: Talos's LinkStatuses, OperatorSpecs, AddressSpecs,
// AddressStatuses, HostnameStatuses and NodeAddresses, and ours, VIPStatuses.
#pragma once

#include <string_view>

#include "network.pb.h"
#include "resources/talos_yaml_style.h"
#include "runtime/proto/proto_spec.h"

namespace cosi::resources {

inline constexpr std::string_view kNetworkNamespace = "network";

inline constexpr std::string_view kLinkStatusType = "LinkStatuses.net.talos.dev";
inline constexpr std::string_view kOperatorSpecType = "OperatorSpecs.net.talos.dev";
inline constexpr std::string_view kAddressSpecType = "AddressSpecs.net.talos.dev";
inline constexpr std::string_view kAddressStatusType = "AddressStatuses.net.talos.dev";
inline constexpr std::string_view kVIPStatusType = "VIPStatuses.net.talos.dev";
inline constexpr std::string_view kHostnameStatusType = "HostnameStatuses.net.talos.dev";
inline constexpr std::string_view kNodeAddressType = "NodeAddresses.net.talos.dev";

inline constexpr std::string_view kHostnameStatusId = "hostname";
inline constexpr std::string_view kNodeAddressId = "current";

using LinkStatusSpec = ::talos::resource::definitions::network::LinkStatusSpec;
using OperatorSpecSpec = ::talos::resource::definitions::network::OperatorSpecSpec;
using AddressSpecSpec = ::talos::resource::definitions::network::AddressSpecSpec;
using AddressStatusSpec = ::talos::resource::definitions::network::AddressStatusSpec;
using VIPStatusSpec = ::talos::resource::definitions::network::VIPStatusSpec;
using HostnameStatusSpec = ::talos::resource::definitions::network::HostnameStatusSpec;
using NodeAddressSpec = ::talos::resource::definitions::network::NodeAddressSpec;

}  // namespace cosi::resources

COSI_TALOS_YAML(::talos::resource::definitions::network::LinkStatusSpec);
COSI_TALOS_YAML(::talos::resource::definitions::network::OperatorSpecSpec);
COSI_TALOS_YAML(::talos::resource::definitions::network::AddressSpecSpec);
COSI_TALOS_YAML(::talos::resource::definitions::network::AddressStatusSpec);
COSI_TALOS_YAML(::talos::resource::definitions::network::VIPStatusSpec);
COSI_TALOS_YAML(::talos::resource::definitions::network::HostnameStatusSpec);
COSI_TALOS_YAML(::talos::resource::definitions::network::NodeAddressSpec);
