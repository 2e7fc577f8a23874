#include "controllers/network/libnl_kernel.h"

#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <netinet/icmp6.h>
#include <netlink/cache.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include "controllers/network/announce.h"

namespace cosi::controllers {

namespace {

constexpr int kRequestDeadlineSeconds = 2;

std::string bytes_of(nl_addr* a) {
  if (a == nullptr) return {};
  return std::string(static_cast<const char*>(nl_addr_get_binary_addr(a)), nl_addr_get_len(a));
}

std::string text_of(const char* s) { return s == nullptr ? std::string() : std::string(s); }

std::string ip_text(const std::string& bytes) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(bytes.size() == 4 ? AF_INET : AF_INET6, bytes.data(), buf, sizeof buf);
  return buf;
}

Error netlink_error(const std::string& what, int err) {
  return Error(ErrorKind::kUnavailable, what + ": " + nl_geterror(err));
}

// An rtnl_addr for `a`, owned by the returned pointer.
std::unique_ptr<rtnl_addr, void (*)(rtnl_addr*)> to_rtnl(const KernelAddress& a) {
  std::unique_ptr<rtnl_addr, void (*)(rtnl_addr*)> out(rtnl_addr_alloc(), rtnl_addr_put);
  rtnl_addr_set_ifindex(out.get(), static_cast<int>(a.link_index));
  rtnl_addr_set_family(out.get(), a.family);
  nl_addr* local = nl_addr_build(a.family, a.address.data(), a.address.size());
  nl_addr_set_prefixlen(local, a.prefix_length);
  rtnl_addr_set_local(out.get(), local);
  nl_addr_put(local);
  rtnl_addr_set_prefixlen(out.get(), a.prefix_length);
  rtnl_addr_set_scope(out.get(), a.scope);
  return out;
}

class Kernel final : public NetworkKernel {
 public:
  Kernel(nl_sock* requests, nl_sock* events, int packet_fd, int icmp6_fd, int stop_fd)
      : requests_(requests), events_(events), packet_fd_(packet_fd), icmp6_fd_(icmp6_fd), stop_fd_(stop_fd) {
    listener_ = std::thread([this] { listen(); });
  }

  ~Kernel() override {
    const uint64_t one = 1;
    (void)!write(stop_fd_, &one, sizeof one);
    listener_.join();
    nl_socket_free(events_);
    nl_socket_free(requests_);
    close(packet_fd_);
    if (icmp6_fd_ >= 0) close(icmp6_fd_);
    close(stop_fd_);
  }

  Result<std::vector<KernelLink>> links() override {
    std::lock_guard lock(mu_);
    nl_cache* cache = nullptr;
    if (int err = rtnl_link_alloc_cache(requests_, AF_UNSPEC, &cache); err < 0) return netlink_error("listing links", err);
    std::vector<KernelLink> out;
    for (nl_object* o = nl_cache_get_first(cache); o != nullptr; o = nl_cache_get_next(o)) {
      auto* l = reinterpret_cast<rtnl_link*>(o);
      KernelLink k;
      k.index = static_cast<uint32_t>(rtnl_link_get_ifindex(l));
      k.name = text_of(rtnl_link_get_name(l));
      k.alias = text_of(rtnl_link_get_ifalias(l));
      k.type = rtnl_link_get_arptype(l);
      k.kind = text_of(rtnl_link_get_type(l));
      k.slave_kind = text_of(rtnl_link_get_slave_type(l));
      k.flags = rtnl_link_get_flags(l);
      k.mtu = rtnl_link_get_mtu(l);
      k.link_index = static_cast<uint32_t>(rtnl_link_get_link(l));
      k.master_index = static_cast<uint32_t>(rtnl_link_get_master(l));
      k.operational_state = rtnl_link_get_operstate(l);
      k.queue_disc = text_of(rtnl_link_get_qdisc(l));
      k.hardware_addr = bytes_of(rtnl_link_get_addr(l));
      k.broadcast_addr = bytes_of(rtnl_link_get_broadcast(l));
      out.push_back(std::move(k));
    }
    nl_cache_free(cache);
    return out;
  }

  Result<std::vector<KernelAddress>> addresses() override {
    std::lock_guard lock(mu_);
    nl_cache* cache = nullptr;
    if (int err = rtnl_addr_alloc_cache(requests_, &cache); err < 0) return netlink_error("listing addresses", err);
    std::vector<KernelAddress> out;
    for (nl_object* o = nl_cache_get_first(cache); o != nullptr; o = nl_cache_get_next(o)) {
      auto* a = reinterpret_cast<rtnl_addr*>(o);
      KernelAddress k;
      k.link_index = static_cast<uint32_t>(rtnl_addr_get_ifindex(a));
      k.family = rtnl_addr_get_family(a);
      const std::string local = bytes_of(rtnl_addr_get_local(a));
      const std::string peer = bytes_of(rtnl_addr_get_peer(a));
      // IFA_ADDRESS is the address (the peer's, on a point-to-point link); IFA_LOCAL this end's.
      k.address = peer.empty() ? local : peer;
      if (k.family == AF_INET) k.local = local;
      k.prefix_length = rtnl_addr_get_prefixlen(a);
      k.broadcast = bytes_of(rtnl_addr_get_broadcast(a));
      k.scope = rtnl_addr_get_scope(a);
      k.flags = static_cast<uint32_t>(rtnl_addr_get_flags(a));
      out.push_back(std::move(k));
    }
    nl_cache_free(cache);
    return out;
  }

  Status add_address(const KernelAddress& address, std::optional<std::chrono::seconds> lifetime) override {
    auto a = to_rtnl(address);
    if (lifetime) {
      if (lifetime->count() < 1) return Error(ErrorKind::kInvalidArgument, "an address lifetime is at least 1 s");
      rtnl_addr_set_valid_lifetime(a.get(), static_cast<uint32_t>(lifetime->count()));
      rtnl_addr_set_preferred_lifetime(a.get(), static_cast<uint32_t>(lifetime->count()));
    }
    // An IPv6 address that moved here must answer at once, not after duplicate detection.
    if (address.family == AF_INET6) rtnl_addr_set_flags(a.get(), IFA_F_NODAD);
    std::lock_guard lock(mu_);
    if (int err = rtnl_addr_add(requests_, a.get(), NLM_F_REPLACE); err < 0) {
      return netlink_error("adding " + ip_text(address.address) + "/" + std::to_string(address.prefix_length) + " to link " +
                               std::to_string(address.link_index),
                           err);
    }
    return {};
  }

  Status remove_address(const KernelAddress& address) override {
    auto a = to_rtnl(address);
    std::lock_guard lock(mu_);
    int err = rtnl_addr_delete(requests_, a.get(), 0);
    if (err < 0 && err != -NLE_NOADDR && err != -NLE_OBJ_NOTFOUND && err != -NLE_NODEV) {
      return netlink_error("removing " + ip_text(address.address) + "/" + std::to_string(address.prefix_length) + " from link " +
                               std::to_string(address.link_index),
                           err);
    }
    return {};
  }

  Status announce(const KernelLink& link, const std::string& ip) override {
    if (ip.size() == 4) return send_gratuitous_arp(packet_fd_, link.index, link.hardware_addr, ip);
    if (icmp6_fd_ < 0) return Error(ErrorKind::kUnavailable, "no ICMPv6 socket (IPv6 is off in this namespace)");
    return send_neighbour_advertisement(icmp6_fd_, link.index, link.hardware_addr, ip);
  }

  void subscribe(std::function<void()> on_change) override {
    std::lock_guard lock(subscribers_mu_);
    subscribers_.push_back(std::move(on_change));
  }

 private:
  // Drains notifications as they come and tells every subscriber once per batch; an overrun
  // (ENOBUFS) is news too: the subscribers read everything again.
  void listen() {
    pollfd fds[2] = {{nl_socket_get_fd(events_), POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    while (true) {
      if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
      if (fds[1].revents != 0) return;
      if (fds[0].revents == 0) continue;
      while (true) {
        const int err = nl_recvmsgs_default(events_);
        if (err == -NLE_AGAIN || (err < 0 && err != -NLE_NOMEM)) break;
      }
      std::vector<std::function<void()>> subscribers;
      {
        std::lock_guard lock(subscribers_mu_);
        subscribers = subscribers_;
      }
      for (const auto& s : subscribers) s();
    }
  }

  std::mutex mu_;  // requests_
  nl_sock* const requests_;
  nl_sock* const events_;  // only the listener thread
  const int packet_fd_;
  const int icmp6_fd_;
  const int stop_fd_;
  std::mutex subscribers_mu_;
  std::vector<std::function<void()>> subscribers_;  // guarded by subscribers_mu_
  std::thread listener_;
};

int ignore(nl_msg*, void*) { return NL_OK; }

}  // namespace

Result<std::unique_ptr<NetworkKernel>> LibnlKernel::open() {
  nl_sock* requests = nl_socket_alloc();
  nl_sock* events = nl_socket_alloc();
  auto fail = [&](const std::string& what) -> Error {
    const std::string reason = std::strerror(errno);
    nl_socket_free(requests);
    nl_socket_free(events);
    return Error(ErrorKind::kUnavailable, what + ": " + reason);
  };
  if (requests == nullptr || events == nullptr) return fail("allocating netlink sockets");
  if (int err = nl_connect(requests, NETLINK_ROUTE); err < 0) {
    nl_socket_free(requests);
    nl_socket_free(events);
    return netlink_error("connecting to rtnetlink", err);
  }
  const timeval deadline{kRequestDeadlineSeconds, 0};
  setsockopt(nl_socket_get_fd(requests), SOL_SOCKET, SO_RCVTIMEO, &deadline, sizeof deadline);
  nl_socket_disable_seq_check(events);
  nl_socket_modify_cb(events, NL_CB_VALID, NL_CB_CUSTOM, ignore, nullptr);
  if (int err = nl_connect(events, NETLINK_ROUTE); err < 0) {
    nl_socket_free(requests);
    nl_socket_free(events);
    return netlink_error("connecting to rtnetlink", err);
  }
  nl_socket_set_nonblocking(events);
  if (int err = nl_socket_add_memberships(events, RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR, 0); err < 0) {
    nl_socket_free(requests);
    nl_socket_free(events);
    return netlink_error("subscribing to link and address changes", err);
  }
  // Protocol 0: a socket that sends but receives nothing.
  const int packet_fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (packet_fd < 0) return fail("opening an AF_PACKET socket (needs CAP_NET_RAW)");
  int icmp6_fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMPV6);
  if (icmp6_fd >= 0) {
    icmp6_filter none;
    ICMP6_FILTER_SETBLOCKALL(&none);
    setsockopt(icmp6_fd, IPPROTO_ICMPV6, ICMP6_FILTER, &none, sizeof none);
  }
  const int stop_fd = eventfd(0, EFD_CLOEXEC);
  if (stop_fd < 0) {
    close(packet_fd);
    if (icmp6_fd >= 0) close(icmp6_fd);
    return fail("eventfd");
  }
  return std::unique_ptr<NetworkKernel>(new Kernel(requests, events, packet_fd, icmp6_fd, stop_fd));
}

}  // namespace cosi::controllers
