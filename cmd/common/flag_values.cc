#include "cmd/common/flag_values.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace cosi::cmd {

namespace {

Error bad(std::string_view flag, std::string_view text, std::string_view what) {
  return Error(ErrorKind::kInvalidArgument,
               std::string(flag) + " \"" + std::string(text) + "\" is not " + std::string(what));
}

}  // namespace

Result<std::chrono::milliseconds> parse_duration(std::string_view flag, std::string_view text) {
  const char* what = "a duration (like 500ms, 5s, 1m30s, 30m, 2h)";
  if (text.empty()) return bad(flag, text, what);
  double total_ms = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
    if (j == i) return bad(flag, text, what);
    const std::string number(text.substr(i, j - i));
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size()) return bad(flag, text, what);
    size_t k = j;
    while (k < text.size() && std::isalpha(static_cast<unsigned char>(text[k]))) ++k;
    const std::string_view unit = text.substr(j, k - j);
    double scale = 0;
    if (unit == "ms") scale = 1;
    else if (unit == "s") scale = 1000;
    else if (unit == "m") scale = 60000;
    else if (unit == "h") scale = 3600000;
    else return bad(flag, text, what);
    total_ms += value * scale;
    i = k;
  }
  if (!std::isfinite(total_ms) || total_ms > 1e12) return bad(flag, text, what);
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(total_ms)));
}

Result<double> parse_number(std::string_view flag, std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(value) || value < 0) {
    return bad(flag, text, "a non-negative number");
  }
  return value;
}

}  // namespace cosi::cmd

namespace cosi::cmd {

Result<std::size_t> parse_bytes(std::string_view flag, std::string_view text) {
  const char* what = "a size in bytes (like 4096, 512KiB, 1MiB; at least 1KiB)";
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 12) return bad(flag, text, what);
  const std::string_view unit = text.substr(digits);
  uint64_t scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "KiB") scale = 1ULL << 10;
  else if (unit == "MiB") scale = 1ULL << 20;
  else if (unit == "GiB") scale = 1ULL << 30;
  else return bad(flag, text, what);
  const uint64_t value = std::stoull(std::string(text.substr(0, digits))) * scale;
  if (value < 1024 || value > (1ULL << 34)) return bad(flag, text, what);
  return static_cast<std::size_t>(value);
}

}  // namespace cosi::cmd
