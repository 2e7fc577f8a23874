// LogRing: whole lines, bounded bytes (oldest lines out first), tails, cursors that skip what
// was dropped, and a reader that waits for the next line or its deadline.
#include "controllers/common/log_ring.h"

#include <catch2/catch.hpp>

#include <thread>

#include "controllers/common/service_logs.h"

namespace cosi::controllers {
namespace {

using Strings = std::vector<std::string>;
using namespace std::chrono_literals;

TEST_CASE("LogRing keeps whole lines, the newest within its bytes") {
  LogRing ring(32);
  ring.write("one\ntw");
  CHECK(ring.tail(-1).lines == Strings{"one"});
  ring.write("o\nthree\n");
  CHECK(ring.tail(-1).lines == Strings{"one", "two", "three"});
  CHECK(ring.tail(2).lines == Strings{"two", "three"});
  CHECK(ring.tail(0).lines.empty());
  CHECK(ring.tail(-1).next == 3);

  ring.write("a line long enough to push others out\n");
  auto all = ring.tail(-1);
  CHECK(ring.bytes() <= 32);
  // Cut into pieces of 31 bytes and a newline at most; the first piece then no longer fits.
  CHECK(all.lines == Strings{"rs out"});
  CHECK(all.next == 5);

  ring.write("no newline yet");
  ring.flush();
  CHECK(ring.tail(1).lines == Strings{"no newline yet"});
}

TEST_CASE("LogRing cursors: what came after, waiting for it, dropped lines skipped") {
  LogRing ring(1024);
  ring.write("a\nb\n");
  auto start = ring.tail(1);
  CHECK(start.lines == Strings{"b"});
  // Nothing new: the deadline ends the wait.
  auto none = ring.read_from(start.next, std::chrono::steady_clock::now() + 10ms);
  CHECK(none.lines.empty());
  CHECK(none.next == start.next);
  // A writer on another thread wakes the reader.
  std::thread writer([&] { ring.write("c\n"); });
  auto more = ring.read_from(start.next, std::chrono::steady_clock::now() + 10s);
  writer.join();
  CHECK(more.lines == Strings{"c"});
  CHECK(more.next == 3);

  LogRing small(8);
  small.write("1234\n5678\nabcd\n");
  auto from_start = small.read_from(0, std::chrono::steady_clock::now());
  CHECK(from_start.lines == Strings{"abcd"});  // 1234 and 5678 were dropped
  CHECK(from_start.next == 3);
}

TEST_CASE("ServiceLogs: one ring per service, made on first use") {
  ServiceLogs logs(4096);
  CHECK(logs.find("etcd") == nullptr);
  auto& etcd = logs.ring("etcd");
  CHECK(&logs.ring("etcd") == &etcd);
  CHECK(logs.find("etcd") == &etcd);
  logs.ring("machined");
  CHECK(logs.services() == Strings{"etcd", "machined"});
}

}  // namespace
}  // namespace cosi::controllers
