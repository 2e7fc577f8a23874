// The applied machine config as the controllers derived from it read it:
//
//   std::vector<Input> inputs() const override { return {applied_config_input()}; }
//   auto cfg = applied_config(ctx);
//   if (!cfg.ok()) return ReconcileResult::terminal(cfg.error());   // it was validated on apply
//   if (!*cfg) return ReconcileResult::done();                      // none yet: maintenance mode
#pragma once

#include <optional>

#include "resources/config/machine_config.h"
#include "runtime/controller/context.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

Input applied_config_input();

// nullopt when no config has been applied.
Result<std::optional<config::MachineConfig>> applied_config(ControllerReader& ctx);

}  // namespace cosi::controllers
