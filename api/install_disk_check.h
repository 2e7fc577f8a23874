// InstallDiskCheck: the install disk of a config applied to the node must be one of its Disks,
// as Talos checks it — otherwise INVALID_ARGUMENT with Talos's words, and nothing changes:
//
//   configuration validation failed: 1 error occurred:
//   	* specified install disk does not exist: "/dev/sda"
//
// It sits in front of the ConfigApplier that keeps the config. Nodes of a local cluster share
// one host and install nothing: machined --no-install turns the check off (and says so once).
//
//   api::InstallDiskCheck checked(node_config, state, {.enabled = !no_install});
//   api::MachineServer machine(..., &checked, ...);
#pragma once

#include "api/machine_server.h"
#include "runtime/state/state.h"

namespace cosi::api {

struct InstallDiskCheckOptions {
  bool enabled = true;
};

class InstallDiskCheck final : public ConfigApplier {
 public:
  InstallDiskCheck(ConfigApplier& inner, State& state, InstallDiskCheckOptions options = {})
      : inner_(inner), state_(state), options_(options) {}

  Result<ApplyOutcome> apply(const ApplyRequest& request) override;

 private:
  ConfigApplier& inner_;
  State& state_;
  InstallDiskCheckOptions options_;
};

// "1 error occurred:\n\t* a\n\n", as Go's multierror lists errors (n errors: "n errors occurred:").
std::string multierror_text(const std::vector<std::string>& errors);

}  // namespace cosi::api
