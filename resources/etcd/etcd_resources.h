// The etcd namespace's resources: Talos's EtcdMembers, EtcdSpecs and EtcdConfigs, and ours,
// EtcdStatuses (one per member) and EtcdClusters (quorum at a glance).
#pragma once

#include <string_view>

#include "etcd.pb.h"
#include "resources/talos_yaml_style.h"
#include "runtime/proto/proto_spec.h"

namespace cosi::resources {

inline constexpr std::string_view kEtcdNamespace = "etcd";

inline constexpr std::string_view kEtcdMemberType = "EtcdMembers.etcd.talos.dev";
inline constexpr std::string_view kEtcdSpecType = "EtcdSpecs.etcd.talos.dev";
inline constexpr std::string_view kEtcdConfigType = "EtcdConfigs.etcd.talos.dev";
inline constexpr std::string_view kEtcdStatusType = "EtcdStatuses.etcd.talos.dev";
inline constexpr std::string_view kEtcdClusterType = "EtcdClusters.etcd.talos.dev";

inline constexpr std::string_view kEtcdSpecId = "etcd";
inline constexpr std::string_view kEtcdConfigId = "etcd";
inline constexpr std::string_view kEtcdMemberId = "local";
inline constexpr std::string_view kEtcdClusterId = "etcd";

using EtcdMemberSpec = ::talos::resource::definitions::etcd::MemberSpec;
using EtcdSpecSpec = ::talos::resource::definitions::etcd::SpecSpec;
using EtcdConfigSpec = ::talos::resource::definitions::etcd::ConfigSpec;
using EtcdStatusSpec = ::talos::resource::definitions::etcd::StatusSpec;
using EtcdClusterSpec = ::talos::resource::definitions::etcd::ClusterSpec;

}  // namespace cosi::resources

COSI_TALOS_YAML(::talos::resource::definitions::etcd::MemberSpec);
COSI_TALOS_YAML(::talos::resource::definitions::etcd::SpecSpec);
COSI_TALOS_YAML(::talos::resource::definitions::etcd::ConfigSpec);
COSI_TALOS_YAML(::talos::resource::definitions::etcd::StatusSpec);
COSI_TALOS_YAML(::talos::resource::definitions::etcd::ClusterSpec);
