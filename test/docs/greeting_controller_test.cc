// The README's example test: no threads, no sleeps, no timeouts.
#include <catch2/catch.hpp>

#include "runtime/testing/harness.h"
#include "test/docs/greeting_controller.h"

using cosi::testing::Harness;

auto name(const std::string& id, const std::string& value) {
  return cosi::make_resource(cosi::Metadata(kNames.ns, kNames.type, id), NameSpec{value});
}

bool says(const cosi::ResourcePtr& r, const std::string& text) {
  return cosi::resource_cast<GreetingSpec>(r)->spec().text == text;
}

TEST_CASE("GreetingController greets every name, and stops when it goes") {
  Harness h;
  REQUIRE(h.add(std::make_unique<GreetingController>()).ok());
  REQUIRE(h.start().ok());

  REQUIRE(h.put(name("ada", "Ada")).ok());  // runs everything that follows from it
  CHECK(h.expect(kGreetings.at("ada"), [](auto& r) { return says(r, "Hello, Ada!"); }).ok());

  REQUIRE(h.remove(kNames.at("ada")).ok());
  CHECK(h.expect_absent(kGreetings.at("ada")).ok());
}

TEST_CASE("GreetingController retries when the store fails, with backoff") {
  Harness h;
  REQUIRE(h.add(std::make_unique<GreetingController>()).ok());
  REQUIRE(h.start().ok());

  h.fail_next_writes(kGreetings, 1, cosi::Error(cosi::ErrorKind::kUnavailable, "injected"));
  REQUIRE(h.put(name("bob", "Bob")).ok());
  CHECK(h.expect_absent(kGreetings.at("bob")).ok());

  h.advance(std::chrono::milliseconds(500));  // the first retry is due after 0.5 s
  CHECK(h.expect(kGreetings.at("bob"), [](auto& r) { return says(r, "Hello, Bob!"); }).ok());
}
