// EventBuffer: a FIFO within its bound; past it, one transition per resource from what the
// watcher last saw (S0) to what is there now (S1). One test per row of the table in
// event_buffer.h, plus order, bookmarks and bounded memory.
#include "runtime/state/event_buffer.h"

#include <catch2/catch.hpp>

#include <map>

#include "runtime/state/watch.h"

#include "test/support/test_resources.h"

namespace cosi::testing {
namespace {

class Stream {
 public:
  // A change as the store would publish it, numbered in order.
  Event created(const std::string& id, const std::string& value) {
    auto r = snapshot(id, value);
    current_[id] = r;
    return Event{EventType::kCreated, r, nullptr, next(), nullptr};
  }
  Event updated(const std::string& id, const std::string& value) {
    auto old = current_[id];
    auto r = snapshot(id, value);
    current_[id] = r;
    return Event{EventType::kUpdated, r, old, next(), nullptr};
  }
  Event destroyed(const std::string& id) {
    auto last = current_[id];
    current_.erase(id);
    return Event{EventType::kDestroyed, last, nullptr, next(), nullptr};
  }
  std::uint64_t position() const { return position_; }

 private:
  static ResourcePtr snapshot(const std::string& id, const std::string& value) {
    return test_resource(id, value);
  }
  Bookmark next() { return Bookmark(7, ++position_); }

  std::map<std::string, ResourcePtr> current_;
  std::uint64_t position_ = 0;
};

std::string render(const std::vector<Event>& events) {
  std::string out;
  for (const auto& e : events) {
    if (!out.empty()) out += " ";
    out += std::string(to_string(e.type)) + ":" + e.resource->metadata().id() + "=" +
           test_spec(e.resource).value;
    if (e.old) out += "(was " + test_spec(e.old).value + ")";
  }
  return out;
}

std::vector<Event> drain(EventBuffer& buffer) {
  std::vector<Event> out;
  buffer.pop(out, Watch::kAll);
  return out;
}

// A buffer of bound 1 that has already overflowed: from here on it coalesces.
EventBuffer overflowed(Stream& s, std::vector<Event> warmup = {}) {
  EventBuffer b(1);
  for (auto& e : warmup) b.push(std::move(e));
  b.push(s.created("filler-1", "f"));
  b.push(s.created("filler-2", "f"));
  REQUIRE(b.coalescing());
  return b;
}

TEST_CASE("within its bound the buffer is a FIFO", "[event-buffer]") {
  Stream s;
  EventBuffer b(4);
  b.push(s.created("a", "1"));
  b.push(s.updated("a", "2"));
  b.push(s.updated("a", "3"));
  CHECK_FALSE(b.coalescing());
  CHECK(render(drain(b)) == "created:a=1 updated:a=2(was 1) updated:a=3(was 2)");
  CHECK(b.empty());
}

TEST_CASE("row 1: absent then present is Created(S1)", "[event-buffer]") {
  Stream s;
  auto b = overflowed(s);
  b.push(s.created("a", "1"));
  b.push(s.updated("a", "2"));
  b.push(s.updated("a", "3"));
  CHECK(render(drain(b)) == "created:filler-1=f created:filler-2=f created:a=3");
}

TEST_CASE("row 2: present then present is Updated(S0 -> S1)", "[event-buffer]") {
  Stream s;
  EventBuffer b(1);
  b.push(s.created("a", "1"));
  CHECK(render(drain(b)) == "created:a=1");  // the watcher has seen a=1
  b.push(s.updated("a", "2"));
  b.push(s.updated("a", "3"));
  b.push(s.updated("a", "4"));
  REQUIRE(b.coalescing());
  CHECK(render(drain(b)) == "updated:a=4(was 1)");
}

TEST_CASE("row 3: destroyed and re-created is Destroyed(S0) then Created(S1)", "[event-buffer]") {
  Stream s;
  EventBuffer b(1);
  b.push(s.created("a", "1"));
  drain(b);
  b.push(s.updated("a", "2"));
  b.push(s.destroyed("a"));
  b.push(s.created("a", "new"));
  REQUIRE(b.coalescing());
  auto events = drain(b);
  CHECK(render(events) == "destroyed:a=1 created:a=new");
  // Resuming from the Destroyed yields the re-creation; from the Created, nothing of a.
  CHECK(events[0].bookmark->position() == 3);
  CHECK(events[1].bookmark->position() == 4);
}

TEST_CASE("row 4: present then absent is Destroyed(last value)", "[event-buffer]") {
  Stream s;
  EventBuffer b(1);
  b.push(s.created("a", "1"));
  drain(b);
  b.push(s.updated("a", "2"));
  b.push(s.updated("a", "last"));
  b.push(s.destroyed("a"));
  REQUIRE(b.coalescing());
  CHECK(render(drain(b)) == "destroyed:a=last");
}

TEST_CASE("row 5: created and destroyed meanwhile is nothing", "[event-buffer]") {
  Stream s;
  auto b = overflowed(s);
  b.push(s.created("a", "1"));
  b.push(s.updated("a", "2"));
  b.push(s.destroyed("a"));
  CHECK(render(drain(b)) == "created:filler-1=f created:filler-2=f");
}

TEST_CASE("coalesced resources come in the order of their newest event", "[event-buffer]") {
  Stream s;
  auto b = overflowed(s);
  b.push(s.created("a", "1"));
  b.push(s.created("b", "1"));
  b.push(s.updated("filler-1", "g"));
  b.push(s.updated("a", "2"));
  CHECK(render(drain(b)) == "created:filler-2=f created:b=1 created:filler-1=g created:a=2");
}

TEST_CASE("a coalesced event carries the newest bookmark it replaces", "[event-buffer]") {
  Stream s;
  auto b = overflowed(s);
  b.push(s.created("a", "1"));
  b.push(s.updated("a", "2"));
  const auto newest = s.position();
  auto events = drain(b);
  REQUIRE(events.size() == 3);
  CHECK(events[2].bookmark->position() == newest);
}

TEST_CASE("after catching up the buffer is a FIFO again", "[event-buffer]") {
  Stream s;
  auto b = overflowed(s);
  drain(b);
  CHECK_FALSE(b.coalescing());
  b.push(s.updated("filler-1", "x"));
  CHECK(render(drain(b)) == "updated:filler-1=x(was f)");
}

TEST_CASE("memory is bounded by the resources, not the writes", "[event-buffer]") {
  Stream s;
  EventBuffer b(8);
  for (int i = 0; i < 10; ++i) b.push(s.created("r" + std::to_string(i), "0"));
  for (int round = 1; round <= 10000; ++round) {
    b.push(s.updated("r" + std::to_string(round % 10), std::to_string(round)));
  }
  CHECK(b.coalesced_events() == 10000);
  auto events = drain(b);
  CHECK(events.size() == 10);  // one per resource, whatever the number of writes
}

TEST_CASE("a pop smaller than a re-creation pair keeps the second half", "[event-buffer]") {
  Stream s;
  EventBuffer b(1);
  b.push(s.created("a", "1"));
  drain(b);
  b.push(s.destroyed("a"));
  b.push(s.created("a", "2"));
  std::vector<Event> out;
  CHECK(b.pop(out, 1) == 1);
  CHECK(render(out) == "destroyed:a=1");
  out.clear();
  CHECK(b.pop(out, 1) == 1);
  CHECK(render(out) == "created:a=2");
  CHECK(b.empty());
}

TEST_CASE("a consumer taking a few at a time, writes in between, gets every event once and in order",
          "[event-buffer]") {
  Stream s;
  EventBuffer b(1000);
  b.push(s.created("a", "0"));
  std::vector<Event> out;
  std::uint64_t expected = 1;
  for (int round = 1; round <= 400; ++round) {
    b.push(s.updated("a", std::to_string(round)));
    b.push(s.updated("a", std::to_string(round) + "b"));
    out.clear();
    b.pop(out, 3);  // slower than the writer: the buffer's unread part grows, then is caught up
    for (const auto& e : out) CHECK(e.bookmark->position() == expected++);
  }
  while (!b.empty()) {
    out.clear();
    b.pop(out, 5);
    for (const auto& e : out) CHECK(e.bookmark->position() == expected++);
  }
  CHECK(expected == s.position() + 1);
  CHECK_FALSE(b.coalescing());
}

TEST_CASE("a pop appends to what the caller's vector already holds", "[event-buffer]") {
  Stream s;
  EventBuffer b(8);
  b.push(s.created("a", "1"));
  b.push(s.created("b", "1"));
  std::vector<Event> out;
  out.push_back(s.created("held", "x"));
  CHECK(b.pop(out, Watch::kAll) == 2);
  CHECK(render(out) == "created:held=x created:a=1 created:b=1");
  out.clear();
  b.push(s.updated("a", "2"));
  CHECK(b.pop(out, Watch::kAll) == 1);  // the buffer is usable after handing its storage over
  CHECK(render(out) == "updated:a=2(was 1)");
}

}  // namespace
}  // namespace cosi::testing
