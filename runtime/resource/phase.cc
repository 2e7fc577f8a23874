#include "runtime/resource/phase.h"

namespace cosi {

std::string_view to_string(Phase phase) {
  return phase == Phase::kRunning ? "running" : "tearingDown";
}

std::optional<Phase> parse_phase(std::string_view text) {
  if (text == "running") return Phase::kRunning;
  if (text == "tearingDown") return Phase::kTearingDown;
  return std::nullopt;
}

}  // namespace cosi
