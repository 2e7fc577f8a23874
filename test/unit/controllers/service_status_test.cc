// ServiceStatusController on the test harness: the states and events `talosctl service` shows,
// from the Services a service's controller writes and the ServiceRequests the API writes. Time
// is a fake wall clock, so every event's timestamp is known.
#include <catch2/catch.hpp>

#include "controllers/common/service_request.h"
#include "controllers/services/service_status_controller.h"
#include "resources/v1alpha1/v1alpha1_resources.h"
#include "runtime/testing/harness.h"

namespace cosi::testing {
namespace {

using namespace cosi::resources;
using namespace std::chrono_literals;

const Pointer kEtcdStatus{kRuntimeNamespace, kServiceStatusType, "etcd"};

struct Node {
  Node() {
    REQUIRE(h.add(std::make_unique<controllers::ServiceStatusController>([this] { return wall; })).ok());
    REQUIRE(h.start().ok());
  }
  void service(bool running, bool healthy, bool unknown = false) {
    ServiceSpec s;
    s.set_running(running);
    s.set_healthy(healthy);
    s.set_unknown(unknown);
    REQUIRE(h.put(make_resource(Metadata(kRuntimeNamespace, kServiceType, "etcd"), s)).ok());
    h.run_until_idle();
  }
  void request(bool stopped, uint64_t restarts = 0) {
    ServiceRequestSpec s;
    s.set_stopped(stopped);
    s.set_restarts(restarts);
    REQUIRE(h.put(make_resource(Metadata(kRuntimeNamespace, kServiceRequestType, "etcd"), s)).ok());
    h.run_until_idle();
  }
  ServiceStatusSpec status() {
    auto r = h.store().get(kEtcdStatus);
    REQUIRE(r.ok());
    return resource_cast<ServiceStatusSpec>(*r)->spec();
  }
  // "[State] msg" for every event, oldest first.
  std::vector<std::string> events() {
    std::vector<std::string> out;
    const auto s = status();
    for (const auto& e : s.events()) out.push_back("[" + e.state() + "] " + e.msg());
    return out;
  }

  Harness h;
  std::chrono::system_clock::time_point wall = std::chrono::system_clock::time_point(1'700'000'000s);
};

TEST_CASE("Service status: waiting, then running, then healthy, each an event with its time", "[services]") {
  Node n;
  n.service(false, false);
  CHECK(n.status().state() == "Waiting");
  CHECK(n.status().health_unknown());

  n.wall += 5s;
  n.service(true, false, true);
  CHECK(n.status().state() == "Running");
  CHECK(n.status().health_unknown());

  n.wall += 1s;
  n.service(true, true);
  const auto s = n.status();
  CHECK(s.healthy());
  CHECK_FALSE(s.health_unknown());
  CHECK(s.health_message() == "Health check successful");
  CHECK(s.health_changed().seconds() == 1'700'000'006);
  CHECK(n.events() == std::vector<std::string>{"[Waiting] Waiting for the service to start", "[Running] Service started",
                                               "[Running] Health check successful"});
  CHECK(s.events(1).ts().seconds() == 1'700'000'005);
}

TEST_CASE("Service status: a stop request is Stopping until the process is gone, then Finished; a start runs it again",
          "[services]") {
  Node n;
  n.service(true, true);
  n.request(true);
  CHECK(n.status().state() == "Stopping");
  n.service(false, false);
  CHECK(n.status().state() == "Finished");
  CHECK(n.status().health_unknown());
  n.request(false);
  CHECK(n.status().state() == "Waiting");
  n.service(true, true);
  CHECK(n.status().state() == "Running");
  CHECK(n.events() == std::vector<std::string>{"[Running] Service started", "[Running] Health check successful",
                                               "[Stopping] Stop requested", "[Finished] Service stopped",
                                               "[Waiting] Start requested", "[Running] Service started",
                                               "[Running] Health check successful"});
}

TEST_CASE("Service status: an exit nobody asked for is Failed until it runs again", "[services]") {
  Node n;
  n.service(true, true);
  n.service(false, false);
  CHECK(n.status().state() == "Failed");
  n.service(true, true);
  CHECK(n.status().state() == "Running");
}

TEST_CASE("Service status: a restart request is an event; a failing health check is one too", "[services]") {
  Node n;
  n.request(false, 3);  // a count from before: not a new restart
  n.service(true, true);
  n.request(false, 4);
  n.service(true, false);
  CHECK(n.events() == std::vector<std::string>{"[Running] Service started", "[Running] Health check successful",
                                               "[Running] Restart requested", "[Running] Health check failed"});
  CHECK(n.status().health_message() == "Health check failed");
}

TEST_CASE("Service status: keeps the last 64 events and goes with its service", "[services]") {
  Node n;
  for (int i = 0; i < 50; ++i) {
    n.service(true, true);
    n.service(true, false);
  }
  const auto s = n.status();
  CHECK(s.events_size() == controllers::ServiceStatusController::kMaxEvents);
  CHECK(s.events(63).msg() == "Health check failed");

  REQUIRE(n.h.remove({kRuntimeNamespace, kServiceType, "etcd"}).ok());
  n.h.run_until_idle();
  CHECK(n.h.expect_absent(kEtcdStatus).ok());
}

TEST_CASE("Service request: none means run; the restart tracker fires once per new count", "[services]") {
  controllers::RestartTracker restarts;
  CHECK_FALSE(restarts.due({.restarts = 2}));  // the first count seen is taken as done
  CHECK_FALSE(restarts.due({.restarts = 2}));
  CHECK(restarts.due({.restarts = 3}));
  CHECK_FALSE(restarts.due({.restarts = 3}));
}

}  // namespace
}  // namespace cosi::testing
