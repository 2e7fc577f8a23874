// Resources for tests: a small spec type and helpers to make and read resources of it.
//
//   auto r = test_resource("a", "alpha", {{"role", "cp"}});
//   state.create(std::move(r), {.owner = "test"});
//   test_spec(*state.get(kTestKind.at("a"))).value == "alpha"
#pragma once

#include <string>

#include "runtime/base/result.h"
#include "runtime/resource/typed_resource.h"
#include "test/support/wire.h"

namespace cosi::testing {

struct TestSpec {
  std::string value;
  int number = 0;
  friend bool operator==(const TestSpec&, const TestSpec&) = default;
};

}  // namespace cosi::testing

// TestSpec crosses the wire as `{ string value = 1; int32 number = 2; }`, so the conformance
// suite runs over gRPC too.
template <>
struct cosi::SpecTraits<cosi::testing::TestSpec> {
  static bool equal(const testing::TestSpec& a, const testing::TestSpec& b) { return a == b; }
  static std::string encode(const testing::TestSpec& s) {
    std::string out;
    testing::wire::put_string(out, 1, s.value);
    testing::wire::put_varint(out, 2, static_cast<std::uint64_t>(static_cast<std::int64_t>(s.number)));
    return out;
  }
  static Result<testing::TestSpec> decode(std::string_view bytes) {
    testing::TestSpec s;
    testing::wire::Reader r(bytes);
    while (auto f = r.next()) {
      if (f->number == 1) s.value = std::string(f->bytes);
      if (f->number == 2) s.number = static_cast<int>(static_cast<std::int64_t>(f->varint));
    }
    if (r.error()) return Error(ErrorKind::kInvalidArgument, "not a TestSpec");
    return s;
  }
  static std::string yaml(const testing::TestSpec& s) {
    return "value: " + s.value + "\nnumber: " + std::to_string(s.number) + "\n";
  }
};

namespace cosi::testing {

inline const Kind kTestKind{"default", "Tests.test.cosi.dev"};
inline const Kind kOtherKind{"other", "Tests.test.cosi.dev"};

inline MutableResourcePtr test_resource(const std::string& id, std::string value = "",
                                        Labels labels = {}, int number = 0) {
  Metadata md(kTestKind.ns, kTestKind.type, id);
  md.mutable_labels() = std::move(labels);
  return make_resource(std::move(md), TestSpec{std::move(value), number});
}

inline const TestSpec& test_spec(const ResourcePtr& r) {
  return static_cast<const TypedResource<TestSpec>&>(*r).spec();
}

inline TestSpec& test_spec(Resource& r) {
  return static_cast<TypedResource<TestSpec>&>(r).mutable_spec();
}

}  // namespace cosi::testing
