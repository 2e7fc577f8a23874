#include "controllers/network/announce.h"

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace cosi::controllers {

namespace {

void put16(std::string& out, uint16_t v) {
  out += static_cast<char>(v >> 8);
  out += static_cast<char>(v & 0xff);
}

Error send_failed(const char* what, uint32_t link_index) {
  return Error(ErrorKind::kUnavailable,
               std::string("sending a ") + what + " on link " + std::to_string(link_index) + ": " + std::strerror(errno));
}

}  // namespace

std::string arp_packet(uint16_t op, const std::string& sender_mac, const std::string& sender_ip, const std::string& target_mac,
                       const std::string& target_ip) {
  std::string p;
  put16(p, 1);       // hardware type: Ethernet
  put16(p, 0x0800);  // protocol type: IPv4
  p += static_cast<char>(6);
  p += static_cast<char>(4);
  put16(p, op);
  return p + sender_mac + sender_ip + target_mac + target_ip;
}

std::string gratuitous_arp(const std::string& mac, const std::string& ip) {
  // A request: every stack updates its entry on a request from the address itself.
  return arp_packet(1, mac, ip, std::string(6, '\0'), ip);
}

std::string neighbour_advertisement(const std::string& mac, const std::string& ip) {
  std::string p;
  p += static_cast<char>(ND_NEIGHBOR_ADVERT);
  p += '\0';           // code
  put16(p, 0);         // checksum, the socket's to fill
  p += static_cast<char>(0x20);  // flags: override (not router, not solicited)
  p += std::string(3, '\0');
  p += ip;
  p += static_cast<char>(ND_OPT_TARGET_LINKADDR);
  p += static_cast<char>(1);  // length in units of 8 bytes
  p += mac;
  return p;
}

Status send_gratuitous_arp(int packet_socket, uint32_t link_index, const std::string& mac, const std::string& ip) {
  if (mac.size() != 6 || ip.size() != 4) {
    return Error(ErrorKind::kInvalidArgument, "a gratuitous ARP needs a 6-byte hardware address and an IPv4 address");
  }
  const std::string packet = gratuitous_arp(mac, ip);
  sockaddr_ll to{};
  to.sll_family = AF_PACKET;
  to.sll_protocol = htons(ETH_P_ARP);
  to.sll_ifindex = static_cast<int>(link_index);
  to.sll_halen = 6;
  std::memset(to.sll_addr, 0xff, 6);
  if (sendto(packet_socket, packet.data(), packet.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to) < 0) {
    return send_failed("gratuitous ARP", link_index);
  }
  return {};
}

Status send_neighbour_advertisement(int icmp6_socket, uint32_t link_index, const std::string& mac, const std::string& ip) {
  if (mac.size() != 6 || ip.size() != 16) {
    return Error(ErrorKind::kInvalidArgument, "a neighbour advertisement needs a 6-byte hardware address and an IPv6 address");
  }
  const int hops = 255;
  const unsigned int index = link_index;
  if (setsockopt(icmp6_socket, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops, sizeof hops) != 0 ||
      setsockopt(icmp6_socket, IPPROTO_IPV6, IPV6_MULTICAST_IF, &index, sizeof index) != 0) {
    return send_failed("neighbour advertisement", link_index);
  }
  const std::string packet = neighbour_advertisement(mac, ip);
  sockaddr_in6 to{};
  to.sin6_family = AF_INET6;
  inet_pton(AF_INET6, "ff02::1", &to.sin6_addr);
  to.sin6_scope_id = link_index;
  if (sendto(icmp6_socket, packet.data(), packet.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to) < 0) {
    return send_failed("neighbour advertisement", link_index);
  }
  return {};
}

}  // namespace cosi::controllers
