// Announcing an address to the segment after it moved here, so neighbours that cached the old
// holder's hardware address switch at once: a gratuitous ARP for IPv4 (an ARP request from the
// address to itself, broadcast), an unsolicited neighbour advertisement for IPv6 (override
// flag set, to all nodes). The packets are built here and sent on sockets the caller opened in
// the node's network namespace.
//
//   std::string arp = gratuitous_arp(mac, ip4);                 // 28 bytes, the ARP payload
//   send_gratuitous_arp(packet_socket, link_index, mac, ip4);   // broadcast on the link
#pragma once

#include <cstdint>
#include <string>

#include "runtime/base/result.h"

namespace cosi::controllers {

// An Ethernet/IPv4 ARP payload (RFC 826): `op` 1 request, 2 reply; 6-byte hardware and 4-byte
// protocol addresses of sender and target.
std::string arp_packet(uint16_t op, const std::string& sender_mac, const std::string& sender_ip, const std::string& target_mac,
                       const std::string& target_ip);

// The gratuitous one: a request from `ip` (at `mac`) for `ip` itself.
std::string gratuitous_arp(const std::string& mac, const std::string& ip);

// The ICMPv6 neighbour advertisement (RFC 4861 §4.4) for the 16-byte `ip`: override flag, the
// target link-layer address option with `mac`. The checksum is left 0 (a raw ICMPv6 socket
// fills it in).
std::string neighbour_advertisement(const std::string& mac, const std::string& ip);

// Sends gratuitous_arp() as an Ethernet broadcast on `link_index` through `packet_socket`
// (AF_PACKET, SOCK_DGRAM).
Status send_gratuitous_arp(int packet_socket, uint32_t link_index, const std::string& mac, const std::string& ip);

// Sends neighbour_advertisement() to ff02::1 on `link_index` through `icmp6_socket` (a raw
// IPPROTO_ICMPV6 socket), with hop limit 255 as RFC 4861 requires.
Status send_neighbour_advertisement(int icmp6_socket, uint32_t link_index, const std::string& mac, const std::string& ip);

}  // namespace cosi::controllers
