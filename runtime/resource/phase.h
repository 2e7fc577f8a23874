// Phase: the lifecycle of a stored resource. A resource is created running; Teardown moves it
// to tearingDown, which tells the controllers holding finalizers on it to let go. Updates
// expect the running phase unless the caller says otherwise.
//
//   Phase p = Phase::kTearingDown;
//   to_string(p) == "tearingDown";  parse_phase("running") -> Phase::kRunning
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cosi {

enum class Phase : std::uint8_t { kRunning, kTearingDown };

std::string_view to_string(Phase phase);

// The wire spelling ("running" | "tearingDown"); nullopt for anything else.
std::optional<Phase> parse_phase(std::string_view text);

}  // namespace cosi
