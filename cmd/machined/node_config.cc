#include "cmd/machined/node_config.h"

#include <filesystem>

#include "cmd/common/files.h"
#include "resources/config/config_diff.h"
#include "resources/config/config_resources.h"
#include "resources/config/machine_config.h"
#include "runtime/state/state_ops.h"

namespace cosi::machined {

namespace {

using resources::MachineConfigSpec;

std::string_view mode_name(api::ApplyMode mode) {
  switch (mode) {
    case api::ApplyMode::kReboot: return "reboot";
    case api::ApplyMode::kAuto: return "auto";
    case api::ApplyMode::kNoReboot: return "no-reboot";
    case api::ApplyMode::kStaged: return "staged";
    case api::ApplyMode::kTry: return "try";
  }
  return "?";
}

}  // namespace

NodeConfig::NodeConfig(State& state, std::string state_dir, Logger log)
    : state_(state),
      config_path_(state_dir + "/config.yaml"),
      staged_path_(state_dir + "/config.staged.yaml"),
      log_(std::move(log)) {}

Status NodeConfig::load() {
  std::error_code ec;
  if (std::filesystem::exists(staged_path_, ec)) {
    auto staged = cmd::read_file(staged_path_);
    if (!staged.ok()) return staged.error();
    if (auto s = cmd::write_file_atomically(config_path_, *staged, 0600); !s.ok()) return s;
    std::filesystem::remove(staged_path_, ec);
    log_.info("promoted the staged machine config", {{"file", config_path_}});
  }
  auto text = cmd::read_file(config_path_);
  if (!text.ok()) {
    if (text.error().is(ErrorKind::kNotFound)) return {};  // maintenance mode
    return text.error();
  }
  auto loaded = config::parse_machine_config(*text);
  if (!loaded.ok()) {
    return Error(ErrorKind::kInvalidArgument, config_path_ + ": " + loaded.error().message() +
                                                  " (fix or remove the file to start in maintenance mode)");
  }
  std::lock_guard lock(mu_);
  if (auto s = publish(*text); !s.ok()) return s;
  current_ = *text;
  return {};
}

bool NodeConfig::configured() const {
  std::lock_guard lock(mu_);
  return !current_.empty();
}

Status NodeConfig::publish(const std::string& document) {
  MachineConfigSpec spec;
  spec.set_document(document);
  auto r = modify(state_,
                  make_resource(Metadata(resources::kConfigNamespace, resources::kMachineConfigType,
                                         std::string(resources::kMachineConfigId)),
                                spec),
                  [&](Resource& r) {
                    typed<MachineConfigSpec>(r).set_document(document);
                    return Status();
                  },
                  {});
  if (!r.ok()) return r.error();
  return {};
}

Result<api::ApplyOutcome> NodeConfig::apply(const api::ApplyRequest& request) {
  auto loaded = config::parse_machine_config(request.document);
  if (!loaded.ok()) return Error(ErrorKind::kInvalidArgument, "the config is not valid: " + loaded.error().message());
  if (request.mode == api::ApplyMode::kTry) {
    return Error(ErrorKind::kUnimplemented, "mode try is not supported: use auto, no-reboot or staged (with --dry-run to preview)");
  }
  api::ApplyOutcome outcome;
  outcome.warnings = std::move(loaded->warnings);
  outcome.mode = request.mode == api::ApplyMode::kStaged ? api::ApplyMode::kStaged : api::ApplyMode::kNoReboot;

  std::lock_guard lock(mu_);
  if (request.dry_run) {
    auto changes = config::describe_changes(current_, request.document);
    std::string details = "Dry run summary:\nApplied configuration with mode " + std::string(mode_name(request.mode)) +
                          (request.mode == api::ApplyMode::kStaged ? " (staged: applied at the next start)"
                                                                   : " (applied at once, no reboot)") +
                          "\nConfig diff:\n";
    if (changes.empty()) details += "  (no changes)\n";
    for (const auto& c : changes) details += "  " + c + "\n";
    outcome.details = details;
    outcome.mode = request.mode;
    return outcome;
  }
  if (request.mode == api::ApplyMode::kStaged) {
    if (auto s = cmd::write_file_atomically(staged_path_, request.document, 0600); !s.ok()) return s.error();
    log_.info("staged a machine config", {{"file", staged_path_}});
    outcome.details = "Staged configuration to be applied at the next start of machined";
    return outcome;
  }
  if (auto s = cmd::write_file_atomically(config_path_, request.document, 0600); !s.ok()) return s.error();
  if (auto s = publish(request.document); !s.ok()) {
    // The file is written but the store refused: put the old file back so both agree.
    if (current_.empty()) {
      std::error_code ec;
      std::filesystem::remove(config_path_, ec);
    } else {
      (void)cmd::write_file_atomically(config_path_, current_, 0600);
    }
    return s.error();
  }
  const bool first = current_.empty();
  current_ = request.document;
  log_.info(first ? "machine config applied: leaving maintenance mode" : "machine config applied",
            {{"type", std::string(config::to_string(loaded->config.type))}, {"mode", std::string(mode_name(request.mode))}});
  outcome.details = request.mode == api::ApplyMode::kReboot
                        ? "Applied configuration without a reboot (machined applies configs live)"
                        : "Applied configuration without a reboot";
  return outcome;
}

}  // namespace cosi::machined
