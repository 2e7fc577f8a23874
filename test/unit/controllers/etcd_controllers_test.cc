// The etcd controllers on the test harness against a fake etcd (test/unit/controllers/fake_etcd.h):
// how a control plane joins (waits for a cluster, one learner at a time, a stale member of its
// name removed, promoted once in sync), when bootstrap is refused, and the quorum arithmetic of
// EtcdClusters. The real etcd runs in test/integration/etcd_test.cc.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>

#include "controllers/etcd/etcd_controller.h"
#include "controllers/etcd/etcd_status_controller.h"
#include "controllers/etcd/kept_clients.h"
#include "resources/etcd/etcd_resources.h"
#include "resources/k8s/k8s_resources.h"
#include "resources/secrets/secrets_resources.h"
#include "resources/v1alpha1/v1alpha1_resources.h"
#include "runtime/testing/harness.h"
#include "test/support/etcd_inputs.h"
#include "test/support/eventually.h"
#include "test/unit/controllers/fake_etcd.h"

namespace cosi::testing {
namespace {

using namespace cosi::resources;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

const std::string kCp1 = "127.5.0.10", kCp2 = "127.5.0.11", kCp3 = "127.5.0.12";

struct StateDir {
  StateDir() {
    std::string tmpl = (fs::temp_directory_path() / "etcd-controller-test-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~StateDir() { fs::remove_all(path); }
  std::string path;
};

// What the etcd controllers read, for control plane `name` at `ip`, with the three control
// planes discovery knows.
void put_inputs(Harness& h, const std::string& name, const std::string& ip) { put_etcd_inputs(h, name, ip, {kCp1, kCp2, kCp3}); }

std::string argument(const std::vector<std::string>& argv, const std::string& name) {
  for (const auto& a : argv) {
    if (a.starts_with(name + "=")) return a.substr(name.size() + 1);
  }
  return "";
}

const controllers::EtcdMemberInfo* member_named(const std::vector<controllers::EtcdMemberInfo>& members, const std::string& name) {
  for (const auto& m : members) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

struct Node {
  explicit Node(FakeEtcd& etcd) {
    auto c = std::make_unique<controllers::EtcdController>(controllers::EtcdControllerOptions{.state_dir = dir.path},
                                                            etcd.launcher(), etcd.factory());
    controller = c.get();
    REQUIRE(h.add(std::move(c)).ok());
    REQUIRE(h.start().ok());
  }
  // Lets the controller's timers fire for `d`, in small steps.
  void run_for(Duration d) {
    for (Duration t{}; t < d; t += 50ms) {
      h.advance(50ms);
      h.run_until_idle();
    }
  }
  StateDir dir;
  Harness h;
  controllers::EtcdController* controller = nullptr;
};

// The control plane at `ip` takes etcd's learner place (through cp-1) for a second: `node` makes
// no MemberAdd and starts nothing meanwhile, and has made its own within `after` of that
// learner's promotion.
void hold_learner_place(FakeEtcd& etcd, Node& node, const std::string& ip, Duration after) {
  auto via_cp1 = etcd.factory()(kCp1 + ":2379", {}, 1s);
  auto other = via_cp1->add_learner({"https://" + ip + ":2380"});
  REQUIRE(other.ok());
  node.run_for(1s);
  CHECK(etcd.launches().empty());
  CHECK(etcd.member_adds() == 1);  // the other's only: none while it saw a learner
  REQUIRE(via_cp1->promote(*other).ok());
  node.run_for(after);
  CHECK(etcd.member_adds() == 2);
}

TEST_CASE("a control plane joins a peer's cluster as a learner and is promoted once in sync", "[etcd]") {
  FakeEtcd etcd;
  etcd.add_started_member("cp-1", kCp1);
  etcd.set_learners_in_sync(false);
  Node node(etcd);
  put_inputs(node.h, "cp-2", kCp2);

  REQUIRE(etcd.launches().size() == 1);
  const auto argv = etcd.launches().front();
  CHECK(argument(argv, "--initial-cluster-state") == "existing");
  CHECK_THAT(argument(argv, "--initial-cluster"), Contains("cp-1=https://127.5.0.10:2380") &&
                                                      Contains("cp-2=https://127.5.0.11:2380"));
  auto* joined = member_named(etcd.members(), "cp-2");
  REQUIRE(joined != nullptr);
  CHECK(joined->is_learner);

  node.run_for(500ms);  // not in sync yet: still a learner, asked again and again
  CHECK(member_named(etcd.members(), "cp-2")->is_learner);
  // etcd's "not in sync yet" is the expected answer while catching up: asked again quietly.
  for (const auto& l : node.h.logs()) CHECK(l.message != "promotion not possible yet");
  etcd.set_learners_in_sync(true);
  node.run_for(100ms);
  CHECK_FALSE(member_named(etcd.members(), "cp-2")->is_learner);
  CHECK(etcd.member_adds() == 1);

  // This member's id, and the service, as resources.
  const std::string id = controllers::member_id_hex(member_named(etcd.members(), "cp-2")->id);
  CHECK(node.h.expect({kEtcdNamespace, kEtcdMemberType, std::string(kEtcdMemberId)}, [&](const ResourcePtr& r) {
          auto typed = resource_cast<EtcdMemberSpec>(r);
          return typed && typed->spec().member_id() == id;
        }).ok());
  CHECK(node.h.expect({kRuntimeNamespace, kServiceType, "etcd"}, [](const ResourcePtr& r) {
          auto typed = resource_cast<ServiceSpec>(r);
          return typed && typed->spec().running() && typed->spec().healthy();
        }).ok());
}

TEST_CASE("a control plane waits for a cluster, and for another node's learner, without racing its MemberAdd", "[etcd]") {
  FakeEtcd etcd;
  Node node(etcd);
  put_inputs(node.h, "cp-2", kCp2);
  node.run_for(1s);
  CHECK(etcd.launches().empty());  // nobody bootstrapped: nothing to join

  // cp-1 bootstraps; cp-3 got the learner place first.
  etcd.add_started_member("cp-1", kCp1);
  hold_learner_place(etcd, node, kCp3, 200ms);
  REQUIRE(etcd.launches().size() == 1);
  CHECK(member_named(etcd.members(), "cp-2") != nullptr);
}

TEST_CASE("control planes joining together take the learner place in address order; a missing one delays the next by 75 ms", "[etcd]") {
  FakeEtcd etcd;
  etcd.add_started_member("cp-1", kCp1);
  Node node(etcd);
  put_inputs(node.h, "cp-3", kCp3);  // cp-2 (127.5.0.11) comes before it, and is not a member
  node.run_for(50ms);
  CHECK(etcd.member_adds() == 0);

  SECTION("cp-2 takes the place: cp-3 waits for its promotion, then joins at once") {
    hold_learner_place(etcd, node, kCp2, 50ms);
  }
  SECTION("cp-2 never comes: cp-3 joins 75 ms after it saw the place free") {
    node.run_for(50ms);
    CHECK(etcd.member_adds() == 1);
  }
  REQUIRE(etcd.launches().size() == 1);
  CHECK(member_named(etcd.members(), "cp-3") != nullptr);
}

TEST_CASE("a MemberAdd refused until every member has been connected for 5 s is asked again every 100 ms, not after a backoff", "[etcd]") {
  FakeEtcd etcd;
  etcd.add_started_member("cp-1", kCp1);
  etcd.refuse_member_adds_as_unhealthy(30);  // 3 s of refusals at one a pass
  Node node(etcd);
  put_inputs(node.h, "cp-2", kCp2);
  node.run_for(2s);
  CHECK(etcd.launches().empty());
  CHECK(etcd.member_adds() >= 15);  // backing off (0.5, 1, 2 s...) it would have asked 3 times
  node.run_for(1500ms);
  REQUIRE(etcd.launches().size() == 1);
  CHECK(member_named(etcd.members(), "cp-2") != nullptr);
  int waits = 0;
  for (const auto& l : node.h.logs()) waits += l.message.find("strict reconfig check") != std::string::npos;
  CHECK(waits == 1);  // said once, not per refusal
}

TEST_CASE("a MemberAdd that got no answer (raft dropped it, or applied it late) is followed up at once, not after a backoff", "[etcd]") {
  FakeEtcd etcd;
  etcd.add_started_member("cp-1", kCp1);

  SECTION("dropped: added again") {
    etcd.drop_next_member_add(false);
    Node node(etcd);
    put_inputs(node.h, "cp-2", kCp2);
    CHECK(etcd.launches().empty());
    node.run_for(50ms);
    CHECK(etcd.member_adds() == 2);
  }
  SECTION("applied late: that member is started, not a second one added") {
    etcd.drop_next_member_add(true);
    Node node(etcd);
    put_inputs(node.h, "cp-2", kCp2);
    CHECK(etcd.launches().empty());
    node.run_for(50ms);
    CHECK(etcd.member_adds() == 1);
  }
  REQUIRE(etcd.launches().size() == 1);
  CHECK(etcd.members().size() == 2);
  REQUIRE(member_named(etcd.members(), "cp-2") != nullptr);
}

TEST_CASE("a learner another node added but never started is removed after 30 s, then the node joins", "[etcd]") {
  FakeEtcd etcd;
  etcd.add_started_member("cp-1", kCp1);
  auto abandoned = etcd.factory()(kCp1 + ":2379", {}, 1s)->add_learner({"https://" + kCp3 + ":2380"});
  REQUIRE(abandoned.ok());
  Node node(etcd);
  put_inputs(node.h, "cp-2", kCp2);
  node.run_for(29s);
  CHECK(etcd.launches().empty());
  CHECK(etcd.members().size() == 2);  // still there: its node may yet start it

  node.run_for(1500ms);
  REQUIRE(etcd.launches().size() == 1);
  for (const auto& m : etcd.members()) CHECK(m.id != *abandoned);
  CHECK(member_named(etcd.members(), "cp-2") != nullptr);
}

TEST_CASE("a learner that started, then died, is removed once it has not answered for 60 s", "[etcd]") {
  FakeEtcd etcd;
  etcd.add_started_member("cp-1", kCp1);
  etcd.set_learners_in_sync(false);
  // cp-3 joined as a learner and started (it has a name), then died before it caught up.
  auto dead = etcd.factory()(kCp1 + ":2379", {}, 1s)->add_learner({"https://" + kCp3 + ":2380"});
  REQUIRE(dead.ok());
  REQUIRE(etcd.launcher()({"etcd", "--name=cp-3", "--initial-advertise-peer-urls=https://" + kCp3 + ":2380",
                           "--advertise-client-urls=https://" + kCp3 + ":2379"},
                          "etcd")
              .ok());
  const auto launched_before = etcd.launches().size();
  Node node(etcd);
  put_inputs(node.h, "cp-2", kCp2);

  // While it answers it is catching up: waited for, however long.
  node.run_for(70s);
  CHECK(etcd.launches().size() == launched_before);
  CHECK(member_named(etcd.members(), "cp-3") != nullptr);

  // It stops answering: 59 s later it is still there, at 60 s it goes and cp-2 takes the place.
  etcd.set_down(kCp3 + ":2379", true);
  node.run_for(59s);
  CHECK(member_named(etcd.members(), "cp-3") != nullptr);
  CHECK(etcd.launches().size() == launched_before);
  node.run_for(1500ms);
  CHECK(member_named(etcd.members(), "cp-3") == nullptr);
  REQUIRE(etcd.launches().size() == launched_before + 1);
  CHECK(member_named(etcd.members(), "cp-2") != nullptr);
  bool logged = false;
  for (const auto& l : node.h.logs()) {
    logged = logged || (l.message == "removing a learner that stopped answering and never caught up" &&
                        std::find(l.fields.begin(), l.fields.end(), LogField{"name", "cp-3"}) != l.fields.end());
  }
  CHECK(logged);
}

TEST_CASE("a dead learner that answers again before 60 s is kept, and its clock starts over", "[etcd]") {
  FakeEtcd etcd;
  etcd.add_started_member("cp-1", kCp1);
  etcd.set_learners_in_sync(false);
  auto learner = etcd.factory()(kCp1 + ":2379", {}, 1s)->add_learner({"https://" + kCp3 + ":2380"});
  REQUIRE(learner.ok());
  REQUIRE(etcd.launcher()({"etcd", "--name=cp-3", "--initial-advertise-peer-urls=https://" + kCp3 + ":2380",
                           "--advertise-client-urls=https://" + kCp3 + ":2379"},
                          "etcd")
              .ok());
  Node node(etcd);
  put_inputs(node.h, "cp-2", kCp2);
  etcd.set_down(kCp3 + ":2379", true);
  node.run_for(40s);
  etcd.set_down(kCp3 + ":2379", false);  // it was only restarting
  node.run_for(1s);
  etcd.set_down(kCp3 + ":2379", true);
  node.run_for(40s);
  CHECK(member_named(etcd.members(), "cp-3") != nullptr);
}

TEST_CASE("a stale member with this node's name is removed before the node joins again", "[etcd]") {
  FakeEtcd etcd;
  etcd.add_started_member("cp-1", kCp1);
  const uint64_t stale = etcd.add_started_member("cp-2", kCp2);
  etcd.set_down(kCp2 + ":2379", true);  // the old installation is gone; its data too
  Node node(etcd);
  put_inputs(node.h, "cp-2", kCp2);

  REQUIRE(etcd.launches().size() == 1);
  auto* rejoined = member_named(etcd.members(), "cp-2");
  REQUIRE(rejoined != nullptr);
  CHECK(rejoined->id != stale);
  CHECK(etcd.members().size() == 2);
}

TEST_CASE("bootstrap starts a new cluster once, and never beside a cluster a peer runs", "[etcd]") {
  SECTION("a peer runs etcd: FAILED_PRECONDITION naming it, nothing started") {
    FakeEtcd etcd;
    etcd.add_started_member("cp-1", kCp1);
    etcd.set_down(kCp1 + ":2379", true);  // unreachable while the node starts: it cannot join yet
    Node node(etcd);
    put_inputs(node.h, "cp-2", kCp2);
    etcd.set_down(kCp1 + ":2379", false);
    auto s = node.controller->bootstrap();
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind() == ErrorKind::kFailedPrecondition);
    CHECK_THAT(s.error().message(), Contains("etcd already runs on 127.5.0.10"));
    CHECK(etcd.launches().empty());
  }
  SECTION("no cluster anywhere: a new one here; a second bootstrap is ALREADY_EXISTS") {
    FakeEtcd etcd;
    Node node(etcd);
    put_inputs(node.h, "cp-2", kCp2);
    REQUIRE(node.controller->bootstrap().ok());
    node.h.run_until_idle();
    REQUIRE(etcd.launches().size() == 1);
    CHECK(argument(etcd.launches().front(), "--initial-cluster-state") == "new");
    CHECK(argument(etcd.launches().front(), "--initial-cluster") == "cp-2=https://127.5.0.11:2380");
    auto again = node.controller->bootstrap();
    REQUIRE_FALSE(again.ok());
    CHECK(again.error().kind() == ErrorKind::kAlreadyExists);
    CHECK_THAT(again.error().message(), Contains("etcd data directory is not empty"));
    CHECK(etcd.launches().size() == 1);
  }
  SECTION("not a control plane: UNIMPLEMENTED") {
    FakeEtcd etcd;
    Node node(etcd);
    CHECK(node.controller->bootstrap().error().kind() == ErrorKind::kUnimplemented);
  }
}

TEST_CASE("EtcdClusters counts quorum from every member's status; EtcdStatuses record each error", "[etcd]") {
  FakeEtcd etcd;
  etcd.add_started_member("cp-1", kCp1);
  const uint64_t cp2 = etcd.add_started_member("cp-2", kCp2);
  const uint64_t cp3 = etcd.add_started_member("cp-3", kCp3);
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::EtcdStatusController>(etcd.factory(), 2379, 2380, 500ms)).ok());
  REQUIRE(h.start().ok());
  put_inputs(h, "cp-2", kCp2);
  const Pointer cluster{kEtcdNamespace, kEtcdClusterType, std::string(kEtcdClusterId)};
  auto cluster_is = [&](uint32_t healthy, bool quorum) {
    return h.expect(cluster, [&](const ResourcePtr& r) {
      auto c = resource_cast<EtcdClusterSpec>(r);
      return c && c->spec().members() == 3 && c->spec().voting_members() == 3 && c->spec().healthy_members() == healthy &&
             c->spec().quorum_needed() == 2 && c->spec().failures_tolerated() == 1 && c->spec().has_quorum() == quorum &&
             (c->spec().leader().empty() != quorum);
    });
  };
  CHECK(cluster_is(3, true).ok());
  // The member's EtcdStatuses records why it does not answer.
  auto recorded_down = [&](uint64_t id, const std::string& hostname) {
    return h.expect({kEtcdNamespace, kEtcdStatusType, controllers::member_id_hex(id)}, [&](const ResourcePtr& r) {
      auto s = resource_cast<EtcdStatusSpec>(r);
      return s && s->spec().errors_size() == 1 && s->spec().errors(0).find("connection refused") != std::string::npos &&
             s->spec().hostname() == hostname;
    });
  };

  etcd.set_down(kCp3 + ":2379", true);
  h.advance(500ms);
  h.run_until_idle();
  CHECK(cluster_is(2, true).ok());
  CHECK(recorded_down(cp3, "cp-3").ok());

  // Two of three down, this node's own among them: still listed through cp-1, no quorum.
  etcd.set_down(kCp2 + ":2379", true);
  h.advance(500ms);
  h.run_until_idle();
  CHECK(cluster_is(1, false).ok());
  CHECK(recorded_down(cp2, "cp-2").ok());
  CHECK(recorded_down(cp3, "cp-3").ok());
}

TEST_CASE("KeptClients: one client per endpoint until it is forgotten or the credentials change", "[etcd]") {
  int made = 0;
  FakeEtcd etcd;
  auto factory = etcd.factory();
  controllers::KeptClients kept(
      [&](const std::string& endpoint, const controllers::EtcdTls& tls, std::chrono::milliseconds deadline) {
        ++made;
        return factory(endpoint, tls, deadline);
      },
      1s);
  const controllers::EtcdTls tls{"ca", "crt-1", "key"};
  auto a = kept.get("a:2379", tls);
  CHECK(kept.get("a:2379", tls) == a);
  auto b = kept.get("b:2379", tls);
  CHECK(b != a);
  CHECK(made == 2);

  // A failed call forgets that client; forgetting an older one keeps its replacement.
  kept.forget("a:2379", a);
  auto a2 = kept.get("a:2379", tls);
  CHECK(a2 != a);
  kept.forget("a:2379", a);
  CHECK(kept.get("a:2379", tls) == a2);
  CHECK(made == 3);

  // New credentials: every client anew.
  const controllers::EtcdTls renewed{"ca", "crt-2", "key"};
  CHECK(kept.get("b:2379", renewed) != b);
  CHECK(made == 4);
}

TEST_CASE("EtcdClusters shows a member down as soon as its connection is lost, and back when it answers again, not at the next poll", "[etcd]") {
  FakeEtcd etcd;
  etcd.add_started_member("cp-1", kCp1);
  etcd.add_started_member("cp-2", kCp2);
  const uint64_t cp3 = etcd.add_started_member("cp-3", kCp3);
  Harness h;
  // Polled once an hour: only the lost connection can explain a change.
  REQUIRE(h.add(std::make_unique<controllers::EtcdStatusController>(etcd.factory(), 2379, 2380, std::chrono::hours(1))).ok());
  REQUIRE(h.start().ok());
  put_inputs(h, "cp-2", kCp2);
  const Pointer cluster{kEtcdNamespace, kEtcdClusterType, std::string(kEtcdClusterId)};
  auto healthy_members = [&] {
    h.run_until_idle();
    auto r = h.store().get(cluster);
    auto c = r.ok() ? resource_cast<EtcdClusterSpec>(*r) : nullptr;
    return c ? static_cast<int>(c->spec().healthy_members()) : -1;
  };
  REQUIRE(healthy_members() == 3);
  // The controller keeps a connection to each member, cp-3's among them.
  REQUIRE(eventually([&] { return etcd.watching(kCp3 + ":2379") == 1; }, std::chrono::steady_clock::now() + std::chrono::seconds(10),
                     std::chrono::milliseconds(5)));

  etcd.set_down(kCp3 + ":2379", true);
  CHECK(eventually([&] { return healthy_members() == 2; }, std::chrono::steady_clock::now() + std::chrono::seconds(10), std::chrono::milliseconds(5)));
  CHECK(h.expect({kEtcdNamespace, kEtcdStatusType, controllers::member_id_hex(cp3)}, [](const ResourcePtr& r) {
          auto s = resource_cast<EtcdStatusSpec>(r);
          return s && s->spec().errors_size() == 1;
        }).ok());

  // Back: seen when its connection opens again, still without a poll.
  etcd.set_down(kCp3 + ":2379", false);
  CHECK(eventually([&] { return healthy_members() == 3; }, std::chrono::steady_clock::now() + std::chrono::seconds(10),
                   std::chrono::milliseconds(5)));
}

}  // namespace
}  // namespace cosi::testing
