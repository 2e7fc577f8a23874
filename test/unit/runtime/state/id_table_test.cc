// IdTable: find, insert, erase and iteration agree with a std::map holding the same resources,
// through growth and through deletions that shift runs back across the end of the array.
#include "runtime/state/id_table.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>

#include "test/support/test_resources.h"

namespace cosi::testing {
namespace {

std::set<std::string> ids_of(const IdTable& table) {
  std::set<std::string> out;
  table.for_each([&](const ResourcePtr& r) { CHECK(out.insert(r->metadata().id()).second); });
  return out;
}

TEST_CASE("an empty table finds nothing and erases nothing", "[id-table]") {
  IdTable table;
  CHECK(table.size() == 0);
  CHECK(table.find("a") == nullptr);
  CHECK(table.erase("a") == nullptr);
  CHECK(ids_of(table).empty());
}

TEST_CASE("insert, find, replace in place and erase", "[id-table]") {
  IdTable table;
  auto a = test_resource("a", "1");
  CHECK(table.insert(a));
  CHECK_FALSE(table.insert(test_resource("a", "other")));  // the id is taken: nothing changes
  REQUIRE(table.find("a") != nullptr);
  CHECK(*table.find("a") == a);

  auto a2 = test_resource("a", "2");
  *table.find("a") = a2;
  CHECK(test_spec(*table.find("a")).value == "2");

  CHECK(table.erase("a") == a2);
  CHECK(table.find("a") == nullptr);
  CHECK(table.size() == 0);
}

TEST_CASE("the table grows by half past 7/8 full and keeps everything", "[id-table]") {
  IdTable table;
  std::set<std::string> want;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = "r" + std::to_string(i);
    REQUIRE(table.insert(test_resource(id, "v")));
    want.insert(id);
    CHECK(table.size() * 8 <= table.capacity() * 7);
  }
  CHECK(table.size() == 1000);
  CHECK(ids_of(table) == want);
  for (const auto& id : want) {
    REQUIRE(table.find(id) != nullptr);
    CHECK((*table.find(id))->metadata().id() == id);
  }
}

TEST_CASE("random inserts and erases agree with a map", "[id-table]") {
  // Few distinct ids in a small table: runs are long and wrap around the end, so erasing
  // exercises every case of shifting back.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> pick(0, 59);
  std::bernoulli_distribution erase(0.45);
  IdTable table;
  std::map<std::string, ResourcePtr> model;
  for (int step = 0; step < 20000; ++step) {
    const std::string id = "id-" + std::to_string(pick(rng));
    if (erase(rng)) {
      auto it = model.find(id);
      ResourcePtr removed = table.erase(id);
      if (it == model.end()) {
        CHECK(removed == nullptr);
      } else {
        CHECK(removed == it->second);
        model.erase(it);
      }
    } else {
      auto r = test_resource(id, std::to_string(step));
      const bool inserted = table.insert(r);
      CHECK(inserted == !model.contains(id));
      if (inserted) model.emplace(id, r);
    }
    REQUIRE(table.size() == model.size());
    if (step % 97 == 0) {
      for (int k = 0; k < 60; ++k) {
        const std::string probe = "id-" + std::to_string(k);
        const ResourcePtr* found = table.find(probe);
        auto it = model.find(probe);
        REQUIRE((found == nullptr) == (it == model.end()));
        if (found != nullptr) CHECK(*found == it->second);
      }
    }
  }
  std::set<std::string> want;
  for (const auto& [id, r] : model) want.insert(id);
  CHECK(ids_of(table) == want);
}

}  // namespace
}  // namespace cosi::testing
