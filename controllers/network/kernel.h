// What the network controllers need from the kernel: the links and addresses of the node's
// network namespace, address changes, a callback when anything changes, and the announcement
// of an address to the segment. Controllers do not speak netlink: machined injects the real
// kernel (controllers/network/libnl_kernel.h) in owned-host mode, unit tests a fake.
//
//   kernel.add_address({.link_index = 2, .family = AF_INET, .address = ip, .prefix_length = 32}, 1s);
//   kernel.announce(link, ip);   // a gratuitous ARP (IPv4) or an unsolicited neighbour advertisement (IPv6)
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::controllers {

struct KernelLink {
  uint32_t index = 0;
  std::string name;
  std::string alias;
  uint32_t type = 0;  // ARPHRD_*
  std::string kind;   // "veth", "bridge", …; empty for a physical device
  std::string slave_kind;
  uint32_t flags = 0;  // IFF_*
  uint32_t mtu = 0;
  uint32_t link_index = 0;
  uint32_t master_index = 0;
  uint8_t operational_state = 0;  // IF_OPER_*
  std::string queue_disc;
  std::string hardware_addr;  // bytes
  std::string broadcast_addr;
  std::string permanent_addr;

  friend bool operator==(const KernelLink&, const KernelLink&) = default;
};

struct KernelAddress {
  uint32_t link_index = 0;
  int family = 0;        // AF_INET | AF_INET6
  std::string address;   // 4 or 16 bytes
  int prefix_length = 0;
  std::string local;      // IFA_LOCAL (IPv4: the address itself, or the local end of a peer address)
  std::string broadcast;
  int scope = 0;          // RT_SCOPE_*
  uint32_t flags = 0;     // IFA_F_*
  uint32_t priority = 0;  // IFA_RT_PRIORITY

  // The same address on the same link (what add and remove are keyed by).
  bool same(const KernelAddress& o) const {
    return link_index == o.link_index && family == o.family && address == o.address && prefix_length == o.prefix_length;
  }
  friend bool operator==(const KernelAddress&, const KernelAddress&) = default;
};

class NetworkKernel {
 public:
  virtual ~NetworkKernel() = default;

  virtual Result<std::vector<KernelLink>> links() = 0;
  virtual Result<std::vector<KernelAddress>> addresses() = 0;

  // Adds the address, or replaces it (refreshing its lifetime) when it is there. `lifetime`:
  // valid and preferred lifetime in whole seconds, at least 1 (the kernel's granularity); the
  // kernel removes the address once it runs out. nullopt: permanent.
  virtual Status add_address(const KernelAddress& address, std::optional<std::chrono::seconds> lifetime) = 0;
  // Removes the address; an address already gone is not an error.
  virtual Status remove_address(const KernelAddress& address) = 0;

  // One gratuitous ARP (IPv4) or unsolicited neighbour advertisement (IPv6) for `ip` from the
  // link's hardware address.
  virtual Status announce(const KernelLink& link, const std::string& ip) = 0;

  // Calls `on_change` (from a thread of the kernel's) after links or addresses changed, until
  // the kernel object goes. Subscribe before the first read, so no change is missed.
  virtual void subscribe(std::function<void()> on_change) = 0;
};

}  // namespace cosi::controllers
