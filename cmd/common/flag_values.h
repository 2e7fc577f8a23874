// Typed flag values: durations as Go writes them ("500ms", "5s", "1m30s", "30m", "2h") and
// non-negative numbers. Errors name the flag.
//
//   auto ttl = parse_duration("--discovery-ttl", "30m");   // 1800000 ms
//   auto rate = parse_number("--rate-limit", "2.5");
#pragma once

#include <chrono>
#include <string_view>

#include "runtime/base/result.h"

namespace cosi::cmd {

Result<std::chrono::milliseconds> parse_duration(std::string_view flag, std::string_view text);
Result<double> parse_number(std::string_view flag, std::string_view text);

}  // namespace cosi::cmd
