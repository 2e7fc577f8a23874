// The runtime namespace's Services: one per service machined supervises (today "etcd"), with
// Talos's type name and spec.
#pragma once

#include <string_view>

#include "resources/talos_yaml_style.h"
#include "runtime/proto/proto_spec.h"
#include "v1alpha1.pb.h"

namespace cosi::resources {

inline constexpr std::string_view kRuntimeNamespace = "runtime";
inline constexpr std::string_view kServiceType = "Services.v1alpha1.talos.dev";

using ServiceSpec = ::talos::resource::definitions::v1alpha1::ServiceSpec;

}  // namespace cosi::resources

COSI_TALOS_YAML(::talos::resource::definitions::v1alpha1::ServiceSpec);
