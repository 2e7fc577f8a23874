// NumberSpec: a spec with one int64, encoded as the protobuf message `{ int64 value = 1; }`
// by hand (test/support/wire.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/base/result.h"
#include "runtime/resource/typed_resource.h"
#include "test/support/wire.h"

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
    std::string out;
    testing::wire::put_varint(out, 1, static_cast<std::uint64_t>(s.value));
    return out;
  }
  static Result<testing::NumberSpec> decode(std::string_view bytes) {
    testing::NumberSpec s;
    testing::wire::Reader r(bytes);
    while (auto f = r.next()) {
      if (f->number == 1) s.value = static_cast<std::int64_t>(f->varint);
    }
    if (r.error()) return Error(ErrorKind::kInvalidArgument, "not a NumberSpec");
    return s;
  }
  static std::string yaml(const testing::NumberSpec& s) { return "value: " + std::to_string(s.value) + "\n"; }
};
