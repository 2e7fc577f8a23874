// Our etcd client against a real etcd (one member, plaintext, 127.29.0.1): KV, leases, watch,
// Cluster and Maintenance calls, the deadline every call keeps when the member is down, and a
// lost connection told at once.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <thread>

#include "api/etcd/grpc_etcd_client.h"
#include "test/support/solo_etcd.h"

namespace cosi::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;


TEST_CASE("the etcd client: KV, leases, watch, cluster and maintenance calls against a real etcd", "[etcd]") {
  SoloEtcd e("127.29.0.1");
  auto& c = *e.client;

  auto rev = c.put("/cosi/a", "1");
  REQUIRE(rev.ok());
  REQUIRE(c.put("/cosi/b", "2").ok());
  REQUIRE(c.put("/other", "x").ok());
  auto all = c.range("/cosi/", "/cosi0");
  REQUIRE(all.ok());
  REQUIRE(all->size() == 2);
  CHECK(((*all)[0].key == "/cosi/a" && (*all)[0].value == "1" && (*all)[0].mod_revision == *rev));
  CHECK(c.range("/cosi/a")->size() == 1);
  CHECK(*c.remove_range("/cosi/a") == 1);
  CHECK(c.range("/cosi/a")->empty());

  // A key on a lease lives while the lease is kept alive, and goes with it.
  auto lease = c.grant_lease(5s);
  REQUIRE(lease.ok());
  REQUIRE(c.put("/cosi/leased", "held", *lease).ok());
  auto ttl = c.keep_alive(*lease);
  REQUIRE(ttl.ok());
  CHECK(*ttl == 5);
  CHECK(c.range("/cosi/leased")->at(0).lease == *lease);
  REQUIRE(c.revoke_lease(*lease).ok());
  CHECK(c.range("/cosi/leased")->empty());
  CHECK(c.keep_alive(*lease).error().kind() == ErrorKind::kNotFound);

  // Watch from a revision: history first, then what happens while watching.
  auto start = c.put("/cosi/w", "first");
  REQUIRE(start.ok());
  std::thread writer([&] {
    auto other = etcd::make_grpc_etcd_client("127.29.0.1:2379", {}, 2s);
    (void)other->put("/cosi/w", "second");
    (void)other->remove_range("/cosi/w");
  });
  std::vector<controllers::EtcdWatchEvent> seen;
  auto watched = c.watch("/cosi/w", "", *start, [&](const std::vector<controllers::EtcdWatchEvent>& events) {
    seen.insert(seen.end(), events.begin(), events.end());
    return seen.size() < 3;
  }, 10s);
  writer.join();
  REQUIRE(watched.ok());
  REQUIRE(seen.size() == 3);
  CHECK((seen[0].kv.value == "first" && !seen[0].deleted));
  CHECK(seen[1].kv.value == "second");
  CHECK(seen[2].deleted);
  // Nothing happening: the watch ends at its deadline.
  auto idle = c.watch("/nothing", "", 0, [](const auto&) { return true; }, 300ms);
  INFO(idle.error().message());
  CHECK(idle.error().kind() == ErrorKind::kDeadlineExceeded);

  auto members = c.member_list();
  REQUIRE(members.ok());
  REQUIRE(members->size() == 1);
  CHECK(members->at(0).name == "solo");
  auto status = c.status();
  REQUIRE(status.ok());
  CHECK(status->version == "3.4.23");
  CHECK(status->member_id == members->at(0).id);
  CHECK(c.alarms()->empty());
  CHECK(c.defragment().ok());
  size_t bytes = 0;
  CHECK(c.snapshot([&](std::string_view chunk) { bytes += chunk.size(); return Status(); }).ok());
  CHECK(bytes > 0);

  // A member that does not answer: every call returns within its deadline.
  kill(e.process->pid(), SIGSTOP);
  auto slow = etcd::make_grpc_etcd_client("127.29.0.1:2379", {}, 300ms);
  const auto before = std::chrono::steady_clock::now();
  CHECK_FALSE(slow->status().ok());
  CHECK_FALSE(slow->member_list().ok());
  CHECK_FALSE(slow->put("/cosi/x", "y").ok());
  CHECK(std::chrono::steady_clock::now() - before < 2s);
  kill(e.process->pid(), SIGCONT);
}

TEST_CASE("the etcd client tells when its connection to a member is lost (the member's process killed)", "[etcd]") {
  SoloEtcd e("127.29.0.1");
  auto fresh = etcd::make_grpc_etcd_client("127.29.0.1:2379", {}, 2s);
  auto never = fresh->wait_for_disconnect(10ms);
  REQUIRE_FALSE(never.ok());  // nothing open yet: nothing to lose
  CHECK(never.error().kind() == ErrorKind::kFailedPrecondition);

  auto& c = *e.client;
  REQUIRE(c.status().ok());
  auto intact = c.wait_for_disconnect(100ms);
  REQUIRE(intact.ok());
  CHECK_FALSE(*intact);

  kill(e.process->pid(), SIGKILL);
  auto lost = c.wait_for_disconnect(10s);
  REQUIRE(lost.ok());
  CHECK(*lost);
}

TEST_CASE("the etcd client: a Txn on create revisions, prefix ranges sorted by creation (an election's calls)", "[etcd]") {
  SoloEtcd e("127.29.0.1");
  auto& c = *e.client;
  using controllers::EtcdCompare;
  using controllers::EtcdTxnOp;
  const EtcdCompare absent{"/vote/a", EtcdCompare::Target::kCreateRevision, EtcdCompare::Op::kEqual, 0};

  // Create unless it exists: the first Txn puts, the second reads back what is there.
  auto created = c.txn({absent}, {EtcdTxnOp::put("/vote/a", "ada")}, {EtcdTxnOp::get("/vote/a")});
  REQUIRE(created.ok());
  CHECK(created->succeeded);
  CHECK(created->got.empty());
  auto again = c.txn({absent}, {EtcdTxnOp::put("/vote/a", "other")}, {EtcdTxnOp::get("/vote/a")});
  REQUIRE(again.ok());
  CHECK_FALSE(again->succeeded);
  REQUIRE(again->got.size() == 1);
  CHECK(again->got[0].value == "ada");
  CHECK(again->got[0].create_revision == created->revision);
  CHECK(again->revision == created->revision);  // a Txn that only read wrote nothing

  REQUIRE(c.put("/vote/c", "cy").ok());
  REQUIRE(c.put("/vote/b", "bo").ok());
  REQUIRE(c.put("/vote/a", "ada2").ok());  // a rewrite keeps its create revision
  REQUIRE(c.put("/votes", "not in the prefix").ok());
  using Sort = controllers::EtcdRangeOptions::Sort;
  auto first = c.range_with("/vote/", {.range_end = controllers::prefix_end("/vote/"), .sort = Sort::kCreateAscending, .limit = 1});
  REQUIRE(first.ok());
  REQUIRE(first->kvs.size() == 1);
  CHECK(first->kvs[0].key == "/vote/a");
  CHECK(first->kvs[0].value == "ada2");
  CHECK(first->revision > created->revision);
  auto b = c.range("/vote/b");
  REQUIRE(b.ok());
  // Keys created before b, newest first: only a (c came earlier than b, but after a).
  auto before_b = c.range_with("/vote/", {.range_end = controllers::prefix_end("/vote/"),
                                           .sort = Sort::kCreateDescending,
                                           .max_create_revision = b->at(0).create_revision - 1});
  REQUIRE(before_b.ok());
  REQUIRE(before_b->kvs.size() == 2);
  CHECK(before_b->kvs[0].key == "/vote/c");
  CHECK(before_b->kvs[1].key == "/vote/a");

  // Delete only while it is ours: a compare on the create revision guards it.
  const EtcdCompare ours{"/vote/b", EtcdCompare::Target::kCreateRevision, EtcdCompare::Op::kEqual, b->at(0).create_revision};
  const EtcdCompare stale{"/vote/b", EtcdCompare::Target::kCreateRevision, EtcdCompare::Op::kEqual, b->at(0).create_revision + 100};
  auto refused = c.txn({stale}, {EtcdTxnOp::remove("/vote/b")}, {});
  REQUIRE(refused.ok());
  CHECK_FALSE(refused->succeeded);
  CHECK(c.range("/vote/b")->size() == 1);
  auto removed = c.txn({ours}, {EtcdTxnOp::remove("/vote/b")}, {});
  REQUIRE(removed.ok());
  CHECK(removed->succeeded);
  CHECK(c.range("/vote/b")->empty());

  CHECK(controllers::prefix_end("a\xff") == "b");
  CHECK(controllers::prefix_end("\xff\xff") == std::string(1, '\0'));
}

}  // namespace
}  // namespace cosi::testing
