// NumberSpec: a spec with one int64, encoded as the protobuf message `{ int64 value = 1; }`
// by hand — header-only, so a test host and a test plugin can share it without two copies of
// generated protobuf code in one process.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/base/result.h"
#include "runtime/resource/typed_resource.h"

namespace cosi::testing {

struct NumberSpec {
  std::int64_t value = 0;
  friend bool operator==(const NumberSpec&, const NumberSpec&) = default;
};

}  // namespace cosi::testing

template <>
struct cosi::SpecTraits<cosi::testing::NumberSpec> {
  static bool equal(const testing::NumberSpec& a, const testing::NumberSpec& b) { return a == b; }
  static std::string encode(const testing::NumberSpec& s) {
    if (s.value == 0) return {};
    std::string out(1, '\x08');  // field 1, varint
    auto v = static_cast<std::uint64_t>(s.value);
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
    return out;
  }
  static Result<testing::NumberSpec> decode(std::string_view bytes) {
    testing::NumberSpec s;
    if (bytes.empty()) return s;
    if (bytes[0] != '\x08') return Error(ErrorKind::kInvalidArgument, "not a NumberSpec");
    std::uint64_t v = 0;
    int shift = 0;
    for (std::size_t i = 1; i < bytes.size(); ++i, shift += 7) {
      auto b = static_cast<unsigned char>(bytes[i]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        s.value = static_cast<std::int64_t>(v);
        return s;
      }
    }
    return Error(ErrorKind::kInvalidArgument, "truncated NumberSpec");
  }
  static std::string yaml(const testing::NumberSpec& s) { return "value: " + std::to_string(s.value) + "\n"; }
};
