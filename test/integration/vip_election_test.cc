// The VIP election in a real etcd (one member, plaintext, 127.32.0.1): the oldest candidacy
// leads and everyone agrees who that is; a resign hands over at once; a candidate that stops
// (killed: no resign) hands over only after it could no longer believe its lease alive; a
// frozen etcd stops the holder's valid-until from moving.
#include <signal.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "controllers/network/etcd_vip_election.h"
#include "test/support/solo_etcd.h"

namespace cosi::testing {
namespace {

using namespace std::chrono_literals;
using controllers::VipElectionState;
using Clock = std::chrono::steady_clock;

const std::string kKey = "talos:v1:vip:election:198.51.100.5";

struct Candidate {
  Candidate(const SoloEtcd& etcd, const std::string& name) {
    election = controllers::make_etcd_vip_election(
        {.key = kKey, .candidate = name, .ttl = 2s, .endpoint = etcd.endpoint(), .on_change = [this] { ++changes; }},
        etcd::make_grpc_etcd_client);
  }
  VipElectionState state() const { return election->state(); }
  // May hold the VIP now, as the operator decides it.
  bool holds() const {
    auto s = state();
    return s.leading && Clock::now() < s.valid_until;
  }
  std::unique_ptr<controllers::VipElection> election;
  std::atomic<int> changes{0};
};

TEST_CASE("VIP election: the oldest candidate leads, and every candidate sees who", "[vip][etcd]") {
  SoloEtcd etcd("127.32.0.1");
  Candidate a(etcd, "cp-1");
  REQUIRE(eventually([&] { return a.holds(); }, in_seconds(10)));
  Candidate b(etcd, "cp-2");
  REQUIRE(eventually([&] { return b.state().holder == "cp-1"; }, in_seconds(10)));
  CHECK_FALSE(b.state().leading);
  CHECK(a.state().holder == "cp-1");
  CHECK(a.changes > 0);

  // The keys are etcd's election's: <key>/<lease in hex>, the candidate's name as the value.
  auto keys = etcd.client->range(kKey + "/", controllers::prefix_end(kKey + "/"));
  REQUIRE(keys.ok());
  REQUIRE(keys->size() == 2);
  CHECK(keys->at(0).lease != 0);

  // The holder keeps its lease alive every TTL/4: valid-until moves on about four times in 2 s.
  const auto first = a.state().valid_until;
  REQUIRE(eventually([&] { return a.state().valid_until > first; }, in_seconds(5)));
  CHECK(a.state().valid_until <= Clock::now() + 2s);
  const int before = a.changes;
  std::this_thread::sleep_for(2s);  // observing the keep-alive cadence, not waiting for a condition
  CHECK(a.changes - before >= 3);
  CHECK(a.changes - before <= 6);

  // Resign: the next one leads at once, well within the lease.
  const auto resigned = Clock::now();
  REQUIRE(a.election->resign(1s).ok());
  REQUIRE(eventually([&] { return b.holds(); }, in_seconds(5), 5ms));
  CHECK(Clock::now() - resigned < 1s);
  CHECK(b.state().holder == "cp-2");
  CHECK_FALSE(a.state().leading);
}

TEST_CASE("VIP election: a holder that stops without resigning hands over only after its valid-until", "[vip][etcd]") {
  SoloEtcd etcd("127.32.0.1");
  auto a = std::make_unique<Candidate>(etcd, "cp-1");
  REQUIRE(eventually([&] { return a->holds(); }, in_seconds(10)));
  Candidate b(etcd, "cp-2");
  REQUIRE(eventually([&] { return b.state().holder == "cp-1"; }, in_seconds(10)));

  // Killed: the campaign stops, no resign, no more keep-alives. Whatever a believed last, the
  // next holder must come after it.
  const auto believed = a->state().valid_until;
  a.reset();
  REQUIRE(eventually([&] { return b.holds(); }, in_seconds(10), 5ms));
  CHECK(Clock::now() >= believed);
  CHECK(b.state().holder == "cp-2");
}

TEST_CASE("VIP election: with etcd frozen, the holder's valid-until stops moving and runs out", "[vip][etcd]") {
  SoloEtcd etcd("127.32.0.1");
  Candidate a(etcd, "cp-1");
  REQUIRE(eventually([&] { return a.holds(); }, in_seconds(10)));
  kill(etcd.process->pid(), SIGSTOP);
  const auto frozen = Clock::now();
  REQUIRE(eventually([&] { return !a.holds(); }, in_seconds(5), 5ms));
  CHECK(Clock::now() - frozen < 2s);  // within the TTL
  kill(etcd.process->pid(), SIGCONT);
  // Thawed: the lease may have run out meanwhile; either way the candidate holds again.
  REQUIRE(eventually([&] { return a.holds(); }, in_seconds(10)));
}

}  // namespace
}  // namespace cosi::testing
