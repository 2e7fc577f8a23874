// NameResolver: host names of upstreams resolved off the balancer's event loop, on a thread of
// its own (getaddrinfo blocks, up to the resolver's configured timeouts). Answers are collected
// for the loop, which is told through an eventfd that something is ready.
//
//   NameResolver r;                       // r.fd() goes into the loop's epoll set
//   r.resolve("kube.example:6443");
//   ... fd readable ...
//   for (auto& a : r.take()) use(a.address, a.ok ? &a.to : nullptr);
//
// A name that is numeric ("10.0.0.2:6443", "[fd00::2]:6443") needs no thread: parse_numeric()
// answers at once. Destroying the resolver does not wait for a lookup in progress: the thread
// finishes it on its own and drops the answer.
#pragma once

#include <sys/socket.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cosi::controllers {

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  int family() const { return storage.ss_family; }
};

struct Resolved {
  std::string address;  // "host:port", as asked
  bool ok = false;
  SocketAddress to;  // the first answer, when ok
};

class NameResolver {
 public:
  NameResolver();
  ~NameResolver();
  NameResolver(const NameResolver&) = delete;
  NameResolver& operator=(const NameResolver&) = delete;

  // "host:port" with a numeric host ("[v6]" bracketed): its address, with no lookup.
  static std::optional<SocketAddress> parse_numeric(const std::string& address);

  // Readable when answers are waiting.
  int fd() const;
  void resolve(const std::string& address);
  // The answers so far (and the eventfd's count read).
  std::vector<Resolved> take();

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
};

}  // namespace cosi::controllers
