// The VIP operator on the test harness against a fake election: when it campaigns, what it
// asks the kernel for while it leads (and until when), that it lets go when its lease can no
// longer be trusted, and that letting go on purpose drops the address before it resigns. No
// threads, no sleeps: the election's state is set by hand and time is the manual clock. The
// election in etcd is in test/integration/vip_election_test.cc.
#include <catch2/catch.hpp>

#include "controllers/network/addressing.h"
#include "controllers/network/vip_operator_controller.h"
#include "resources/common/ip.h"
#include "resources/etcd/etcd_resources.h"
#include "resources/network/network_resources.h"
#include "resources/secrets/secrets_resources.h"
#include "resources/v1alpha1/v1alpha1_resources.h"
#include "runtime/testing/harness.h"

namespace cosi::testing {
namespace {

using namespace cosi::resources;
using namespace std::chrono_literals;
namespace enums = ::talos::resource::definitions::enums;

// The campaigns the operator started, and what their holder is told.
struct Elections {
  struct Fake final : controllers::VipElection {
    explicit Fake(Elections& all) : all(all) {}
    controllers::VipElectionState state() const override { return all.state; }
    Status resign(std::chrono::milliseconds) override {
      all.events.push_back(all.address_on_link() ? "resign while the address is on the link" : "resign");
      return {};
    }
    Elections& all;
  };

  controllers::VipElectionFactory factory() {
    return [this](controllers::VipElectionOptions o) {
      options.push_back(o);
      return std::make_unique<Fake>(*this);
    };
  }
  // Sets the state all campaigns report and tells the operator, as an election's thread would.
  void set(controllers::VipElectionState s) {
    state = std::move(s);
    for (const auto& o : options) o.on_change();
  }

  std::function<bool()> address_on_link = [] { return false; };
  controllers::VipElectionState state;
  std::vector<controllers::VipElectionOptions> options;
  std::vector<std::string> events;
};

const std::string kVip = "198.51.100.5";
const Pointer kAddress{kNetworkNamespace, kAddressSpecType, "eth0/198.51.100.5/32"};
const Pointer kAddressStatus{kNetworkNamespace, kAddressStatusType, "eth0/198.51.100.5/32"};
const Pointer kStatus{kNetworkNamespace, kVIPStatusType, kVip};

void put_control_plane(Harness& h, bool etcd_healthy) {
  EtcdSpecSpec spec;
  spec.set_name("cp-1");
  spec.add_advertised_addresses()->set_ip(*ip_bytes("198.51.100.10"));
  REQUIRE(h.put(make_resource(Metadata(kEtcdNamespace, kEtcdSpecType, std::string(kEtcdSpecId)), spec)).ok());
  EtcdCertsSpec certs;
  certs.set_ca("ca");
  REQUIRE(h.put(make_resource(Metadata(kSecretsNamespace, kEtcdCertsType, std::string(kEtcdCertsId)), certs)).ok());
  HostnameStatusSpec hostname;
  hostname.set_hostname("cp-1");
  REQUIRE(h.put(make_resource(Metadata(kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)), hostname)).ok());
  ServiceSpec etcd;
  etcd.set_running(true);
  etcd.set_healthy(etcd_healthy);
  REQUIRE(h.put(make_resource(Metadata(kRuntimeNamespace, kServiceType, "etcd"), etcd)).ok());
  OperatorSpecSpec vip;
  vip.set_operator_(enums::OPERATOR_VIP);
  vip.set_link_name("eth0");
  vip.mutable_vip()->mutable_ip()->set_ip(*ip_bytes(kVip));
  vip.mutable_vip()->set_gratuitous_arp(true);
  REQUIRE(h.put(make_resource(Metadata(kNetworkNamespace, kOperatorSpecType, "vip/eth0/" + kVip), vip)).ok());
}

// The kernel's answer to the AddressSpec, as the address controllers would give it.
void put_address_on_link(Harness& h) {
  AddressStatusSpec s;
  s.mutable_address()->set_ip(*ip_bytes(kVip));
  s.mutable_address()->set_prefix_length(32);
  s.set_link_name("eth0");
  REQUIRE(h.put(make_resource(Metadata(kNetworkNamespace, kAddressStatusType, kAddressStatus.id), s)).ok());
}

struct Node {
  Node() {
    auto vip = std::make_unique<controllers::VIPOperatorController>(elections.factory(), controllers::VIPOperatorOptions{.lease_ttl = 2s});
    operator_ = vip.get();
    REQUIRE(h.add(std::move(vip)).ok());
    REQUIRE(h.start().ok());
    elections.address_on_link = [this] { return h.store().get(kAddressStatus).ok(); };
  }
  Harness h;
  Elections elections;
  controllers::VIPOperatorController* operator_ = nullptr;
};

TEST_CASE("VIP operator: campaigns once etcd is healthy, under Talos's key, as this node", "[network][vip]") {
  Node n;
  put_control_plane(n.h, false);
  CHECK(n.elections.options.empty());
  CHECK(n.h.expect(kStatus, [](const ResourcePtr& r) {
    auto s = resource_cast<VIPStatusSpec>(r);
    return s && s->spec().holder().empty() && !s->spec().held_by_this_node() && s->spec().link_name() == "eth0";
  }).ok());

  put_control_plane(n.h, true);
  REQUIRE(n.elections.options.size() == 1);
  const auto& o = n.elections.options[0];
  CHECK(o.key == "talos:v1:vip:election:198.51.100.5");
  CHECK(o.candidate == "cp-1");
  CHECK(o.endpoint == "198.51.100.10:2379");
  CHECK(o.ttl == 2s);
  CHECK(n.h.expect_absent(kAddress).ok());
}

TEST_CASE("VIP operator: holds the address while it leads, only until its lease could run out", "[network][vip]") {
  Node n;
  put_control_plane(n.h, true);
  const auto t0 = n.h.clock().now();

  n.elections.set({.holder = "cp-2", .since = std::chrono::system_clock::now()});
  n.h.run_until_idle();
  CHECK(n.h.expect_absent(kAddress).ok());
  CHECK(n.h.expect(kStatus, [](const ResourcePtr& r) { return resource_cast<VIPStatusSpec>(r)->spec().holder() == "cp-2"; }).ok());

  n.elections.set({.leading = true, .valid_until = t0 + 1500ms, .holder = "cp-1", .since = std::chrono::system_clock::now()});
  n.h.run_until_idle();
  CHECK(n.h.expect(kAddress, [&](const ResourcePtr& r) {
    auto s = resource_cast<AddressSpecSpec>(r);
    const auto until = r->metadata().annotations().get(controllers::kValidUntilAnnotation);
    return s && s->spec().link_name() == "eth0" && s->spec().address().prefix_length() == 32 && s->spec().announce_with_arp() &&
           s->spec().family() == enums::FAMILY_INET4 && s->spec().config_layer() == enums::CONFIG_OPERATOR && until &&
           controllers::parse_valid_until(*until) == t0 + 1500ms;
  }).ok());
  // Held here only once the kernel has it.
  CHECK(n.h.expect(kStatus, [](const ResourcePtr& r) { return !resource_cast<VIPStatusSpec>(r)->spec().held_by_this_node(); }).ok());
  put_address_on_link(n.h);
  CHECK(n.h.expect(kStatus, [](const ResourcePtr& r) {
    auto s = resource_cast<VIPStatusSpec>(r);
    return s->spec().held_by_this_node() && s->spec().holder() == "cp-1";
  }).ok());

  // A keep-alive got through: valid-until moves on.
  n.elections.set({.leading = true, .valid_until = t0 + 2000ms, .holder = "cp-1", .since = n.elections.state.since});
  n.h.run_until_idle();
  CHECK(n.h.expect(kAddress, [&](const ResourcePtr& r) {
    return controllers::parse_valid_until(*r->metadata().annotations().get(controllers::kValidUntilAnnotation)) == t0 + 2000ms;
  }).ok());

  // Then none does (etcd lost quorum, or this member froze): nothing else happens, but at
  // valid-until the operator lets go by itself.
  n.h.advance(1999ms);
  n.h.run_until_idle();
  CHECK(n.h.expect(kAddress).ok());
  n.h.advance(1ms);
  n.h.run_until_idle();
  CHECK(n.h.expect_absent(kAddress).ok());
}

TEST_CASE("VIP operator: stepping down drops the address first, and resigns once the kernel has let it go", "[network][vip]") {
  Node n;
  put_control_plane(n.h, true);
  n.elections.set({.leading = true, .valid_until = n.h.clock().now() + 1500ms, .holder = "cp-1"});
  n.h.run_until_idle();
  put_address_on_link(n.h);
  REQUIRE(n.h.expect(kAddress).ok());

  n.operator_->step_down();
  n.h.run_until_idle();
  CHECK(n.h.expect_absent(kAddress).ok());
  CHECK(n.elections.events.empty());  // the address is still on the link

  REQUIRE(n.h.remove(kAddressStatus).ok());
  CHECK(n.elections.events == std::vector<std::string>{"resign"});
  CHECK(n.operator_->release(0ms).ok());  // nothing left to resign

  // For good: no new campaign, no address, whatever the election says.
  put_control_plane(n.h, true);
  n.elections.set({.leading = true, .valid_until = n.h.clock().now() + 1500ms, .holder = "cp-1"});
  n.h.run_until_idle();
  CHECK(n.h.expect_absent(kAddress).ok());
  CHECK(n.elections.options.size() == 1);
}

TEST_CASE("VIP operator: release with the address stuck on the link does not resign", "[network][vip]") {
  Node n;
  put_control_plane(n.h, true);
  n.elections.set({.leading = true, .valid_until = n.h.clock().now() + 1500ms, .holder = "cp-1"});
  n.h.run_until_idle();
  put_address_on_link(n.h);
  auto released = n.operator_->release(10ms);  // nobody runs the passes here: the address stays
  CHECK(released.error().kind() == ErrorKind::kDeadlineExceeded);
  CHECK(n.elections.events.empty());
}

TEST_CASE("VIP operator: a VIP gone from the config is dropped, then resigned", "[network][vip]") {
  Node n;
  put_control_plane(n.h, true);
  n.elections.set({.leading = true, .valid_until = n.h.clock().now() + 1500ms, .holder = "cp-1"});
  n.h.run_until_idle();
  put_address_on_link(n.h);
  REQUIRE(n.h.remove({kNetworkNamespace, kOperatorSpecType, "vip/eth0/" + kVip}).ok());
  CHECK(n.h.expect_absent(kAddress).ok());
  CHECK(n.h.expect_absent(kStatus).ok());
  CHECK(n.elections.events.empty());
  REQUIRE(n.h.remove(kAddressStatus).ok());
  CHECK(n.elections.events == std::vector<std::string>{"resign"});
}

}  // namespace
}  // namespace cosi::testing
