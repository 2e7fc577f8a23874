// The config namespace's MachineConfigs: the applied machine config document, Sensitive. Its
// YAML is the document as applied.
#pragma once

#include <string_view>

#include "config.pb.h"
#include "runtime/proto/proto_spec.h"

namespace cosi::resources {

inline constexpr std::string_view kConfigNamespace = "config";

inline constexpr std::string_view kMachineConfigType = "MachineConfigs.config.talos.dev";
inline constexpr std::string_view kMachineConfigId = "v1alpha1";

using MachineConfigSpec = ::talos::resource::definitions::config::MachineConfigSpec;

}  // namespace cosi::resources

template <>
struct cosi::SpecTraits<::talos::resource::definitions::config::MachineConfigSpec>
    : ProtoSpecTraits<::talos::resource::definitions::config::MachineConfigSpec> {
  static std::string yaml(const ::talos::resource::definitions::config::MachineConfigSpec& spec) {
    return spec.document();
  }
};
