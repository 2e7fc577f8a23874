// The kernel adapter of the network controllers (controllers/network/libnl_kernel.h) against
// the real kernel, in two network namespaces joined by a veth pair (root; 203.0.113.0/27):
// links and addresses read back, notifications on change, an address added with a lifetime is
// refreshed by a second add and removed by the kernel itself once it runs out, and
// announcements reach the other end and repoint its neighbour entry (ARP and IPv6 NA).
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/socket.h>

#include <catch2/catch.hpp>

#include <atomic>

#include "controllers/network/libnl_kernel.h"
#include "resources/common/ip.h"
#include "test/support/eventually.h"
#include "test/support/netns.h"

namespace cosi::testing {
namespace {

using namespace std::chrono_literals;
using controllers::KernelAddress;
using controllers::KernelLink;
using resources::ip_bytes;

const bool skipped = (skip_unless_root(), false);

std::string suffix() { return std::to_string(getpid() % 100000); }

// Two namespaces, a (eth0 203.0.113.10/27, 2001:db8:113::a/64) and b (eth0 203.0.113.11/27,
// 2001:db8:113::b/64), on one veth pair.
struct Pair {
  Pair() : a("cosi-nl-a-" + suffix()), b("cosi-nl-b-" + suffix()) {
    const std::string va = "vnla" + suffix(), vb = "vnlb" + suffix();
    ip({"link", "add", va, "netns", a.name, "type", "veth", "peer", "name", vb, "netns", b.name});
    ip({"link", "set", va, "name", "eth0"}, a.name);
    ip({"link", "set", vb, "name", "eth0"}, b.name);
    for (const auto* ns : {&a, &b}) {
      const std::string last = ns == &a ? "10" : "11";
      // Up first: IPv6 addresses added to a link that is down leave it without its multicast route.
      ip({"link", "set", "eth0", "up"}, ns->name);
      ip({"addr", "add", "203.0.113." + last + "/27", "dev", "eth0"}, ns->name);
      ip({"addr", "add", std::string("2001:db8:113::") + (ns == &a ? "a" : "b") + "/64", "dev", "eth0", "nodad"}, ns->name);
    }
    kernel = in_netns(a.name, [] {
      auto k = controllers::LibnlKernel::open();
      return k.ok() ? std::move(*k) : nullptr;
    });
    REQUIRE(kernel != nullptr);
  }
  KernelLink link(const std::string& name) {
    auto links = kernel->links();
    REQUIRE(links.ok());
    for (const auto& l : *links) {
      if (l.name == name) return l;
    }
    FAIL("no link " << name);
    return {};
  }
  bool has(const std::string& address) {
    auto all = kernel->addresses();
    REQUIRE(all.ok());
    for (const auto& k : *all) {
      if (k.address == *ip_bytes(address)) return true;
    }
    return false;
  }
  // b's neighbour entry for `address`, as `ip neigh` prints it.
  std::string neighbour(const std::string& address) {
    return ip({"neigh", "show", address, "dev", "eth0"}, b.name);
  }

  NetNs a, b;
  std::unique_ptr<controllers::NetworkKernel> kernel;
};

KernelAddress vip(const KernelLink& link, const std::string& text) {
  const auto bytes = *ip_bytes(text);
  return {.link_index = link.index, .family = bytes.size() == 4 ? AF_INET : AF_INET6, .address = bytes,
          .prefix_length = bytes.size() == 4 ? 32 : 128};
}

TEST_CASE("the kernel: links and addresses of its namespace, and a notification for each change", "[netlink]") {
  Pair p;
  std::atomic<int> changes{0};
  p.kernel->subscribe([&] { ++changes; });
  const auto eth0 = p.link("eth0");
  CHECK(eth0.kind == "veth");
  CHECK(eth0.type == 1);  // ARPHRD_ETHER
  CHECK(eth0.hardware_addr.size() == 6);
  CHECK((eth0.flags & IFF_UP) != 0);
  CHECK(p.link("lo").type == 772);  // ARPHRD_LOOPBACK
  CHECK(p.has("203.0.113.10"));
  CHECK_FALSE(p.has("203.0.113.11"));  // b's, in the other namespace

  REQUIRE(p.kernel->add_address(vip(eth0, "203.0.113.5"), std::nullopt).ok());
  REQUIRE(eventually([&] { return changes > 0; }, in_seconds(5)));
  CHECK(p.has("203.0.113.5"));
  auto shown = ip({"addr", "show", "dev", "eth0"}, p.a.name);
  CHECK(shown.find("inet 203.0.113.5/32") != std::string::npos);

  const int before = changes;
  REQUIRE(p.kernel->remove_address(vip(eth0, "203.0.113.5")).ok());
  REQUIRE(eventually([&] { return changes > before; }, in_seconds(5)));
  CHECK_FALSE(p.has("203.0.113.5"));
  CHECK(p.kernel->remove_address(vip(eth0, "203.0.113.5")).ok());  // already gone: not an error
}

TEST_CASE("the kernel: an address with a lifetime is refreshed by adding it again, and removed when it runs out", "[netlink]") {
  Pair p;
  const auto eth0 = p.link("eth0");
  const auto address = vip(eth0, "203.0.113.5");
  REQUIRE(p.kernel->add_address(address, 1s).ok());
  CHECK(p.has("203.0.113.5"));
  auto shown = ip({"addr", "show", "dev", "eth0"}, p.a.name);
  CHECK(shown.find("valid_lft 1sec") != std::string::npos);

  // Refreshed every 500 ms for 2 s: still there, though each lifetime was 1 s.
  for (int i = 0; i < 4; ++i) {
    std::this_thread::sleep_for(500ms);  // the refresh cadence under test, not a wait for a condition
    REQUIRE(p.kernel->add_address(address, 1s).ok());
    CHECK(p.has("203.0.113.5"));
  }
  // No more refreshes: the kernel itself removes it, at most a quarter second late (its
  // lifetime check rounds to the next whole second, within ADDRCONF_TIMER_FUZZ).
  const auto last = std::chrono::steady_clock::now();
  REQUIRE(eventually([&] { return !p.has("203.0.113.5"); }, in_seconds(5), 10ms));
  const auto gone_after = std::chrono::steady_clock::now() - last;
  INFO("gone after " << std::chrono::duration_cast<std::chrono::milliseconds>(gone_after).count() << " ms");
  CHECK(gone_after >= 900ms);
  CHECK(gone_after <= 1500ms);
  CHECK_FALSE(p.kernel->add_address(address, 0s).ok());  // the kernel's granularity is a second
}

// Opens, in `ns`, a socket that receives every ARP packet arriving on eth0.
int arp_listener(const std::string& ns) {
  return in_netns(ns, [] {
    const int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_ARP));
    sockaddr_ll at{};
    at.sll_family = AF_PACKET;
    at.sll_protocol = htons(ETH_P_ARP);
    at.sll_ifindex = static_cast<int>(if_nametoindex("eth0"));
    bind(fd, reinterpret_cast<sockaddr*>(&at), sizeof at);
    const timeval deadline{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &deadline, sizeof deadline);
    return fd;
  });
}

TEST_CASE("the kernel: a gratuitous ARP reaches the segment and repoints a neighbour's entry", "[netlink]") {
  Pair p;
  const auto eth0 = p.link("eth0");
  REQUIRE(p.kernel->add_address(vip(eth0, "203.0.113.5"), std::nullopt).ok());
  // b last saw 203.0.113.5 at another node's MAC.
  ip({"neigh", "replace", "203.0.113.5", "lladdr", "02:00:00:00:00:01", "dev", "eth0", "nud", "stale"}, p.b.name);
  const int listener = arp_listener(p.b.name);
  REQUIRE(listener >= 0);

  REQUIRE(p.kernel->announce(eth0, *ip_bytes("203.0.113.5")).ok());
  unsigned char packet[64];
  const ssize_t n = recv(listener, packet, sizeof packet, 0);
  close(listener);
  REQUIRE(n == 28);
  CHECK(packet[7] == 1);  // a request
  CHECK(std::string(reinterpret_cast<char*>(packet) + 8, 6) == eth0.hardware_addr);
  CHECK(std::string(reinterpret_cast<char*>(packet) + 14, 4) == *ip_bytes("203.0.113.5"));
  CHECK(std::string(reinterpret_cast<char*>(packet) + 24, 4) == *ip_bytes("203.0.113.5"));

  char mac[32];
  std::snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", static_cast<unsigned char>(eth0.hardware_addr[0]),
                static_cast<unsigned char>(eth0.hardware_addr[1]), static_cast<unsigned char>(eth0.hardware_addr[2]),
                static_cast<unsigned char>(eth0.hardware_addr[3]), static_cast<unsigned char>(eth0.hardware_addr[4]),
                static_cast<unsigned char>(eth0.hardware_addr[5]));
  REQUIRE(eventually([&] { return p.neighbour("203.0.113.5").find(mac) != std::string::npos; }, in_seconds(5)));

  // IPv6: an unsolicited neighbour advertisement does the same.
  REQUIRE(p.kernel->add_address(vip(eth0, "2001:db8:113::5"), std::nullopt).ok());
  ip({"neigh", "replace", "2001:db8:113::5", "lladdr", "02:00:00:00:00:01", "dev", "eth0", "nud", "stale"}, p.b.name);
  REQUIRE(p.kernel->announce(eth0, *ip_bytes("2001:db8:113::5")).ok());
  REQUIRE(eventually([&] { return p.neighbour("2001:db8:113::5").find(mac) != std::string::npos; }, in_seconds(5)));
}

}  // namespace
}  // namespace cosi::testing
