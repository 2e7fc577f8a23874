// The cluster controllers on the test harness (the real store and runtime, a manual clock, no
// threads): what each derives from the machine config, the discovery controller against a
// fake client, the merge into Affiliates, Members and the control-plane Endpoints.
#include <catch2/catch.hpp>

#include <mutex>

#include "controllers/cluster/affiliate_merge_controller.h"
#include "controllers/cluster/control_plane_endpoints_controller.h"
#include "controllers/cluster/discovery_config_controller.h"
#include "controllers/cluster/discovery_service_controller.h"
#include "controllers/cluster/identity_controller.h"
#include "controllers/cluster/info_controller.h"
#include "controllers/cluster/local_affiliate_controller.h"
#include "controllers/cluster/member_controller.h"
#include "controllers/network/node_identity_controller.h"
#include "resources/cluster/cluster_resources.h"
#include "resources/config/config_resources.h"
#include "resources/config/machine_config.h"
#include "resources/k8s/k8s_resources.h"
#include "resources/network/network_resources.h"
#include "runtime/base/base64.h"
#include "runtime/testing/harness.h"

namespace cosi::testing {
namespace {

using namespace cosi::resources;
using namespace std::chrono_literals;
using controllers::DiscoveryClient;
using controllers::DiscoveryClientOptions;
using controllers::DiscoveryPeer;
using MT = ::talos::resource::definitions::enums::MachineType;

const std::string kSecret(32, 's');

std::string pem(const char* label) {
  return base64_encode(std::string("-----BEGIN ") + label + "-----\nMIIB\n-----END " + label + "-----\n");
}

std::string config(const std::string& type, const std::string& discovery_endpoint, const std::string& hostname = "") {
  return "version: v1alpha1\nmachine:\n  type: " + type + "\n  token: abcdef.0123456789abcdef\n  ca:\n    crt: " +
         pem("CERTIFICATE") + "\n" + (type == "controlplane" ? "    key: " + pem("PRIVATE KEY") + "\n" : "") + (hostname.empty() ? "" : "  network:\n    hostname: " + hostname + "\n") +
         "cluster:\n  id: cluster-id-1\n  clusterName: demo\n  secret: " + base64_encode(kSecret) +
         "\n  controlPlane:\n    endpoint: https://127.5.0.10:6443\n" +
         (type == "controlplane" ? "  etcd:\n    ca:\n      crt: " + pem("CERTIFICATE") + "\n      key: " + pem("EC PRIVATE KEY") + "\n" : "") +
         "  discovery:\n    enabled: true\n" +
         (discovery_endpoint.empty() ? "" : "    registries:\n      service:\n        endpoint: " + discovery_endpoint + "\n");
}

MutableResourcePtr machine_config(const std::string& text) {
  auto parsed = config::parse_machine_config(text);
  INFO((parsed.ok() ? std::string() : parsed.error().message()));
  REQUIRE(parsed.ok());
  MachineConfigSpec spec;
  spec.set_document(text);
  return make_resource(Metadata(kConfigNamespace, kMachineConfigType, std::string(kMachineConfigId)), spec);
}

MutableResourcePtr identity(const std::string& id) {
  IdentitySpec spec;
  spec.set_node_id(id);
  return make_resource(Metadata(kClusterNamespace, kIdentityType, std::string(kLocalIdentityId)), spec);
}

AffiliateSpec affiliate(const std::string& id, const std::string& name, MT type, std::string ip) {
  AffiliateSpec a;
  a.set_node_id(id);
  a.set_hostname(name);
  a.set_nodename(name);
  a.set_machine_type(type);
  a.set_operating_system("cosi-cpp (v0.1.0)");
  a.add_addresses()->set_ip(std::move(ip));
  if (type == MT::TYPE_CONTROL_PLANE) a.mutable_control_plane()->set_api_server_port(6443);
  return a;
}

template <class Spec>
Spec spec_of(Harness& h, const Pointer& p) {
  auto r = h.store().get(p);
  REQUIRE(r.ok());
  auto typed = resource_cast<Spec>(*r);
  REQUIRE(typed);
  return typed->spec();
}

// What the discovery controller made of the service: options, the published affiliate, peers.
struct FakeService {
  std::mutex mu;
  std::vector<DiscoveryClientOptions> made;
  int alive = 0;
  std::optional<AffiliateSpec> published;
  std::vector<DiscoveryPeer> peers;
  bool left = false;

  void set_peers(std::vector<DiscoveryPeer> p) {
    std::function<void()> wake;
    {
      std::lock_guard lock(mu);
      REQUIRE_FALSE(made.empty());
      peers = std::move(p);
      wake = made.back().on_change;
    }
    wake();  // as the client's thread would
  }
};

class FakeClient final : public DiscoveryClient {
 public:
  explicit FakeClient(FakeService& s) : s_(s) { ++s_.alive; }
  ~FakeClient() override { --s_.alive; }
  void publish(const AffiliateSpec& local) override {
    std::lock_guard lock(s_.mu);
    s_.published = local;
  }
  Status leave(std::chrono::milliseconds) override {
    std::lock_guard lock(s_.mu);
    s_.left = true;
    return {};
  }
  std::vector<DiscoveryPeer> peers() const override {
    std::lock_guard lock(s_.mu);
    return s_.peers;
  }

 private:
  FakeService& s_;
};

// A node's controllers with a fake discovery service.
struct Node {
  explicit Node(FakeService& service) {
    REQUIRE(h.add(std::make_unique<controllers::NodeIdentityController>(
                      controllers::NodeIdentity{"flag-hostname", {"127.5.0.10/32"}}))
                .ok());
    REQUIRE(h.add(std::make_unique<controllers::InfoController>()).ok());
    REQUIRE(h.add(std::make_unique<controllers::DiscoveryConfigController>()).ok());
    REQUIRE(h.add(std::make_unique<controllers::LocalAffiliateController>()).ok());
    auto discovery = std::make_unique<controllers::DiscoveryServiceController>(
        [&service](DiscoveryClientOptions o) -> Result<std::unique_ptr<DiscoveryClient>> {
          std::lock_guard lock(service.mu);
          service.made.push_back(std::move(o));
          return std::unique_ptr<DiscoveryClient>(std::make_unique<FakeClient>(service));
        },
        7s);
    discovery_controller = discovery.get();
    REQUIRE(h.add(std::move(discovery)).ok());
    REQUIRE(h.add(std::make_unique<controllers::AffiliateMergeController>()).ok());
    REQUIRE(h.add(std::make_unique<controllers::MemberController>()).ok());
    REQUIRE(h.add(std::make_unique<controllers::ControlPlaneEndpointsController>()).ok());
    REQUIRE(h.start().ok());
  }
  Harness h;
  controllers::DiscoveryServiceController* discovery_controller = nullptr;
};

const std::string kIp10("\x7f\x05\x00\x0a", 4), kIp11("\x7f\x05\x00\x0b", 4), kIp12("\x7f\x05\x00\x0c", 4);

TEST_CASE("without a config nothing is derived; with one: Info, DiscoveryConfig, the local affiliate and member", "[cluster]") {
  FakeService service;
  Node n(service);
  REQUIRE(n.h.put(identity("node-a")).ok());
  CHECK(n.h.expect_absent({kClusterNamespace, kInfoType, std::string(kCurrentInfoId)}).ok());
  CHECK(n.h.expect_count({kClusterNamespace, kMemberType}, 0).ok());
  CHECK(service.made.empty());

  REQUIRE(n.h.put(machine_config(config("controlplane", "http://127.5.0.1:3000", "cp-1"))).ok());
  auto info = spec_of<InfoSpec>(n.h, {kClusterNamespace, kInfoType, std::string(kCurrentInfoId)});
  CHECK(info.cluster_id() == "cluster-id-1");
  CHECK(info.cluster_name() == "demo");
  auto dc = spec_of<DiscoveryConfigSpec>(n.h, {kConfigNamespace, kDiscoveryConfigType, std::string(kDiscoveryConfigId)});
  CHECK(dc.discovery_enabled());
  CHECK(dc.registry_service_enabled());
  CHECK(dc.service_endpoint() == "http://127.5.0.1:3000");
  CHECK(dc.service_encryption_key() == kSecret);
  CHECK(dc.service_cluster_id() == "cluster-id-1");
  // The config's hostname wins over the flag's.
  CHECK(spec_of<HostnameStatusSpec>(n.h, {kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)}).hostname() == "cp-1");
  auto local = spec_of<AffiliateSpec>(n.h, {kClusterNamespace, kAffiliateType, "node-a"});
  CHECK(local.nodename() == "cp-1");
  CHECK(local.machine_type() == MT::TYPE_CONTROL_PLANE);
  CHECK(local.control_plane().api_server_port() == 6443);
  CHECK(local.addresses(0).ip() == kIp10);
  auto member = spec_of<MemberSpec>(n.h, {kClusterNamespace, kMemberType, "cp-1"});
  CHECK(member.node_id() == "node-a");
  CHECK(member.operating_system() == "cosi-cpp (v0.1.0)");
  auto endpoints = spec_of<EndpointSpec>(n.h, {kControlPlaneNamespace, kEndpointType, std::string(kDiscoveredEndpointsId)});
  REQUIRE(endpoints.addresses_size() == 1);
  CHECK(endpoints.addresses(0).ip() == kIp10);

  // The discovery client got the config and publishes the local affiliate.
  REQUIRE(service.made.size() == 1);
  CHECK(service.made[0].endpoint == "http://127.5.0.1:3000");
  CHECK(service.made[0].secret == kSecret);
  CHECK(service.made[0].affiliate_id == "node-a");
  CHECK(service.made[0].ttl == 7s);
  REQUIRE(service.published);
  CHECK(service.published->nodename() == "cp-1");
}

TEST_CASE("no discovery endpoint in the config: no client, ever", "[cluster]") {
  FakeService service;
  Node n(service);
  REQUIRE(n.h.put(identity("node-a")).ok());
  REQUIRE(n.h.put(machine_config(config("worker", ""))).ok());
  CHECK_FALSE(spec_of<DiscoveryConfigSpec>(n.h, {kConfigNamespace, kDiscoveryConfigType, std::string(kDiscoveryConfigId)})
                  .registry_service_enabled());
  CHECK(service.made.empty());
  CHECK(n.h.expect({kClusterNamespace, kMemberType, "flag-hostname"}).ok());  // itself only
}

TEST_CASE("peers from the service become raw affiliates, merged affiliates, members and endpoints", "[cluster]") {
  FakeService service;
  Node n(service);
  REQUIRE(n.h.put(identity("node-a")).ok());
  REQUIRE(n.h.put(machine_config(config("controlplane", "http://127.5.0.1:3000", "cp-1"))).ok());
  service.set_peers({{"node-b", affiliate("node-b", "cp-2", MT::TYPE_CONTROL_PLANE, kIp11)},
                     {"node-c", affiliate("node-c", "worker-1", MT::TYPE_WORKER, kIp12)},
                     {"node-a", affiliate("node-a", "echo", MT::TYPE_WORKER, kIp12)}});  // our own, echoed
  n.h.run_until_idle();
  CHECK(n.h.expect({kClusterRawNamespace, kAffiliateType, "service/node-b"}).ok());
  CHECK(n.h.expect_count({kClusterNamespace, kAffiliateType}, 3).ok());
  CHECK(spec_of<AffiliateSpec>(n.h, {kClusterNamespace, kAffiliateType, "node-a"}).nodename() == "cp-1");  // local wins
  CHECK(n.h.expect_count({kClusterNamespace, kMemberType}, 3).ok());
  CHECK(spec_of<MemberSpec>(n.h, {kClusterNamespace, kMemberType, "worker-1"}).machine_type() == MT::TYPE_WORKER);
  auto endpoints = spec_of<EndpointSpec>(n.h, {kControlPlaneNamespace, kEndpointType, std::string(kDiscoveredEndpointsId)});
  REQUIRE(endpoints.addresses_size() == 2);
  CHECK(endpoints.addresses(0).ip() == kIp10);
  CHECK(endpoints.addresses(1).ip() == kIp11);

  // A peer leaves: gone from every layer.
  service.set_peers({{"node-b", affiliate("node-b", "cp-2", MT::TYPE_CONTROL_PLANE, kIp11)}});
  n.h.run_until_idle();
  CHECK(n.h.expect_absent({kClusterRawNamespace, kAffiliateType, "service/node-c"}).ok());
  CHECK(n.h.expect_absent({kClusterNamespace, kAffiliateType, "node-c"}).ok());
  CHECK(n.h.expect_absent({kClusterNamespace, kMemberType, "worker-1"}).ok());
}

TEST_CASE("a node re-installed with a new identity and the same name replaces its member", "[cluster]") {
  FakeService service;
  Node n(service);
  REQUIRE(n.h.put(identity("node-a")).ok());
  REQUIRE(n.h.put(machine_config(config("controlplane", "http://127.5.0.1:3000", "cp-1"))).ok());
  auto old_record = affiliate("old-id", "worker-1", MT::TYPE_WORKER, kIp12);
  service.set_peers({{"old-id", old_record}});
  n.h.run_until_idle();
  CHECK(spec_of<MemberSpec>(n.h, {kClusterNamespace, kMemberType, "worker-1"}).node_id() == "old-id");
  // The re-installed node publishes under a new id; the old record waits out its TTL.
  service.set_peers({{"new-id", affiliate("new-id", "worker-1", MT::TYPE_WORKER, kIp11)}, {"old-id", old_record}});
  n.h.run_until_idle();
  CHECK(n.h.expect_count({kClusterNamespace, kMemberType}, 2).ok());  // cp-1 and worker-1, once
  auto member = spec_of<MemberSpec>(n.h, {kClusterNamespace, kMemberType, "worker-1"});
  CHECK(member.node_id() == "new-id");
  CHECK(member.addresses(0).ip() == kIp11);
  // A peer's record naming this node cannot take its member.
  service.set_peers({{"impostor", affiliate("impostor", "cp-1", MT::TYPE_WORKER, kIp12)}});
  n.h.run_until_idle();
  CHECK(spec_of<MemberSpec>(n.h, {kClusterNamespace, kMemberType, "cp-1"}).node_id() == "node-a");
}

TEST_CASE("a changed endpoint or secret makes a new client; discovery disabled or leave stops it", "[cluster]") {
  FakeService service;
  Node n(service);
  REQUIRE(n.h.put(identity("node-a")).ok());
  REQUIRE(n.h.put(machine_config(config("controlplane", "http://127.5.0.1:3000"))).ok());
  REQUIRE(service.made.size() == 1);
  REQUIRE(n.h.put(machine_config(config("controlplane", "http://127.5.0.2:3000"))).ok());
  REQUIRE(service.made.size() == 2);
  CHECK(service.alive == 1);
  CHECK(service.made[1].endpoint == "http://127.5.0.2:3000");
  service.set_peers({{"node-b", affiliate("node-b", "cp-2", MT::TYPE_CONTROL_PLANE, kIp11)}});
  n.h.run_until_idle();
  CHECK(n.h.expect({kClusterRawNamespace, kAffiliateType, "service/node-b"}).ok());

  REQUIRE(n.h.put(machine_config(config("controlplane", ""))).ok());  // no endpoint any more
  CHECK(service.alive == 0);
  CHECK(n.h.expect_absent({kClusterRawNamespace, kAffiliateType, "service/node-b"}).ok());
  CHECK(n.h.expect_absent({kClusterNamespace, kMemberType, "cp-2"}).ok());

  REQUIRE(n.h.put(machine_config(config("controlplane", "http://127.5.0.1:3000"))).ok());
  CHECK(service.alive == 1);
  REQUIRE(n.discovery_controller->leave(1s).ok());
  CHECK(service.left);
  CHECK(service.alive == 0);
  n.h.run_until_idle();
  CHECK(service.alive == 0);  // and it stays stopped
  CHECK(n.discovery_controller->leave(1s).error().kind() == ErrorKind::kFailedPrecondition);
}

TEST_CASE("the node's identity is published as given", "[cluster]") {
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::IdentityController>("Gq7xXkZ0node")).ok());
  REQUIRE(h.start().ok());
  h.run_until_idle();
  CHECK(spec_of<IdentitySpec>(h, {kClusterNamespace, kIdentityType, std::string(kLocalIdentityId)}).node_id() == "Gq7xXkZ0node");
}

}  // namespace
}  // namespace cosi::testing
