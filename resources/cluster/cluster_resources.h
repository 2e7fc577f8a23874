// The cluster namespace's resources: Members, Affiliates, Identities, Infos and
// DiscoveryConfigs, with Talos's type names and spec messages.
//
//   auto m = make_resource(Metadata(kClusterNamespace, kMemberType, "cp-1"), MemberSpec{});
#pragma once

#include <string_view>

#include "cluster.pb.h"
#include "resources/config/config_resources.h"
#include "resources/talos_yaml_style.h"
#include "runtime/proto/proto_spec.h"

namespace cosi::resources {

inline constexpr std::string_view kClusterNamespace = "cluster";
inline constexpr std::string_view kClusterRawNamespace = "cluster-raw";

inline constexpr std::string_view kMemberType = "Members.cluster.talos.dev";
inline constexpr std::string_view kAffiliateType = "Affiliates.cluster.talos.dev";
inline constexpr std::string_view kIdentityType = "Identities.cluster.talos.dev";
inline constexpr std::string_view kInfoType = "Infos.cluster.talos.dev";
inline constexpr std::string_view kDiscoveryConfigType = "DiscoveryConfigs.cluster.talos.dev";

inline constexpr std::string_view kLocalIdentityId = "local";
inline constexpr std::string_view kCurrentInfoId = "current";
inline constexpr std::string_view kDiscoveryConfigId = "cluster";

using MemberSpec = ::talos::resource::definitions::cluster::MemberSpec;
using AffiliateSpec = ::talos::resource::definitions::cluster::AffiliateSpec;
using IdentitySpec = ::talos::resource::definitions::cluster::IdentitySpec;
using InfoSpec = ::talos::resource::definitions::cluster::InfoSpec;
using DiscoveryConfigSpec = ::talos::resource::definitions::cluster::ConfigSpec;

}  // namespace cosi::resources

COSI_TALOS_YAML(::talos::resource::definitions::cluster::MemberSpec);
COSI_TALOS_YAML(::talos::resource::definitions::cluster::AffiliateSpec);
COSI_TALOS_YAML(::talos::resource::definitions::cluster::IdentitySpec);
COSI_TALOS_YAML(::talos::resource::definitions::cluster::InfoSpec);
COSI_TALOS_YAML(::talos::resource::definitions::cluster::ConfigSpec);
