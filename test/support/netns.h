// Network namespaces for integration tests and benchmarks (root only): named namespaces made
// with iproute2 and deleted, with every process still in them killed, when the test ends; and
// code run inside one (a thread that enters the namespace, so the sockets it opens belong there
// for good). A step that fails throws. Tests use TEST-NET addresses only, each its own /27.
//
//   skip_unless_root();                              // at the top of a test binary: exit 77 (SKIP)
//   NetNs a("cosi-nl-a");
//   ip({"addr", "add", "203.0.113.10/27", "dev", "eth0"}, a.name);
//   auto fd = in_netns(a.name, [] { return socket(AF_PACKET, SOCK_DGRAM, 0); });
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cmd/common/netns.h"
#include "controllers/common/spawn.h"
#include "test/support/process.h"

namespace cosi::testing {

// Runs `ip ARGS` (in the namespace `netns` when one is named) and returns what it printed;
// throws (failing the test) if it fails.
inline std::string ip(std::vector<std::string> args, const std::string& netns = "") {
  args.insert(args.begin(), "ip");
  auto r = controllers::run_command(args, std::chrono::seconds(10), netns);
  if (!r.ok()) throw std::runtime_error((netns.empty() ? "" : "in " + netns + ": ") + r.error().message());
  return *r;
}

// Runs `fn` on a thread inside the namespace `name` and returns what it returns.
template <class F>
auto in_netns(const std::string& name, F fn) -> decltype(fn()) {
  decltype(fn()) result{};
  bool entered = false;
  std::thread t([&] {
    const int fd = open(("/run/netns/" + name).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    entered = setns(fd, CLONE_NEWNET) == 0;
    close(fd);
    if (entered) result = fn();
  });
  t.join();
  if (!entered) throw std::runtime_error("cannot enter network namespace " + name);
  return result;
}

struct NetNs {
  explicit NetNs(std::string name) : name(std::move(name)) {
    (void)run({"ip", "netns", "del", this->name}, in_seconds(10));  // one a crashed run left
    ip({"netns", "add", this->name});
    try {
      ip({"link", "set", "lo", "up"}, this->name);
    } catch (...) {
      (void)run({"ip", "netns", "del", this->name}, in_seconds(10));  // no destructor runs for a constructor that throws
      throw;
    }
  }
  ~NetNs() {
    for (pid_t pid : cmd::pids_in_netns(name)) kill(pid, SIGKILL);
    (void)run({"ip", "netns", "del", name}, in_seconds(10));
  }
  NetNs(const NetNs&) = delete;
  NetNs& operator=(const NetNs&) = delete;
  std::string name;
};

// Skips the whole test binary (meson's exit status 77) unless it runs as root.
inline void skip_unless_root() {
  if (geteuid() != 0) {
    std::fprintf(stderr, "SKIP: needs root (network namespaces, veth, AF_PACKET)\n");
    std::_Exit(77);
  }
}

}  // namespace cosi::testing
