// The node's network namespace through rtnetlink (libnl-route-3): links and addresses dumped on
// request, addresses added with lifetimes and removed, a thread that listens for link and
// address notifications, and announcements on AF_PACKET (ARP) and raw ICMPv6 sockets. Every
// socket is opened when the kernel is made, in the network namespace of the calling thread,
// and stays there; every request has a receive deadline.
//
//   auto kernel = LibnlKernel::open();           // needs CAP_NET_ADMIN and CAP_NET_RAW
//   kernel->subscribe([&] { runtime_waker(); });
#pragma once

#include <memory>

#include "controllers/network/kernel.h"

namespace cosi::controllers {

class LibnlKernel {
 public:
  static Result<std::unique_ptr<NetworkKernel>> open();
};

}  // namespace cosi::controllers
