#include "controllers/k8s/load_balancer/name_resolver.h"

#include <netdb.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

namespace cosi::controllers {

namespace {

// "host:port" → host, port; the host may be "[v6]".
std::pair<std::string, std::string> split(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) return {address, ""};
  std::string host = address.substr(0, colon);
  if (host.size() > 1 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return {host, address.substr(colon + 1)};
}

std::optional<SocketAddress> lookup(const std::string& address, int flags) {
  const auto [host, port] = split(address);
  if (host.empty() || port.empty()) return std::nullopt;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = flags | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr)
    return std::nullopt;
  SocketAddress out;
  std::memcpy(&out.storage, found->ai_addr, found->ai_addrlen);
  out.length = found->ai_addrlen;
  freeaddrinfo(found);
  return out;
}

}  // namespace

struct NameResolver::Shared {
  Shared() : event(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~Shared() { close(event); }

  void run() {
    std::unique_lock lock(mu);
    while (true) {
      wake.wait(lock, [&] { return stopping || !asked.empty(); });
      if (stopping) return;
      const std::string address = asked.front();
      asked.pop_front();
      lock.unlock();
      auto to = lookup(address, 0);
      lock.lock();
      if (stopping) return;
      answers.push_back(
          {.address = address, .ok = to.has_value(), .to = to.value_or(SocketAddress{})});
      const uint64_t one = 1;
      (void)!write(event, &one, sizeof one);
    }
  }

  const int event;
  std::mutex mu;
  std::condition_variable wake;
  bool stopping = false;          // guarded by mu
  std::deque<std::string> asked;  // guarded by mu
  std::vector<Resolved> answers;  // guarded by mu
};

NameResolver::NameResolver() : shared_(std::make_shared<Shared>()) {
  std::thread([shared = shared_] { shared->run(); }).detach();
}

NameResolver::~NameResolver() {
  std::lock_guard lock(shared_->mu);
  shared_->stopping = true;
  shared_->wake.notify_all();
}

std::optional<SocketAddress> NameResolver::parse_numeric(const std::string& address) {
  return lookup(address, AI_NUMERICHOST);
}

int NameResolver::fd() const {
  return shared_->event;
}

void NameResolver::resolve(const std::string& address) {
  std::lock_guard lock(shared_->mu);
  shared_->asked.push_back(address);
  shared_->wake.notify_one();
}

std::vector<Resolved> NameResolver::take() {
  uint64_t count = 0;
  (void)!read(shared_->event, &count, sizeof count);
  std::lock_guard lock(shared_->mu);
  return std::exchange(shared_->answers, {});
}

}  // namespace cosi::controllers
