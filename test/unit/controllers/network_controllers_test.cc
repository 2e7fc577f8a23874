// The network controllers on the test harness: links and addresses read from a fake kernel
// (test/unit/controllers/fake_kernel.h), addresses applied to it, the node's own addresses, the
// VIP operators a config asks for. The VIP operator itself is in vip_operator_test.cc; the real
// kernel is in test/integration/netlink_test.cc.
#include <catch2/catch.hpp>

#include <linux/if.h>
#include <net/if_arp.h>
#include <sys/socket.h>

#include "controllers/network/address_spec_controller.h"
#include "controllers/network/address_status_controller.h"
#include "controllers/network/addressing.h"
#include "controllers/network/link_status_controller.h"
#include "controllers/network/node_address_controller.h"
#include "controllers/network/operator_config_controller.h"
#include "resources/common/ip.h"
#include "resources/config/config_resources.h"
#include "resources/config/machine_config.h"
#include "runtime/base/base64.h"
#include "resources/network/network_resources.h"
#include "runtime/testing/harness.h"
#include "test/unit/controllers/fake_kernel.h"

namespace cosi::testing {
namespace {

using namespace cosi::resources;
using namespace std::chrono_literals;
using controllers::KernelAddress;
using controllers::KernelLink;
namespace enums = ::talos::resource::definitions::enums;

const std::string kMac("\x52\x54\x00\x12\x34\x56", 6);

std::string ip(const std::string& text) { return *resources::ip_bytes(text); }

KernelLink eth0(std::string kind = "veth") {
  return {.index = 2, .name = "eth0", .type = ARPHRD_ETHER, .kind = std::move(kind), .flags = IFF_UP | IFF_BROADCAST | IFF_LOWER_UP,
          .mtu = 1500, .operational_state = 6 /* IF_OPER_UP */, .queue_disc = "noqueue", .hardware_addr = kMac,
          .broadcast_addr = std::string(6, '\xff')};
}

KernelLink lo() {
  return {.index = 1, .name = "lo", .type = ARPHRD_LOOPBACK, .flags = IFF_UP | IFF_LOOPBACK | IFF_LOWER_UP, .mtu = 65536,
          .hardware_addr = std::string(6, '\0')};
}

KernelAddress address(uint32_t link, const std::string& text, int bits, int scope = 0) {
  const auto bytes = ip(text);
  return {.link_index = link, .family = bytes.size() == 4 ? AF_INET : AF_INET6, .address = bytes, .prefix_length = bits,
          .local = bytes.size() == 4 ? bytes : "", .scope = scope};
}

std::string yaml_of(const ResourcePtr& r) {
  std::string proto, yaml;
  REQUIRE(r->encode_spec(&proto, &yaml));
  return yaml;
}

TEST_CASE("LinkStatusController: the kernel's links as Talos's LinkStatuses, followed as they change", "[network]") {
  FakeKernel kernel;
  kernel.link_list = {lo(), eth0()};
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::LinkStatusController>(kernel)).ok());
  REQUIRE(h.start().ok());

  const Pointer eth{kNetworkNamespace, kLinkStatusType, "eth0"};
  CHECK(h.expect(eth, [](const ResourcePtr& r) {
    const auto yaml = yaml_of(r);
    INFO(yaml);
    return yaml.find("type: ether\n") != std::string::npos && yaml.find("hardwareAddr: 52:54:00:12:34:56\n") != std::string::npos &&
           yaml.find("flags: UP,BROADCAST,LOWER_UP\n") != std::string::npos && yaml.find("kind: veth\n") != std::string::npos &&
           yaml.find("operationalState: up\n") != std::string::npos && yaml.find("linkState: true\n") != std::string::npos;
  }).ok());
  CHECK(h.expect({kNetworkNamespace, kLinkStatusType, "lo"}, [](const ResourcePtr& r) {
    return yaml_of(r).find("type: loopback\n") != std::string::npos;
  }).ok());

  kernel.link_list = {lo()};
  kernel.change();
  h.run_until_idle();
  CHECK(h.expect_absent(eth).ok());
}

TEST_CASE("AddressStatusController: the kernel's addresses, named <link>/<ip>/<bits>", "[network]") {
  FakeKernel kernel;
  kernel.link_list = {lo(), eth0()};
  kernel.address_list = {address(1, "127.0.0.1", 8, 254), address(2, "198.51.100.10", 27)};
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::AddressStatusController>(kernel)).ok());
  REQUIRE(h.start().ok());

  CHECK(h.expect({kNetworkNamespace, kAddressStatusType, "eth0/198.51.100.10/27"}, [](const ResourcePtr& r) {
    auto s = resource_cast<AddressStatusSpec>(r);
    return s && s->spec().link_name() == "eth0" && s->spec().link_index() == 2 && s->spec().family() == enums::FAMILY_INET4 &&
           resources::ip_text(s->spec().local().ip()) == "198.51.100.10";
  }).ok());
  CHECK(h.expect({kNetworkNamespace, kAddressStatusType, "lo/127.0.0.1/8"}).ok());

  kernel.address_list.push_back(address(2, "198.51.100.5", 32));
  kernel.change();
  h.run_until_idle();
  CHECK(h.expect({kNetworkNamespace, kAddressStatusType, "eth0/198.51.100.5/32"}).ok());
  kernel.address_list.pop_back();
  kernel.change();
  h.run_until_idle();
  CHECK(h.expect_absent({kNetworkNamespace, kAddressStatusType, "eth0/198.51.100.5/32"}).ok());
}

MutableResourcePtr address_status(const std::string& link, const std::string& text, int bits, enums::NethelpersScope scope) {
  AddressStatusSpec s;
  s.mutable_address()->set_ip(ip(text));
  s.mutable_address()->set_prefix_length(bits);
  s.set_link_name(link);
  s.set_link_index(link == "lo" ? 1 : 2);
  s.set_scope(scope);
  return make_resource(Metadata(kNetworkNamespace, kAddressStatusType, link + "/" + text + "/" + std::to_string(bits)), s);
}

MutableResourcePtr vip_operator(const std::string& link, const std::string& vip) {
  OperatorSpecSpec s;
  s.set_operator_(enums::OPERATOR_VIP);
  s.set_link_name(link);
  s.mutable_vip()->mutable_ip()->set_ip(ip(vip));
  return make_resource(Metadata(kNetworkNamespace, kOperatorSpecType, "vip/" + link + "/" + vip), s);
}

TEST_CASE("NodeAddressController: the node's global addresses, never loopback, link-local or a shared VIP", "[network]") {
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::NodeAddressController>()).ok());
  REQUIRE(h.start().ok());
  const Pointer current{kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)};
  CHECK(h.expect_absent(current).ok());  // no address yet: no NodeAddresses

  REQUIRE(h.put(address_status("lo", "127.0.0.1", 8, enums::SCOPE_HOST)).ok());
  REQUIRE(h.put(address_status("eth0", "fe80::5054:ff:fe12:3456", 64, enums::SCOPE_LINK)).ok());
  REQUIRE(h.put(address_status("eth0", "198.51.100.10", 27, enums::SCOPE_GLOBAL)).ok());
  REQUIRE(h.put(address_status("eth0", "2001:db8::10", 64, enums::SCOPE_GLOBAL)).ok());
  REQUIRE(h.put(address_status("eth0", "198.51.100.5", 32, enums::SCOPE_GLOBAL)).ok());
  REQUIRE(h.put(vip_operator("eth0", "198.51.100.5")).ok());
  CHECK(h.expect(current, [](const ResourcePtr& r) {
    auto s = resource_cast<NodeAddressSpec>(r);
    return s && s->spec().addresses_size() == 2 && resources::ip_text(s->spec().addresses(0).ip()) == "198.51.100.10" &&
           s->spec().addresses(0).prefix_length() == 27 && resources::ip_text(s->spec().addresses(1).ip()) == "2001:db8::10";
  }).ok());
}

std::string pem(const char* label) {
  return base64_encode(std::string("-----BEGIN ") + label + "-----\nMIIB\n-----END " + label + "-----\n");
}

MutableResourcePtr machine_config(const std::string& type, const std::string& interfaces) {
  const bool cp = type == "controlplane";
  const std::string text = "version: v1alpha1\nmachine:\n  type: " + type + "\n  token: abcdef.0123456789abcdef\n  ca:\n    crt: " +
                           pem("CERTIFICATE") + "\n" + (cp ? "    key: " + pem("PRIVATE KEY") + "\n" : "") +
                           "  network:\n    interfaces:\n" + interfaces +
                           "cluster:\n  id: cluster-id-1\n  clusterName: demo\n  secret: " + base64_encode(std::string(32, 's')) +
                           "\n  controlPlane:\n    endpoint: https://198.51.100.5:6443\n" +
                           (cp ? "  etcd:\n    ca:\n      crt: " + pem("CERTIFICATE") + "\n      key: " + pem("EC PRIVATE KEY") + "\n" : "");
  auto parsed = config::parse_machine_config(text);
  INFO((parsed.ok() ? std::string() : parsed.error().message()));
  REQUIRE(parsed.ok());
  MachineConfigSpec spec;
  spec.set_document(text);
  return make_resource(Metadata(kConfigNamespace, kMachineConfigType, std::string(kMachineConfigId)), spec);
}

MutableResourcePtr link_status(const KernelLink& l) {
  LinkStatusSpec s;
  s.set_index(l.index);
  s.set_type(static_cast<enums::NethelpersLinkType>(l.type));
  s.set_kind(l.kind);
  s.set_hardware_addr(l.hardware_addr);
  return make_resource(Metadata(kNetworkNamespace, kLinkStatusType, l.name), s);
}

TEST_CASE("OperatorConfigController: a VIP operator per interface with vip.ip, on the link it names", "[network]") {
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::OperatorConfigController>()).ok());
  REQUIRE(h.start().ok());
  REQUIRE(h.put(link_status(lo())).ok());
  REQUIRE(h.put(link_status(eth0("veth"))).ok());
  const Pointer by_name{kNetworkNamespace, kOperatorSpecType, "vip/eth0/198.51.100.5"};

  SECTION("by interface name") {
    REQUIRE(h.put(machine_config("controlplane", "      - interface: eth0\n        vip:\n          ip: 198.51.100.5\n")).ok());
    CHECK(h.expect(by_name, [](const ResourcePtr& r) {
      auto s = resource_cast<OperatorSpecSpec>(r);
      return s && s->spec().operator_() == enums::OPERATOR_VIP && s->spec().link_name() == "eth0" &&
             resources::ip_text(s->spec().vip().ip().ip()) == "198.51.100.5" && s->spec().vip().gratuitous_arp() &&
             s->spec().config_layer() == enums::CONFIG_MACHINE_CONFIGURATION;
    }).ok());
  }
  SECTION("by hardware address glob") {
    REQUIRE(h.put(machine_config("controlplane", "      - deviceSelector:\n          hardwareAddr: '52:54:00:*'\n        vip:\n          ip: 198.51.100.5\n")).ok());
    CHECK(h.expect(by_name).ok());
  }
  SECTION("physical: true matches an Ethernet device that is not virtual, as Talos has it") {
    REQUIRE(h.put(machine_config("controlplane", "      - deviceSelector:\n          physical: true\n        vip:\n          ip: 198.51.100.5\n")).ok());
    CHECK(h.expect_count({kNetworkNamespace, kOperatorSpecType}, 0).ok());  // eth0 is a veth
    REQUIRE(h.put(link_status(eth0(""))).ok());
    CHECK(h.expect(by_name).ok());
  }
  SECTION("no such link: nothing, logged once") {
    REQUIRE(h.put(machine_config("controlplane", "      - interface: eth9\n        vip:\n          ip: 198.51.100.5\n")).ok());
    CHECK(h.expect_count({kNetworkNamespace, kOperatorSpecType}, 0).ok());
    bool logged = false;
    for (const auto& l : h.logs()) logged = logged || l.message.find("no link on this node matches") != std::string::npos;
    CHECK(logged);
  }
  SECTION("workers hold no VIP") {
    REQUIRE(h.put(machine_config("worker", "      - interface: eth0\n        vip:\n          ip: 198.51.100.5\n")).ok());
    CHECK(h.expect_count({kNetworkNamespace, kOperatorSpecType}, 0).ok());
  }
}

MutableResourcePtr address_spec(const std::string& text, int bits, std::optional<SteadyTime> valid_until, bool announce = true) {
  AddressSpecSpec s;
  s.mutable_address()->set_ip(ip(text));
  s.mutable_address()->set_prefix_length(bits);
  s.set_link_name("eth0");
  s.set_family(enums::FAMILY_INET4);
  s.set_announce_with_arp(announce);
  auto r = make_resource(Metadata(kNetworkNamespace, kAddressSpecType, "eth0/" + text + "/" + std::to_string(bits)), s);
  if (valid_until) r->mutable_metadata().mutable_annotations().set(controllers::kValidUntilAnnotation, controllers::valid_until_text(*valid_until));
  return r;
}

TEST_CASE("AddressSpecController: adds what is asked for, with a lifetime that ends by valid-until, and announces it", "[network]") {
  FakeKernel kernel;
  kernel.link_list = {lo(), eth0()};
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::AddressSpecController>(kernel)).ok());
  REQUIRE(h.start().ok());
  REQUIRE(h.put(link_status(eth0())).ok());
  const auto vip = address(2, "198.51.100.5", 32);

  REQUIRE(h.put(address_spec("198.51.100.5", 32, h.clock().now() + 1500ms)).ok());
  REQUIRE(kernel.adds.size() == 1);
  CHECK(kernel.adds[0].address.same(vip));
  CHECK(kernel.adds[0].lifetime == std::chrono::seconds(1));  // 1.5 s left, rounded down
  // Announced at once, then at +250 ms, +500 ms and +1 s.
  REQUIRE(kernel.announcements.size() == 1);
  CHECK(kernel.announcements[0].link_index == 2);
  CHECK(kernel.announcements[0].ip == ip("198.51.100.5"));
  h.advance(250ms);
  h.run_until_idle();
  CHECK(kernel.announcements.size() == 2);
  h.advance(250ms);
  h.run_until_idle();
  CHECK(kernel.announcements.size() == 3);

  // A refresh (the holder's keep-alive got through): the lifetime again, no new announcement.
  REQUIRE(h.put(address_spec("198.51.100.5", 32, h.clock().now() + 1500ms)).ok());
  REQUIRE(kernel.adds.size() == 2);
  CHECK(kernel.adds[1].lifetime == std::chrono::seconds(1));
  h.advance(500ms);
  h.run_until_idle();
  CHECK(kernel.announcements.size() == 4);
  h.advance(5s);
  h.run_until_idle();
  CHECK(kernel.announcements.size() == 4);

  // No longer asked for: removed.
  REQUIRE(h.remove({kNetworkNamespace, kAddressSpecType, "eth0/198.51.100.5/32"}).ok());
  REQUIRE(kernel.removes.size() == 1);
  CHECK(kernel.removes[0].same(vip));
  CHECK_FALSE(kernel.has(vip));
}

TEST_CASE("AddressSpecController: never adds with less than a second left, and leaves others' addresses alone", "[network]") {
  FakeKernel kernel;
  kernel.link_list = {lo(), eth0()};
  kernel.address_list = {address(2, "198.51.100.10", 27)};  // the node's own: not ours
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::AddressSpecController>(kernel)).ok());
  REQUIRE(h.start().ok());
  REQUIRE(h.put(link_status(eth0())).ok());

  REQUIRE(h.put(address_spec("198.51.100.5", 32, h.clock().now() + 900ms)).ok());
  CHECK(kernel.adds.empty());
  REQUIRE(h.put(address_spec("198.51.100.5", 32, h.clock().now() - 1s)).ok());
  CHECK(kernel.adds.empty());
  CHECK(kernel.announcements.empty());

  // A spec for an address someone else put there: not touched, not even when the spec goes.
  REQUIRE(h.put(address_spec("198.51.100.10", 27, std::nullopt)).ok());
  CHECK(kernel.adds.empty());
  REQUIRE(h.remove({kNetworkNamespace, kAddressSpecType, "eth0/198.51.100.10/27"}).ok());
  CHECK(kernel.removes.empty());
  CHECK(kernel.has(address(2, "198.51.100.10", 27)));

  // No valid-until: permanent.
  REQUIRE(h.put(address_spec("198.51.100.6", 32, std::nullopt, false)).ok());
  REQUIRE(kernel.adds.size() == 1);
  CHECK_FALSE(kernel.adds[0].lifetime.has_value());
  CHECK(kernel.announcements.empty());
}

TEST_CASE("AddressSpecController: an address the kernel dropped (its lifetime ran out) is added again only with time left", "[network]") {
  FakeKernel kernel;
  kernel.link_list = {lo(), eth0()};
  Harness h;
  REQUIRE(h.add(std::make_unique<controllers::AddressSpecController>(kernel)).ok());
  REQUIRE(h.start().ok());
  REQUIRE(h.put(link_status(eth0())).ok());
  const auto vip = address(2, "198.51.100.5", 32);
  const auto until = h.clock().now() + 1500ms;
  REQUIRE(h.put(address_spec("198.51.100.5", 32, until)).ok());
  REQUIRE(kernel.adds.size() == 1);

  // The process froze; the kernel removed the address; now it runs again with the old spec.
  h.advance(1200ms);
  kernel.address_list.clear();
  kernel.change();
  REQUIRE(h.put(address_status("eth0", "10.0.0.1", 8, enums::SCOPE_GLOBAL)).ok());  // any address change wakes it
  CHECK(kernel.adds.size() == 1);
  CHECK_FALSE(kernel.has(vip));
}

}  // namespace
}  // namespace cosi::testing
