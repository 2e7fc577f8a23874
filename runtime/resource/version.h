// Version: how many times a stored resource has changed. Create stores 1; every update that
// changes something stores the next one. 0 is "undefined": a resource that was never stored.
//
//   Version v;             v.to_string() == "undefined"
//   Version(3).next()      == Version(4)
//   parse_version("7")     -> Version(7);  parse_version("undefined") -> Version()
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cosi {

class Version {
 public:
  constexpr Version() = default;
  constexpr explicit Version(std::uint64_t value) : value_(value) {}

  constexpr std::uint64_t value() const { return value_; }
  constexpr bool defined() const { return value_ != 0; }
  constexpr Version next() const { return Version(value_ + 1); }

  std::string to_string() const;

  friend constexpr auto operator<=>(Version, Version) = default;

 private:
  std::uint64_t value_ = 0;
};

// Decimal or "undefined"; nullopt for anything else.
std::optional<Version> parse_version(std::string_view text);

}  // namespace cosi
