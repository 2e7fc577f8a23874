// The README's store example, run as a test.
#include <catch2/catch.hpp>

#include "runtime/resource/typed_resource.h"
#include "runtime/state/memory_state.h"
#include "runtime/state/state_ops.h"

struct MemberSpec {
  std::string hostname;
  friend bool operator==(const MemberSpec&, const MemberSpec&) = default;
};

TEST_CASE("the store in one screen") {
  const cosi::Kind members{"cluster", "Members.cluster.talos.dev"};
  cosi::MemoryState state;
  auto watch = *state.watch_kind(members, {.bootstrap_contents = true});

  auto created = state.create(
      cosi::make_resource(cosi::Metadata(members.ns, members.type, "cp-1"), MemberSpec{"cp-1"}),
      {.owner = "MemberController"});
  CHECK((*created)->metadata().version() == cosi::Version(1));

  auto renamed = cosi::update_with_conflicts(
      state, members.at("cp-1"),
      [](cosi::Resource& r) {
        cosi::typed<MemberSpec>(r).hostname = "cp-1.lan";
        return cosi::Status();
      },
      {.owner = "MemberController"});
  CHECK((*renamed)->metadata().version() == cosi::Version(2));

  std::vector<cosi::Event> events;
  watch->poll(events);  // Bootstrapped (the kind was empty), Created v1, Updated v1 -> v2
  REQUIRE(events.size() == 3);
  CHECK(events[2].type == cosi::EventType::kUpdated);
  CHECK(events[2].old->metadata().version() == cosi::Version(1));
}
