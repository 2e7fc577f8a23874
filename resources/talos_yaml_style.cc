#include "resources/talos_yaml_style.h"

#include <arpa/inet.h>

#include <chrono>
#include <cstdio>
#include <ctime>

#include "common.pb.h"
#include "resources/common/ip.h"
#include <google/protobuf/timestamp.pb.h>

namespace cosi::resources {
namespace {

// nethelpers.AddressFlags: set bits lowest first, comma-joined.
std::string address_flags(std::uint64_t flags) {
  static const char* const kNames[] = {"temporary", "nodad", "optimistic", "dadfailed", "homeaddress",
                                       "deprecated", "tentative", "permanent", "mngmtmpaddr",
                                       "noprefixroute", "mcautojoin", "stableprivacy"};
  std::string out;
  for (int bit = 0; bit < 12; ++bit) {
    if ((flags & (1ULL << bit)) == 0) continue;
    if (!out.empty()) out += ",";
    out += kNames[bit];
  }
  return out;
}

// nethelpers.LinkFlags: the IFF_* names of the set bits, lowest first, comma-joined.
std::string link_flags(std::uint64_t flags) {
  static const char* const kNames[] = {"UP",      "BROADCAST", "DEBUG",     "LOOPBACK", "POINTTOPOINT", "NOTRAILERS", "RUNNING",
                                       "NOARP",   "PROMISC",   "ALLMULTI",  "MASTER",   "SLAVE",        "MULTICAST",  "PORTSEL",
                                       "AUTOMEDIA", "DYNAMIC", "LOWER_UP",  "DORMANT",  "ECHO"};
  std::string out;
  for (int bit = 0; bit < 19; ++bit) {
    if ((flags & (1ULL << bit)) == 0) continue;
    if (!out.empty()) out += ",";
    out += kNames[bit];
  }
  return out;
}

YamlStyle make() {
  YamlStyle s;
  const std::string cluster = "talos.resource.definitions.cluster.";
  const std::string etcd = "talos.resource.definitions.etcd.";
  const std::string network = "talos.resource.definitions.network.";
  const std::string enums = "talos.resource.definitions.enums.";
  const std::string block = "talos.resource.definitions.block.DiskSpec.";

  // Keys that are not the field's lowerCamelCase name.
  s.keys[cluster + "ControlPlane.api_server_port"] = "port";
  s.keys[cluster + "AffiliateSpec.kube_span"] = "kubespan";
  s.keys[cluster + "ConfigSpec.service_cluster_id"] = "serviceClusterID";
  s.keys[etcd + "MemberSpec.member_id"] = "memberID";
  s.keys[network + "AddressSpecSpec.announce_with_arp"] = "announceWithARP";
  s.keys[network + "AddressSpecSpec.config_layer"] = "layer";
  s.keys[network + "OperatorSpecSpec.config_layer"] = "layer";
  s.keys[network + "VIPOperatorSpec.gratuitous_arp"] = "gratuitousARP";
  s.keys[network + "VIPOperatorSpec.h_cloud"] = "hcloud";
  s.keys[network + "VIPEquinixMetalSpec.project_id"] = "projectID";
  s.keys[network + "VIPEquinixMetalSpec.device_id"] = "deviceID";
  s.keys[network + "VIPHCloudSpec.device_id"] = "deviceID";
  s.keys[network + "VIPHCloudSpec.network_id"] = "networkID";
  s.keys[network + "VIPStatusSpec.held_by_this_node"] = "heldByThisNode";

  // Disks spell their keys in snake_case.
  for (const char* f : {"dev_path", "pretty_size", "io_size", "sector_size", "bus_path", "sub_system", "secondary_disks"}) {
    s.keys[block + f] = f;
  }

  // Go's omitempty.
  for (const char* f : {"model", "serial", "modalias", "wwid", "uuid", "bus_path", "sub_system", "transport", "rotational",
                        "secondary_disks", "symlinks"}) {
    s.omit_empty.insert(block + f);
  }
  for (const char* f : {"AffiliateSpec.nodename", "AffiliateSpec.kube_span", "AffiliateSpec.control_plane",
                        "MemberSpec.control_plane", "ConfigSpec.service_endpoint_insecure"}) {
    s.omit_empty.insert(cluster + f);
  }
  for (const char* f : {"ConfigSpec.advertise_valid_subnets", "ConfigSpec.listen_valid_subnets"}) {
    s.omit_empty.insert(etcd + f);
  }
  for (const char* f : {"AddressSpecSpec.announce_with_arp", "AddressStatusSpec.local", "AddressStatusSpec.broadcast",
                        "AddressStatusSpec.anycast", "AddressStatusSpec.multicast", "OperatorSpecSpec.dhcp4",
                        "OperatorSpecSpec.dhcp6", "OperatorSpecSpec.vip", "DHCP4OperatorSpec.skip_hostname_request",
                        "DHCP4OperatorSpec.client_identifier", "DHCP6OperatorSpec.skip_hostname_request",
                        "DHCP6OperatorSpec.client_identifier", "ClientIdentifierSpec.duid_raw_hex",
                        "VIPOperatorSpec.equinix_metal", "VIPOperatorSpec.h_cloud", "VIPStatusSpec.since"}) {
    s.omit_empty.insert(network + f);
  }

  // Enum texts that the default rule (the name after the common prefix) would not give.
  s.enum_text[enums + "NETHELPERS_FAMILY_UNSPECIFIED"] = "Family(0)";
  s.enum_text[enums + "FAMILY_INET4"] = "inet4";
  s.enum_text[enums + "FAMILY_INET6"] = "inet6";
  s.enum_text[enums + "CONFIG_MACHINE_CONFIGURATION"] = "configuration";
  s.enum_text[enums + "LINK_LOOPBCK"] = "loopback";
  s.enum_text[enums + "OPER_STATE_NOT_PRESENT"] = "notPresent";
  s.enum_text[enums + "OPER_STATE_LOWER_LAYER_DOWN"] = "lowerLayerDown";

  s.scalars["common.NetIP"] = [](const google::protobuf::Message& m) {
    return ip_text(static_cast<const common::NetIP&>(m).ip());
  };
  s.scalars["common.NetIPPrefix"] = [](const google::protobuf::Message& m) {
    const auto& p = static_cast<const common::NetIPPrefix&>(m);
    std::string ip = ip_text(p.ip());
    return ip.empty() ? ip : ip + "/" + std::to_string(p.prefix_length());
  };
  s.scalars["common.NetIPPort"] = [](const google::protobuf::Message& m) {
    const auto& p = static_cast<const common::NetIPPort&>(m);
    std::string ip = ip_text(p.ip());
    if (ip.empty()) return ip;
    return (p.ip().size() == 16 ? "[" + ip + "]" : ip) + ":" + std::to_string(p.port());
  };
  s.scalars["google.protobuf.Timestamp"] = [](const google::protobuf::Message& m) {
    const auto& t = static_cast<const google::protobuf::Timestamp&>(m);
    if (t.seconds() == 0 && t.nanos() == 0) return std::string();
    std::time_t secs = static_cast<std::time_t>(t.seconds());
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    return std::string(buf);
  };
  s.uint_text[network + "AddressSpecSpec.flags"] = address_flags;
  s.uint_text[network + "AddressStatusSpec.flags"] = address_flags;
  s.uint_text[network + "LinkStatusSpec.flags"] = link_flags;
  for (const char* f : {"LinkStatusSpec.hardware_addr", "LinkStatusSpec.broadcast_addr", "LinkStatusSpec.permanent_addr"}) {
    s.bytes_text[network + f] = [](const std::string& bytes) { return hardware_addr_text(bytes); };
  }
  for (const char* f : {"LinkStatusSpec.master_index", "LinkStatusSpec.alias"}) s.omit_empty.insert(network + f);
  return s;
}

}  // namespace

const YamlStyle& yaml_style() {
  static const YamlStyle* style = new YamlStyle(make());
  return *style;
}

}  // namespace cosi::resources
