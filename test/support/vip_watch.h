// What the VIP tests and benchmarks watch a `cluster create --netns --vip` cluster with (root):
// the kernel of every control plane's namespace (who has the VIP on its link, and its MAC), a
// client namespace on the cluster's bridge that asks "who has the VIP?" the way any neighbour
// would (ARP, AF_PACKET), and a sampler that reads every control plane's addresses every 20 ms
// and counts the instants two of them held the VIP at once.
//
//   VipWatch watch(cluster_namespaces, bridge, "198.51.100.20", 27, "198.51.100.5");
//   auto holder = watch.holder();                 // index of the namespace that has it, or -1
//   auto mac = watch.client_asks(500ms);          // the MAC that answered, or nullopt
//   watch.sampler_double_ms();                    // 0, or the test fails
#pragma once

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "controllers/network/announce.h"
#include "controllers/network/libnl_kernel.h"
#include "resources/common/ip.h"
#include "test/support/netns.h"

namespace cosi::testing {

class VipWatch {
 public:
  VipWatch(std::vector<std::string> namespaces, const std::string& bridge, const std::string& client_ip, int bits, std::string vip)
      : namespaces_(std::move(namespaces)), vip_(*resources::ip_bytes(vip)), client_("cosi-client-" + std::to_string(getpid() % 100000)) {
    const std::string veth = "vcl" + std::to_string(getpid() % 100000);
    ip({"link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", client_.name});
    ip({"link", "set", veth, "master", bridge, "up"});
    ip({"link", "set", "eth0", "up"}, client_.name);
    ip({"addr", "add", client_ip + "/" + std::to_string(bits), "dev", "eth0"}, client_.name);
    client_ip_ = *resources::ip_bytes(client_ip);
    for (const auto& ns : namespaces_) {
      kernels_.push_back(in_netns(ns, [] {
        auto k = controllers::LibnlKernel::open();
        return k.ok() ? std::move(*k) : nullptr;
      }));
      if (kernels_.back() == nullptr) throw std::runtime_error("no netlink in " + ns);
      auto links = kernels_.back()->links();
      if (!links.ok()) throw std::runtime_error(links.error().message());
      for (const auto& l : *links) {
        if (l.name == "eth0") macs_.push_back(l.hardware_addr);
      }
      if (macs_.size() != kernels_.size()) throw std::runtime_error("no eth0 in " + ns);
    }
    arp_ = in_netns(client_.name, [&] {
      const int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_ARP));
      client_index_ = if_nametoindex("eth0");
      sockaddr_ll at{};
      at.sll_family = AF_PACKET;
      at.sll_protocol = htons(ETH_P_ARP);
      at.sll_ifindex = static_cast<int>(client_index_);
      bind(fd, reinterpret_cast<sockaddr*>(&at), sizeof at);
      ifreq ifr{};
      std::snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "eth0");
      ioctl(fd, SIOCGIFHWADDR, &ifr);
      client_mac_.assign(ifr.ifr_hwaddr.sa_data, 6);
      return fd;
    });
    if (arp_ < 0) throw std::runtime_error("no AF_PACKET socket in the client namespace");
    sampler_ = std::thread([this] { sample(); });
  }

  ~VipWatch() {
    stop_ = true;
    sampler_.join();
    close(arp_);
  }

  const std::string& client() const { return client_.name; }
  const std::string& mac(size_t i) const { return macs_[i]; }

  // The namespaces whose eth0 has the VIP now.
  std::vector<size_t> holders() {
    std::lock_guard lock(mu_);
    return holders_locked();
  }
  // The one holder, or -1 for none (or, wrongly, several).
  int holder() {
    auto h = holders();
    return h.size() == 1 ? static_cast<int>(h[0]) : -1;
  }

  // ARP "who has the VIP?" (or `ip`, 4 bytes) from the client; the MAC of the first reply
  // within `deadline`.
  std::optional<std::string> client_asks(std::chrono::milliseconds deadline) { return client_asks(deadline, vip_); }
  std::optional<std::string> client_asks(std::chrono::milliseconds deadline, const std::string& ip) {
    const std::string request = controllers::arp_packet(1, client_mac_, client_ip_, std::string(6, '\0'), ip);
    sockaddr_ll to{};
    to.sll_family = AF_PACKET;
    to.sll_protocol = htons(ETH_P_ARP);
    to.sll_ifindex = static_cast<int>(client_index_);
    to.sll_halen = 6;
    std::memset(to.sll_addr, 0xff, 6);
    if (sendto(arp_, request.data(), request.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to) < 0) return std::nullopt;
    const auto until = std::chrono::steady_clock::now() + deadline;
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count();
      if (left <= 0) return std::nullopt;
      pollfd p{arp_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      unsigned char packet[64];
      const ssize_t n = recv(arp_, packet, sizeof packet, 0);
      if (n < 28 || packet[7] != 2) continue;  // only replies
      if (std::string(reinterpret_cast<char*>(packet) + 14, 4) != ip) continue;
      return std::string(reinterpret_cast<char*>(packet) + 8, 6);
    }
  }

  // The MAC the client's neighbour table has for the VIP ("" when none).
  std::string client_neighbour() {
    const auto out = ip({"neigh", "show", resources::ip_text(vip_), "dev", "eth0"}, client_.name);
    const auto at = out.find("lladdr ");
    return at == std::string::npos ? "" : out.substr(at + 7, 17);
  }

  // Samples so far, and the milliseconds during which two namespaces had the VIP at once.
  int samples() const { return samples_; }
  int double_holder_ms() const { return double_ms_; }

 private:
  std::vector<size_t> holders_locked() {
    std::vector<size_t> out;
    for (size_t i = 0; i < kernels_.size(); ++i) {
      auto addresses = kernels_[i]->addresses();
      if (!addresses.ok()) continue;
      for (const auto& a : *addresses) {
        if (a.address == vip_) out.push_back(i);
      }
    }
    return out;
  }

  void sample() {
    while (!stop_) {
      {
        std::lock_guard lock(mu_);
        if (holders_locked().size() > 1) double_ms_ += 20;
      }
      ++samples_;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the sampling period itself
    }
  }

  const std::vector<std::string> namespaces_;
  const std::string vip_;
  NetNs client_;
  std::string client_ip_;
  std::string client_mac_;
  uint32_t client_index_ = 0;
  int arp_ = -1;
  std::mutex mu_;  // kernels_ (their request sockets are one at a time anyway)
  std::vector<std::unique_ptr<controllers::NetworkKernel>> kernels_;
  std::vector<std::string> macs_;
  std::atomic<bool> stop_{false};
  std::atomic<int> samples_{0};
  std::atomic<int> double_ms_{0};
  std::thread sampler_;
};

// The PID of the program `comm` in namespace `ns`; 0 when none.
inline pid_t pid_in_netns(const std::string& ns, const std::string& comm) {
  for (pid_t pid : cmd::pids_in_netns(ns)) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(in, name);
    if (name == comm) return pid;
  }
  return 0;
}

}  // namespace cosi::testing
