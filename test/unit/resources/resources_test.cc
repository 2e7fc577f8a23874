// The resource catalog: every definition is valid and round-trips; specs render the YAML
// Talos prints.
#include <arpa/inet.h>

#include <catch2/catch.hpp>

#include "resources/catalog.h"
#include "resources/cluster/cluster_resources.h"
#include "resources/config/config_resources.h"
#include "resources/etcd/etcd_resources.h"
#include "resources/k8s/k8s_resources.h"
#include "resources/network/network_resources.h"
#include "runtime/proto/resource_codec.h"

namespace cosi::resources {
namespace {

std::string ip4(const char* text) {
  std::string bytes(4, '\0');
  inet_pton(AF_INET, text, bytes.data());
  return bytes;
}

std::string ip6(const char* text) {
  std::string bytes(16, '\0');
  inet_pton(AF_INET6, text, bytes.data());
  return bytes;
}

TEST_CASE("every definition is valid, unique and round-trips through the wire", "[resources]") {
  auto defs = definitions();
  REQUIRE(defs.size() == 31);
  std::set<std::string> ids;
  ResourceTypes types;
  register_types(types);
  for (const auto& spec : defs) {
    INFO(spec.type);
    CHECK(ids.insert(spec.id()).second);
    auto r = make_definition_resource(spec);
    cosi::resource::Resource msg;
    REQUIRE(encode_resource(*r, &msg).ok());
    CHECK_FALSE(msg.spec().yaml_spec().empty());
    auto back = decode_resource(msg, types);
    REQUIRE(back.ok());
    CHECK(resource_cast<ResourceDefinitionSpec>(ResourcePtr(*back))->spec() == spec);
    // Every non-meta type decodes typed.
    CHECK(types.knows(spec.type));
  }
  auto member = std::find_if(defs.begin(), defs.end(), [](auto& d) { return d.type == kMemberType; });
  CHECK(member->display_type == "Member");
  CHECK(member->default_namespace == "cluster");
  auto address = std::find_if(defs.begin(), defs.end(), [](auto& d) { return d.type == kAddressStatusType; });
  CHECK(address->aliases == std::vector<std::string>{"address", "addresses", "addressstatus", "as"});
  auto sensitive = std::count_if(defs.begin(), defs.end(), [](auto& d) { return d.sensitivity == Sensitivity::kSensitive; });
  CHECK(sensitive == 5);  // DiscoveryConfigs, OperatorSpecs, MachineConfigs, ApiCertificates
}

TEST_CASE("a member prints as Talos prints it", "[resources][yaml]") {
  MemberSpec m;
  m.set_node_id("7x1SuC8Ege5BGXdAfTEff5iQnlWZLfv9h1LGMxA2pYkC");
  m.add_addresses()->set_ip(ip4("172.20.0.2"));
  m.add_addresses()->set_ip(ip6("fdae:41e4:649b:9303::1"));
  m.set_hostname("talos-default-controlplane-1");
  m.set_machine_type(::talos::resource::definitions::enums::TYPE_CONTROL_PLANE);
  m.set_operating_system("Talos (v1.4.8)");
  m.mutable_control_plane()->set_api_server_port(6443);
  CHECK(SpecTraits<MemberSpec>::yaml(m) ==
        "nodeId: 7x1SuC8Ege5BGXdAfTEff5iQnlWZLfv9h1LGMxA2pYkC\n"
        "addresses:\n"
        "    - 172.20.0.2\n"
        "    - fdae:41e4:649b:9303::1\n"
        "hostname: talos-default-controlplane-1\n"
        "machineType: controlplane\n"
        "operatingSystem: Talos (v1.4.8)\n"
        "controlPlane:\n"
        "    port: 6443\n");

  MemberSpec worker;
  worker.set_hostname("w");
  worker.set_machine_type(::talos::resource::definitions::enums::TYPE_WORKER);
  CHECK(SpecTraits<MemberSpec>::yaml(worker) ==
        "nodeId: \"\"\naddresses: []\nhostname: w\nmachineType: worker\noperatingSystem: \"\"\n");
}

TEST_CASE("addresses, flags, enums and layers print as text", "[resources][yaml]") {
  AddressStatusSpec s;
  s.mutable_address()->set_ip(ip4("172.20.0.2"));
  s.mutable_address()->set_prefix_length(24);
  s.mutable_local()->set_ip(ip4("172.20.0.2"));
  s.mutable_broadcast()->set_ip(ip4("172.20.0.255"));
  s.set_link_index(4);
  s.set_link_name("eth0");
  s.set_family(::talos::resource::definitions::enums::FAMILY_INET4);
  s.set_scope(::talos::resource::definitions::enums::SCOPE_GLOBAL);
  s.set_flags(128);
  CHECK(SpecTraits<AddressStatusSpec>::yaml(s) ==
        "address: 172.20.0.2/24\n"
        "local: 172.20.0.2\n"
        "broadcast: 172.20.0.255\n"
        "linkIndex: 4\n"
        "linkName: eth0\n"
        "family: inet4\n"
        "scope: global\n"
        "flags: permanent\n"
        "priority: 0\n");

  AddressSpecSpec a;
  a.mutable_address()->set_ip(ip4("192.0.2.10"));
  a.mutable_address()->set_prefix_length(32);
  a.set_link_name("eth0");
  a.set_family(::talos::resource::definitions::enums::FAMILY_INET4);
  a.set_scope(::talos::resource::definitions::enums::SCOPE_GLOBAL);
  a.set_flags(128 | 2);
  a.set_announce_with_arp(true);
  a.set_config_layer(::talos::resource::definitions::enums::CONFIG_OPERATOR);
  CHECK(SpecTraits<AddressSpecSpec>::yaml(a) ==
        "address: 192.0.2.10/32\nlinkName: eth0\nfamily: inet4\nscope: global\nflags: nodad,permanent\n"
        "announceWithARP: true\nlayer: operator\npriority: 0\n");
}

TEST_CASE("lists of messages and maps print like yaml.v3", "[resources][yaml]") {
  KubePrismEndpointsSpec e;
  auto* ep = e.add_endpoints();
  ep->set_host("172.20.0.2");
  ep->set_port(6443);
  ep = e.add_endpoints();
  ep->set_host("localhost");
  ep->set_port(6443);
  CHECK(SpecTraits<KubePrismEndpointsSpec>::yaml(e) ==
        "endpoints:\n"
        "    - host: 172.20.0.2\n"
        "      port: 6443\n"
        "    - host: localhost\n"
        "      port: 6443\n");

  EtcdConfigSpec c;
  c.add_advertise_exclude_subnets("192.0.2.10/32");
  (*c.mutable_extra_args())["heartbeat-interval"].add_values("50");
  CHECK(SpecTraits<EtcdConfigSpec>::yaml(c) ==
        "advertiseExcludeSubnets:\n"
        "    - 192.0.2.10/32\n"
        "image: \"\"\n"
        "extraArgs:\n"
        "    heartbeat-interval:\n"
        "        values:\n"
        "            - \"50\"\n"
        "listenExcludeSubnets: []\n");

  EtcdMemberSpec m;
  m.set_member_id("0a1b2c3d4e5f6071");
  CHECK(SpecTraits<EtcdMemberSpec>::yaml(m) == "memberID: 0a1b2c3d4e5f6071\n");
}

TEST_CASE("the machine config prints as the document itself", "[resources][yaml]") {
  MachineConfigSpec c;
  c.set_document("version: v1alpha1\nmachine:\n  type: controlplane\n");
  CHECK(SpecTraits<MachineConfigSpec>::yaml(c) == c.document());
}

}  // namespace
}  // namespace cosi::resources
