// Typed flag values: durations as Go writes them ("500ms", "5s", "1m30s", "30m", "2h") and
// non-negative numbers. Errors name the flag.
//
//   auto ttl = parse_duration("--discovery-ttl", "30m");   // 1800000 ms
//   auto rate = parse_number("--rate-limit", "2.5");
//   auto ring = parse_bytes("--log-ring-size", "1MiB");   // 1048576
#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>

#include "runtime/base/result.h"

namespace cosi::cmd {

Result<std::chrono::milliseconds> parse_duration(std::string_view flag, std::string_view text);
Result<double> parse_number(std::string_view flag, std::string_view text);
// "4096", "512KiB", "1MiB", "1GiB": at least 1 KiB, at most 16 GiB.
Result<std::size_t> parse_bytes(std::string_view flag, std::string_view text);

}  // namespace cosi::cmd
