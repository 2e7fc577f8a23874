// A learner that started and then died, against real etcd processes (127.47.0.x): cp-3 joined
// the cluster as a learner, started (it has a name) and was killed before it was promoted, so
// it holds etcd's only learner place. The EtcdController of a joining cp-2 — on the harness,
// with machined's real etcd client — keeps waiting while cp-3 has been unreachable for less than
// 60 s, then removes it (a log line naming it) and adds itself as the learner.
#include <unistd.h>

#include <catch2/catch.hpp>

#include "api/etcd/grpc_etcd_client.h"
#include "controllers/etcd/etcd_controller.h"
#include "runtime/testing/harness.h"
#include "test/support/etcd_inputs.h"
#include "test/support/solo_etcd.h"

namespace cosi::testing {
namespace {

using namespace std::chrono_literals;

const std::string kCp1 = "127.47.0.1", kCp2 = "127.47.0.2", kCp3 = "127.47.0.3";

std::optional<controllers::EtcdMemberInfo> member(controllers::EtcdClient& client, const std::function<bool(const controllers::EtcdMemberInfo&)>& which) {
  auto members = client.member_list();
  if (!members.ok()) return std::nullopt;
  for (const auto& m : *members) {
    if (which(m)) return m;
  }
  return std::nullopt;
}

TEST_CASE("a learner that started and died is removed after 60 s unreachable, by the next node to join", "[etcd]") {
  SoloEtcd cp1(kCp1);
  auto learner_id = cp1.client->add_learner({"http://" + kCp3 + ":2380"});
  REQUIRE(learner_id.ok());

  // cp-3's etcd starts as that learner, then dies.
  const auto dir = std::filesystem::temp_directory_path() / ("cosi-learner-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  Process cp3({"etcd", "--name=cp-3", "--data-dir=" + dir.string(), "--listen-client-urls=http://" + kCp3 + ":2379",
               "--advertise-client-urls=http://" + kCp3 + ":2379", "--listen-peer-urls=http://" + kCp3 + ":2380",
               "--initial-advertise-peer-urls=http://" + kCp3 + ":2380",
               "--initial-cluster=solo=http://" + kCp1 + ":2380,cp-3=http://" + kCp3 + ":2380", "--initial-cluster-state=existing",
               "--heartbeat-interval=50", "--election-timeout=300"});
  auto is_cp3 = [&](const controllers::EtcdMemberInfo& m) { return m.id == *learner_id; };
  REQUIRE(eventually([&] { auto m = member(*cp1.client, is_cp3); return m && m->name == "cp-3" && m->is_learner; }, in_seconds(20)));
  cp3.kill_now();
  std::filesystem::remove_all(dir);

  // cp-2 joins, with machined's etcd client (plaintext here) and a launcher that only records.
  struct StateDir {
    std::filesystem::path path = std::filesystem::temp_directory_path() / ("cosi-learner-cp2-" + std::to_string(getpid()));
    ~StateDir() { std::filesystem::remove_all(path); }
  } state;
  std::vector<std::vector<std::string>> launches;
  auto controller = std::make_unique<controllers::EtcdController>(
      controllers::EtcdControllerOptions{.state_dir = state.path.string()},
      [&](const std::vector<std::string>& argv, const std::string&) -> Result<std::unique_ptr<controllers::Process>> {
        launches.push_back(argv);
        return Error(ErrorKind::kUnavailable, "this test starts no etcd for cp-2");
      },
      [](const std::string& endpoint, const controllers::EtcdTls&, std::chrono::milliseconds deadline) {
        return etcd::make_grpc_etcd_client(endpoint, {}, deadline);
      });
  Harness h;
  REQUIRE(h.add(std::move(controller)).ok());
  REQUIRE(h.start().ok());
  put_etcd_inputs(h, "cp-2", kCp2, {kCp1, kCp2, kCp3});

  // 59 s of the harness's clock: cp-3 is still the learner, cp-2 waits and adds nothing.
  for (int s = 0; s < 59; ++s) {
    h.advance(1s);
    h.run_until_idle();
  }
  CHECK(member(*cp1.client, is_cp3));
  CHECK_FALSE(member(*cp1.client, [&](const auto& m) { return m.peer_urls.front().find(kCp2) != std::string::npos; }));

  // Past 60 s: removed, and cp-2 is the learner now.
  for (int s = 0; s < 3; ++s) {
    h.advance(1s);
    h.run_until_idle();
  }
  CHECK_FALSE(member(*cp1.client, is_cp3));
  auto cp2 = member(*cp1.client, [&](const auto& m) { return m.peer_urls.front().find(kCp2) != std::string::npos; });
  REQUIRE(cp2);
  CHECK(cp2->is_learner);
  CHECK_FALSE(launches.empty());
  bool logged = false;
  for (const auto& l : h.logs()) {
    logged = logged || (l.message == "removing a learner that stopped answering and never caught up" &&
                        std::find(l.fields.begin(), l.fields.end(), LogField{"name", "cp-3"}) != l.fields.end());
  }
  CHECK(logged);
}

}  // namespace
}  // namespace cosi::testing
