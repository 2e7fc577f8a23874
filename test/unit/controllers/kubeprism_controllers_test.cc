// KubePrism's controllers on the test harness (a fake balancer stands in for the real one,
// which test/integration/load_balancer_test.cc runs with real sockets), and the upstream
// bookkeeping the balancer decides with.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "controllers/k8s/apiserver_stand_in_controller.h"
#include "controllers/k8s/kubeprism_config_controller.h"
#include "controllers/k8s/kubeprism_controller.h"
#include "controllers/k8s/kubeprism_endpoints_controller.h"
#include "controllers/k8s/load_balancer/upstream_set.h"
#include "resources/cluster/cluster_resources.h"
#include "resources/common/ip.h"
#include "resources/config/config_resources.h"
#include "resources/config/machine_config.h"
#include "resources/k8s/k8s_resources.h"
#include "resources/network/network_resources.h"
#include "resources/secrets/certs.h"
#include "resources/v1alpha1/v1alpha1_resources.h"
#include "runtime/base/base64.h"
#include "runtime/testing/harness.h"

namespace cosi::testing {
namespace {

using namespace cosi::resources;
using namespace std::chrono_literals;
using controllers::UpstreamSet;
using MT = ::talos::resource::definitions::enums::MachineType;

TEST_CASE("UpstreamSet: down after one failure, up after two good checks; healthy and fast first, then least loaded", "[kubeprism]") {
  UpstreamSet set;
  set.assign({"a:6443", "b:6443", "c:6443"});
  CHECK_FALSE(set.any_healthy());
  CHECK(set.dial_order() == std::vector<std::string>{"a:6443", "b:6443", "c:6443"});  // none checked: as given

  for (const char* u : {"a:6443", "b:6443", "c:6443"}) {
    set.check_passed(u, 300us);
    CHECK_FALSE(set.any_healthy());  // one good check is not enough
  }
  set.check_passed("b:6443", 300us);
  set.check_passed("c:6443", 3ms);  // another tier
  CHECK(set.dial_order() == std::vector<std::string>{"b:6443", "c:6443", "a:6443"});
  set.check_passed("a:6443", 400us);
  CHECK(set.dial_order() == std::vector<std::string>{"a:6443", "b:6443", "c:6443"});  // same tier: the given order
  set.opened("a:6443");
  CHECK(set.dial_order() == std::vector<std::string>{"b:6443", "a:6443", "c:6443"});  // fewest active
  set.failed("b:6443");
  CHECK(set.dial_order() == std::vector<std::string>{"a:6443", "c:6443", "b:6443"});  // a failure: down, tried last

  // A new set keeps what it knew of those that stay.
  set.assign({"c:6443", "a:6443", "d:6443", "a:6443"});
  auto s = set.snapshot();
  REQUIRE(s.size() == 3);
  CHECK(s[1].address == "a:6443");
  CHECK(s[1].active == 1);
  CHECK(s[1].healthy);
  CHECK_FALSE(s[2].healthy);
  CHECK(UpstreamSet::tier(999us) == 0);
  CHECK(UpstreamSet::tier(1ms) == 1);
  CHECK(UpstreamSet::tier(2s) == 4);
}

std::string pem(const char* label) {
  return base64_encode(std::string("-----BEGIN ") + label + "-----\nMIIB\n-----END " + label + "-----\n");
}

MutableResourcePtr machine_config(const std::string& type, const std::string& endpoint, bool kubeprism) {
  const bool cp = type == "controlplane";
  const std::string text = "version: v1alpha1\nmachine:\n  type: " + type + "\n  token: abcdef.0123456789abcdef\n  ca:\n    crt: " +
                           pem("CERTIFICATE") + "\n" + (cp ? "    key: " + pem("PRIVATE KEY") + "\n" : "") +
                           "  features:\n    kubePrism:\n      enabled: " + (kubeprism ? "true" : "false") + "\n      port: 7445\n" +
                           "cluster:\n  id: cluster-id-1\n  clusterName: demo\n  secret: " + base64_encode(std::string(32, 's')) +
                           "\n  controlPlane:\n    endpoint: " + endpoint + "\n" +
                           (cp ? "  etcd:\n    ca:\n      crt: " + pem("CERTIFICATE") + "\n      key: " + pem("EC PRIVATE KEY") + "\n" : "");
  auto parsed = config::parse_machine_config(text);
  INFO((parsed.ok() ? std::string() : parsed.error().message()));
  REQUIRE(parsed.ok());
  MachineConfigSpec spec;
  spec.set_document(text);
  return make_resource(Metadata(kConfigNamespace, kMachineConfigType, std::string(kMachineConfigId)), spec);
}

MutableResourcePtr member(const std::string& name, MT type, const std::string& ip) {
  MemberSpec m;
  m.set_hostname(name);
  m.set_machine_type(type);
  m.add_addresses()->set_ip(*ip_bytes(ip));
  if (type == MT::TYPE_CONTROL_PLANE) m.mutable_control_plane()->set_api_server_port(6443);
  return make_resource(Metadata(kClusterNamespace, kMemberType, name), m);
}

MutableResourcePtr node_address(const std::string& ip) {
  NodeAddressSpec s;
  auto* a = s.add_addresses();
  a->set_ip(*ip_bytes(ip));
  a->set_prefix_length(32);
  return make_resource(Metadata(kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)), s);
}

std::vector<std::string> endpoints_of(Harness& h) {
  auto r = h.store().get({kK8sNamespace, kKubePrismEndpointsType, std::string(kKubePrismEndpointsId)});
  if (!r.ok()) return {};
  std::vector<std::string> out;
  for (const auto& e : resource_cast<KubePrismEndpointsSpec>(*r)->spec().endpoints()) out.push_back(e.host() + ":" + std::to_string(e.port()));
  return out;
}

// A control plane's config holding a real Kubernetes CA (cluster.ca, with its key).
MutableResourcePtr control_plane_config_with_ca(const pki::Certificate& ca, const pki::PrivateKey& ca_key) {
  const std::string text = "version: v1alpha1\nmachine:\n  type: controlplane\n  token: abcdef.0123456789abcdef\n  ca:\n    crt: " +
                           pem("CERTIFICATE") + "\n    key: " + pem("PRIVATE KEY") + "\n" +
                           "cluster:\n  id: cluster-id-1\n  clusterName: demo\n  secret: " + base64_encode(std::string(32, 's')) +
                           "\n  controlPlane:\n    endpoint: https://198.51.100.5:6443\n  ca:\n    crt: " + base64_encode(ca.pem()) +
                           "\n    key: " + base64_encode(ca_key.pem()) + "\n  etcd:\n    ca:\n      crt: " + pem("CERTIFICATE") +
                           "\n      key: " + pem("EC PRIVATE KEY") + "\n";
  auto parsed = config::parse_machine_config(text);
  INFO((parsed.ok() ? std::string() : parsed.error().message()));
  REQUIRE(parsed.ok());
  MachineConfigSpec spec;
  spec.set_document(text);
  return make_resource(Metadata(kConfigNamespace, kMachineConfigType, std::string(kMachineConfigId)), spec);
}

class RunningProcess final : public controllers::Process {
 public:
  bool running() override { return true; }
  int pid() const override { return 4242; }
};

TEST_CASE("the API server stand-in's certificate names every member's address, and follows them", "[kubeprism]") {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "apiserver-stand-in-test-XXXXXX").string();
  const fs::path dir = mkdtemp(tmpl.data());
  int launches = 0;
  auto ca_key = pki::PrivateKey::ecdsa_p256();
  auto ca = pki::Certificate::self_signed_ca(ca_key, {"kubernetes"}, pki::kYear);
  {
    Harness h;
    REQUIRE(h.add(std::make_unique<controllers::APIServerStandInController>(
                      controllers::APIServerStandInOptions{.state_dir = dir.string(), .listen_host = "198.51.100.10"},
                      [&](const std::vector<std::string>&, const std::string&) -> Result<std::unique_ptr<controllers::Process>> {
                        ++launches;
                        return std::unique_ptr<controllers::Process>(std::make_unique<RunningProcess>());
                      }))
                .ok());
    REQUIRE(h.start().ok());
    REQUIRE(h.put(node_address("198.51.100.10")).ok());
    REQUIRE(h.put(member("cp-1", MT::TYPE_CONTROL_PLANE, "198.51.100.10")).ok());
    REQUIRE(h.put(member("cp-2", MT::TYPE_CONTROL_PLANE, "198.51.100.11")).ok());
    REQUIRE(h.put(member("w-1", MT::TYPE_WORKER, "198.51.100.13")).ok());
    REQUIRE(h.put(control_plane_config_with_ca(ca, ca_key)).ok());
    auto served = [&] {
      std::ifstream in(dir / "apiserver" / "apiserver.crt");
      auto crt = pki::Certificate::parse(std::string(std::istreambuf_iterator<char>(in), {}));
      REQUIRE(crt.ok());
      return crt->ips();
    };
    auto ips = served();
    CHECK(std::find(ips.begin(), ips.end(), "198.51.100.10") != ips.end());
    CHECK(std::find(ips.begin(), ips.end(), "198.51.100.11") != ips.end());
    CHECK(std::find(ips.begin(), ips.end(), "198.51.100.5") != ips.end());  // the endpoint's host
    // A worker's too: KubePrism on a node is reached at that node's address and passes TLS
    // through, so a client checks this certificate against the worker's address.
    CHECK(std::find(ips.begin(), ips.end(), "198.51.100.13") != ips.end());
    CHECK(launches == 1);

    // Another node joins: the certificate follows, nginx restarted with it.
    REQUIRE(h.put(member("w-2", MT::TYPE_WORKER, "198.51.100.14")).ok());
    ips = served();
    CHECK(std::find(ips.begin(), ips.end(), "198.51.100.14") != ips.end());
    CHECK(launches == 2);
  }
  fs::remove_all(dir);
}

TEST_CASE("KubePrismEndpoints: the cluster endpoint, the node itself, then every control plane, each once", "[kubeprism]") {
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::KubePrismEndpointsController>()).ok());
  REQUIRE(h.start().ok());
  REQUIRE(h.put(node_address("198.51.100.10")).ok());
  REQUIRE(h.put(member("cp-1", MT::TYPE_CONTROL_PLANE, "198.51.100.10")).ok());
  REQUIRE(h.put(member("cp-2", MT::TYPE_CONTROL_PLANE, "198.51.100.11")).ok());
  REQUIRE(h.put(member("w-1", MT::TYPE_WORKER, "198.51.100.13")).ok());

  SECTION("a control plane") {
    REQUIRE(h.put(machine_config("controlplane", "https://198.51.100.5:6443", true)).ok());
    CHECK(endpoints_of(h) == std::vector<std::string>{"198.51.100.5:6443", "198.51.100.10:6443", "198.51.100.11:6443"});
    REQUIRE(h.put(member("cp-3", MT::TYPE_CONTROL_PLANE, "198.51.100.12")).ok());  // members change, so do the endpoints
    CHECK(endpoints_of(h).back() == "198.51.100.12:6443");
  }
  SECTION("a worker: not itself; an endpoint without a port is 443") {
    REQUIRE(h.put(machine_config("worker", "https://k8s.example.test", true)).ok());
    CHECK(endpoints_of(h) == std::vector<std::string>{"k8s.example.test:443", "198.51.100.10:6443", "198.51.100.11:6443"});
  }
}

TEST_CASE("KubePrismConfig: only while enabled, on the address machined gives", "[kubeprism]") {
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::KubePrismConfigController>("127.0.0.1")).ok());
  REQUIRE(h.start().ok());
  KubePrismEndpointsSpec endpoints;
  auto* e = endpoints.add_endpoints();
  e->set_host("198.51.100.5");
  e->set_port(6443);
  REQUIRE(h.put(make_resource(Metadata(kK8sNamespace, kKubePrismEndpointsType, std::string(kKubePrismEndpointsId)), endpoints)).ok());
  const Pointer config{kK8sNamespace, kKubePrismConfigType, std::string(kKubePrismConfigId)};
  REQUIRE(h.put(machine_config("controlplane", "https://198.51.100.5:6443", true)).ok());
  CHECK(h.expect(config, [](const ResourcePtr& r) {
    auto s = resource_cast<KubePrismConfigSpec>(r);
    return s && s->spec().host() == "127.0.0.1" && s->spec().port() == 7445 && s->spec().endpoints_size() == 1;
  }).ok());
  REQUIRE(h.put(machine_config("controlplane", "https://198.51.100.5:6443", false)).ok());
  CHECK(h.expect_absent(config).ok());
}

// A balancer that only records what it is told.
struct FakeBalancers {
  struct Fake final : controllers::LoadBalancer {
    explicit Fake(FakeBalancers& all, controllers::LoadBalancerOptions o) : all(all), options(std::move(o)) { ++all.running; }
    ~Fake() override { --all.running; }
    void set_upstreams(const std::vector<std::string>& u) override {
      set.assign(u);
      all.upstreams = u;
    }
    std::vector<controllers::UpstreamState> upstreams() const override { return set.snapshot(); }
    std::string address() const override { return options.host + ":" + std::to_string(options.port); }
    int connections() const override { return 0; }
    FakeBalancers& all;
    controllers::LoadBalancerOptions options;
    UpstreamSet set;
  };
  controllers::LoadBalancerFactory factory() {
    return [this](controllers::LoadBalancerOptions o) -> Result<std::unique_ptr<controllers::LoadBalancer>> {
      ++started;
      auto f = std::make_unique<Fake>(*this, std::move(o));
      last = f.get();
      return std::unique_ptr<controllers::LoadBalancer>(std::move(f));
    };
  }
  int started = 0;
  int running = 0;
  Fake* last = nullptr;
  std::vector<std::string> upstreams;
};

MutableResourcePtr kubeprism_config(int port, std::vector<std::string> hosts) {
  KubePrismConfigSpec s;
  s.set_host("127.0.0.1");
  s.set_port(port);
  for (const auto& host : hosts) {
    auto* e = s.add_endpoints();
    e->set_host(host);
    e->set_port(6443);
  }
  return make_resource(Metadata(kK8sNamespace, kKubePrismConfigType, std::string(kKubePrismConfigId)), s);
}

TEST_CASE("KubePrism: the balancer runs while configured, follows its upstreams, says how they are", "[kubeprism]") {
  FakeBalancers lbs;
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::KubePrismController>(controllers::HealthCheck::kHttpsReadyz, lbs.factory())).ok());
  REQUIRE(h.start().ok());
  CHECK(lbs.running == 0);

  REQUIRE(h.put(kubeprism_config(7445, {"198.51.100.10", "198.51.100.11"})).ok());
  CHECK(lbs.running == 1);
  CHECK(lbs.last->options.health_check == controllers::HealthCheck::kHttpsReadyz);  // as the controller was told
  CHECK(lbs.upstreams == std::vector<std::string>{"198.51.100.10:6443", "198.51.100.11:6443"});
  const Pointer status{kK8sNamespace, kKubePrismStatusType, std::string(kKubePrismStatusId)};
  CHECK(h.expect(status, [](const ResourcePtr& r) {
    auto s = resource_cast<KubePrismStatusesSpec>(r);
    return s->spec().host() == "127.0.0.1:7445" && !s->spec().healthy();
  }).ok());
  CHECK(h.expect_count({kK8sNamespace, kKubePrismUpstreamType}, 2).ok());

  // The balancer's checks pass: the statuses follow within a second.
  lbs.last->set.check_passed("198.51.100.11:6443", 420us);
  lbs.last->set.check_passed("198.51.100.11:6443", 420us);
  h.advance(1s);
  h.run_until_idle();
  CHECK(h.expect(status, [](const ResourcePtr& r) { return resource_cast<KubePrismStatusesSpec>(r)->spec().healthy(); }).ok());
  CHECK(h.expect({kK8sNamespace, kKubePrismUpstreamType, "198.51.100.11:6443"}, [](const ResourcePtr& r) {
    auto s = resource_cast<KubePrismUpstreamSpec>(r);
    return s->spec().healthy() && s->spec().latency() == "0.42ms" && s->spec().score() == 2 && s->spec().port() == 6443;
  }).ok());

  // Members change: new upstreams, the same balancer (its connections stay).
  REQUIRE(h.put(kubeprism_config(7445, {"198.51.100.10", "198.51.100.11", "198.51.100.12"})).ok());
  CHECK(lbs.started == 1);
  CHECK(lbs.upstreams.size() == 3);
  // Another port: a new balancer.
  REQUIRE(h.put(kubeprism_config(7446, {"198.51.100.10"})).ok());
  CHECK(lbs.started == 2);
  CHECK(lbs.running == 1);
  // Off: stopped, statuses gone.
  REQUIRE(h.remove({kK8sNamespace, kKubePrismConfigType, std::string(kKubePrismConfigId)}).ok());
  CHECK(lbs.running == 0);
  CHECK(h.expect_absent(status).ok());
  CHECK(h.expect_count({kK8sNamespace, kKubePrismUpstreamType}, 0).ok());
}

TEST_CASE("KubePrism: a service machined runs, stopped, started and restarted as the API asks", "[kubeprism][services]") {
  FakeBalancers lbs;
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::KubePrismController>(controllers::HealthCheck::kTcpConnect, lbs.factory())).ok());
  REQUIRE(h.start().ok());
  REQUIRE(h.put(kubeprism_config(7445, {"198.51.100.10"})).ok());
  const Pointer service{kRuntimeNamespace, kServiceType, "kubeprism"};
  CHECK(h.expect(service, [](const ResourcePtr& r) { return resource_cast<ServiceSpec>(r)->spec().running(); }).ok());

  auto request = [&](bool stopped, uint64_t restarts) {
    ServiceRequestSpec s;
    s.set_stopped(stopped);
    s.set_restarts(restarts);
    REQUIRE(h.put(make_resource(Metadata(kRuntimeNamespace, kServiceRequestType, "kubeprism"), s)).ok());
    h.run_until_idle();
  };
  request(true, 0);
  CHECK(lbs.running == 0);
  CHECK(h.expect(service, [](const ResourcePtr& r) { return !resource_cast<ServiceSpec>(r)->spec().running(); }).ok());
  CHECK(h.expect_absent({kK8sNamespace, kKubePrismStatusType, std::string(kKubePrismStatusId)}).ok());

  request(false, 0);
  CHECK(lbs.running == 1);
  CHECK(lbs.started == 2);
  CHECK(lbs.upstreams == std::vector<std::string>{"198.51.100.10:6443"});

  request(false, 1);
  CHECK(lbs.started == 3);  // a new balancer on the same address
  CHECK(lbs.running == 1);
  h.advance(1s);
  h.run_until_idle();
  CHECK(lbs.started == 3);  // once per restart asked
}

}  // namespace
}  // namespace cosi::testing
