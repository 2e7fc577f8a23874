#include "runtime/resource/version.h"

#include <charconv>

namespace cosi {

std::string Version::to_string() const {
  return defined() ? std::to_string(value_) : std::string("undefined");
}

std::optional<Version> parse_version(std::string_view text) {
  if (text == "undefined") return Version();
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return Version(value);
}

}  // namespace cosi
