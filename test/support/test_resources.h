// Resources for tests: a small spec type and helpers to make and read resources of it.
//
//   auto r = test_resource("a", "alpha", {{"role", "cp"}});
//   state.create(std::move(r), {.owner = "test"});
//   test_spec(*state.get(kTestKind.at("a"))).value == "alpha"
#pragma once

#include <string>

#include "runtime/resource/typed_resource.h"

namespace cosi::testing {

struct TestSpec {
  std::string value;
  int number = 0;
  friend bool operator==(const TestSpec&, const TestSpec&) = default;
};

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
