// NodeConfig: the node's machine config — validated, kept in --state-dir, and published as the
// input resource config/MachineConfigs "v1alpha1" that controllers act on.
//
//   STATE_DIR/config.yaml          the applied config (written atomically: temp, fsync, rename)
//   STATE_DIR/config.staged.yaml   a config applied with --mode staged, promoted at next start
//
// A config that does not validate changes nothing: not the file, not the resource.
#pragma once

#include <mutex>
#include <string>

#include "api/machine_server.h"
#include "runtime/base/log.h"
#include "runtime/state/state.h"

namespace cosi::machined {

class NodeConfig final : public api::ConfigApplier {
 public:
  NodeConfig(State& state, std::string state_dir, Logger log);

  // At start: promotes a staged config, loads the persisted one and publishes it. An
  // unreadable persisted config is an error naming the file (machined will not guess).
  Status load();

  Result<api::ApplyOutcome> apply(const api::ApplyRequest& request) override;

  bool configured() const;

 private:
  Status publish(const std::string& document);

  State& state_;
  const std::string config_path_;
  const std::string staged_path_;
  Logger log_;
  mutable std::mutex mu_;
  std::string current_;  // the applied document; empty in maintenance mode
};

}  // namespace cosi::machined
