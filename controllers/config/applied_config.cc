#include "controllers/config/applied_config.h"

#include "resources/config/config_resources.h"

namespace cosi::controllers {

using namespace cosi::resources;

Input applied_config_input() {
  return {kConfigNamespace, kMachineConfigType, std::string(kMachineConfigId)};
}

Result<std::optional<config::MachineConfig>> applied_config(ControllerReader& ctx) {
  auto stored = ctx.get_typed<MachineConfigSpec>({kConfigNamespace, kMachineConfigType, std::string(kMachineConfigId)});
  if (!stored.ok()) {
    if (stored.error().is(ErrorKind::kNotFound)) return std::optional<config::MachineConfig>();
    return stored.error();
  }
  auto loaded = config::parse_machine_config((*stored)->spec().document());
  if (!loaded.ok()) return loaded.error();
  return std::optional<config::MachineConfig>(std::move(loaded->config));
}

}  // namespace cosi::controllers
