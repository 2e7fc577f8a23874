#include "controllers/network/addressing.h"

#include <charconv>

#include "resources/common/ip.h"

namespace cosi::controllers {

std::string address_id(std::string_view link, std::string_view ip, int prefix_length) {
  return std::string(link) + "/" + resources::ip_text(ip) + "/" + std::to_string(prefix_length);
}

std::string valid_until_text(SteadyTime t) {
  return std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

std::optional<SteadyTime> parse_valid_until(std::string_view text) {
  long long ns = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ns);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return SteadyTime(std::chrono::duration_cast<Duration>(std::chrono::nanoseconds(ns)));
}

}  // namespace cosi::controllers
