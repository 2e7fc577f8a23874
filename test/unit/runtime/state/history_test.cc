#include "runtime/state/history.h"

#include <catch2/catch.hpp>

#include "test/support/test_resources.h"

namespace cosi::testing {
namespace {

Event numbered(std::uint64_t n) {
  return Event{EventType::kCreated, test_resource(std::to_string(n)), nullptr, Bookmark(1, n), nullptr};
}

std::string positions(const std::vector<Event>& events) {
  std::string out;
  for (const auto& e : events) out += e.resource->metadata().id() + " ";
  return out;
}

TEST_CASE("history keeps the newest events and knows what it covers", "[history]") {
  History h(3);
  CHECK(h.covers(0));
  CHECK(h.after(0).empty());
  for (std::uint64_t i = 1; i <= 5; ++i) h.push(numbered(i));
  CHECK(h.last_position() == 5);
  CHECK(h.first_position() == 3);
  CHECK(h.covers(2));
  CHECK_FALSE(h.covers(1));
  CHECK_FALSE(h.covers(6));
  CHECK(positions(h.after(2)) == "3 4 5 ");
  CHECK(positions(h.after(4)) == "5 ");
  CHECK(positions(h.tail(2)) == "4 5 ");
  CHECK(positions(h.tail(10)) == "3 4 5 ");
}

TEST_CASE("a history of capacity zero keeps only the count", "[history]") {
  History h(0);
  h.push(numbered(1));
  CHECK(h.last_position() == 1);
  CHECK(h.covers(1));
  CHECK_FALSE(h.covers(0));
  CHECK(h.tail(5).empty());
}

}  // namespace
}  // namespace cosi::testing
