// RawResource: a resource whose spec type this process does not know — its spec is kept as
// the bytes and YAML it arrived with. The API and plugin hosts decode resources of unknown
// types into it; two raw specs are equal when their bytes are.
//
//   auto r = make_resource(Metadata(ns, type, id), RawSpec{proto_bytes, yaml_text});
#pragma once

#include <string>
#include <string_view>

#include "runtime/base/result.h"
#include "runtime/resource/typed_resource.h"

namespace cosi {

struct RawSpec {
  std::string proto;
  std::string yaml;
  friend bool operator==(const RawSpec&, const RawSpec&) = default;
};

template <>
struct SpecTraits<RawSpec> {
  static bool equal(const RawSpec& a, const RawSpec& b) { return a.proto == b.proto; }
  static std::string encode(const RawSpec& s) { return s.proto; }
  static std::string yaml(const RawSpec& s) { return s.yaml; }
};

using RawResource = TypedResource<RawSpec>;

}  // namespace cosi
