#include "runtime/resource/typed_resource.h"

#include <catch2/catch.hpp>

#include "runtime/resource/tombstone.h"

namespace cosi {
namespace {

struct Greeting {
  std::string text;
  friend bool operator==(const Greeting&, const Greeting&) = default;
};

struct Other {
  std::string text;
  friend bool operator==(const Other&, const Other&) = default;
};

TEST_CASE("a clone is an independent mutable copy", "[resource]") {
  ResourcePtr original = make_resource(Metadata("ns", "Greetings.test.dev", "hi"), Greeting{"hello"});
  MutableResourcePtr copy = original->clone();
  static_cast<TypedResource<Greeting>&>(*copy).mutable_spec().text = "bye";
  copy->mutable_metadata().mutable_labels().set("k", "v");
  CHECK(resource_cast<Greeting>(original)->spec().text == "hello");
  CHECK(original->metadata().labels().empty());
  CHECK_FALSE(copy->same_content(*original));
}

TEST_CASE("specs compare by value and by type", "[resource]") {
  auto a = make_resource(Metadata("ns", "Greetings.test.dev", "hi"), Greeting{"hello"});
  auto b = make_resource(Metadata("ns", "Greetings.test.dev", "hi"), Greeting{"hello"});
  auto c = make_resource(Metadata("ns", "Greetings.test.dev", "hi"), Other{"hello"});
  CHECK(a->spec_equals(*b));
  CHECK(a->same_content(*b));
  CHECK_FALSE(a->spec_equals(*c));
  CHECK(resource_cast<Other>(ResourcePtr(a)) == nullptr);
}

TEST_CASE("tombstones are recognisable", "[resource]") {
  auto t = make_tombstone(Kind{"ns", "Greetings.test.dev"}.at("gone"));
  CHECK(is_tombstone(*t));
  CHECK(t->metadata().id() == "gone");
  CHECK_FALSE(t->metadata().version().defined());
  CHECK_FALSE(is_tombstone(*make_resource(Metadata("ns", "Greetings.test.dev", "x"), Greeting{})));
}

}  // namespace
}  // namespace cosi
