// The block resources Talos has: Disks (namespace runtime, one per whole disk, id its kernel
// name), printed as Talos prints them — snake_case keys, empty optional fields left out.
//
//   auto d = make_resource(Metadata(kRuntimeNamespace, kDiskType, "vda"), DiskSpec{});
#pragma once

#include <string_view>

#include "block.pb.h"
#include "resources/talos_yaml_style.h"
#include "resources/v1alpha1/v1alpha1_resources.h"
#include "runtime/proto/proto_spec.h"

namespace cosi::resources {

inline constexpr std::string_view kDiskType = "Disks.block.talos.dev";

using DiskSpec = ::talos::resource::definitions::block::DiskSpec;

}  // namespace cosi::resources

COSI_TALOS_YAML(::talos::resource::definitions::block::DiskSpec);
