#include "controllers/k8s/load_balancer/load_balancer.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <unordered_map>

#include "controllers/k8s/load_balancer/name_resolver.h"
#include "controllers/k8s/load_balancer/readyz_check.h"

namespace cosi::controllers {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kBufferSize = 16 * 1024;
// Client bytes kept until the upstream answers, to give another upstream if it fails first (a
// TLS ClientHello, a request's headers).
constexpr size_t kReplayLimit = 64 * 1024;
// Idle buffers kept for the next transfers instead of freed (a megabyte at most).
constexpr size_t kSpareBuffers = 64;
constexpr int kAcceptsPerWakeup = 64;
constexpr int kKeepAliveIdleSeconds = 30;
constexpr int kKeepAliveIntervalSeconds = 5;
constexpr int kKeepAliveCount = 3;
constexpr unsigned kUserTimeoutMs = 15000;

// TCP_NODELAY, keep-alive and TCP_USER_TIMEOUT on a socket. An accepted one inherits them from
// the listening socket; an upstream one gets keep-alive with the system's timings (a dead peer
// with unacknowledged data is cut off by TCP_USER_TIMEOUT anyway) — three calls fewer for each
// connection, which a connection per request pays.
void set_tcp_options(int fd, bool keepalive_timings) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &kUserTimeoutMs, sizeof kUserTimeoutMs);
  if (!keepalive_timings) return;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &kKeepAliveIdleSeconds, sizeof kKeepAliveIdleSeconds);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &kKeepAliveIntervalSeconds,
             sizeof kKeepAliveIntervalSeconds);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &kKeepAliveCount, sizeof kKeepAliveCount);
}

bool would_block() {
  return errno == EAGAIN || errno == EWOULDBLOCK;
}

// What an epoll event is about: the kind of socket, the slot of its owner, and the tag the
// socket was registered with (a slot is reused and a connection redials, so an event still
// queued for a socket that has gone finds a different tag and is dropped).
enum class Kind : uint64_t { kListener = 1, kWake, kResolver, kClient, kUpstream, kProbe, kReadyz };

uint64_t token(Kind kind, uint32_t slot = 0, uint32_t tag = 0) {
  return static_cast<uint64_t>(tag) << 32 | static_cast<uint64_t>(slot) << 3 |
         static_cast<uint64_t>(kind);
}

// One socket of a connection and what its events said about it. Edge-triggered: `readable`
// and `writable` stay set until a call finds otherwise (EAGAIN, or a short read or write).
struct Side {
  int fd = -1;
  uint32_t tag = 0;
  bool readable = false;
  bool writable = false;
  bool peer_ended = false;  // its FIN has arrived (EPOLLRDHUP): a short read has read it all
  bool ended = false;       // its end of stream has been read
  bool shut = false;        // our sending side towards it is shut down
};

// A copy buffer, taken from the balancer's spares only while bytes are in it.
struct Buffer {
  std::unique_ptr<char[]> data;
  size_t off = 0;
  size_t len = 0;
  size_t pending() const { return len - off; }
};

// One client's connection: dialing the upstreams in turn, then copying both ways. Until the
// upstream has sent the client a byte, every byte the client sent is kept in `replay` (up to
// kReplayLimit): an upstream that fails before it answers (killed while the connection was in
// its accept queue, say) is marked down and the next one is dialed and given those bytes
// again, so the client never sees the failure.
struct Connection {
  Side client;
  Side upstream;
  bool in_use = false;
  bool dialing = false;
  std::vector<std::string> order;  // upstreams to try, best first
  size_t next = 0;
  std::string address;    // of the upstream dialed or connected
  bool answered = false;  // the upstream has sent the client something
  bool replaying = true;  // client bytes go through `replay` (no answer yet, all kept)
  std::string replay;
  size_t replay_sent = 0;
  Buffer up;    // client → upstream, once replaying is over
  Buffer down;  // upstream → client
};

// One health check under way: a name being resolved, a connect (fd), or an HTTPS /readyz
// running on a thread of ReadyzCheck's.
struct Probe {
  std::string address;
  bool resolving = false;
  int fd = -1;
  uint32_t tag = 0;
  Clock::time_point started;
  Clock::time_point deadline;
  bool in_use = false;
};

struct DialDeadline {
  Clock::time_point at;
  uint32_t slot;
  uint32_t tag;
};

class Balancer final : public LoadBalancer {
 public:
  explicit Balancer(LoadBalancerOptions o) : o_(std::move(o)), rng_(std::random_device{}()) {}

  ~Balancer() override {
    stopping_ = true;
    wake();
    if (thread_.joinable()) thread_.join();
    for (size_t i = 0; i < connections_pool_.size(); ++i) {
      if (connections_pool_[i].in_use) finish(static_cast<uint32_t>(i));
    }
    for (auto& p : probes_) {
      if (p.fd >= 0) ::close(p.fd);
    }
    if (listener_ >= 0) ::close(listener_);
    if (wake_ >= 0) ::close(wake_);
    if (epoll_ >= 0) ::close(epoll_);
  }

  Status listen() {
    const std::string where = address_text();
    auto at = NameResolver::parse_numeric(where);
    if (!at)
      return Error(ErrorKind::kInvalidArgument,
                   "KubePrism: \"" + o_.host + "\" is not an IP address");
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    wake_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    listener_ = socket(at->family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (epoll_ < 0 || wake_ < 0 || listener_ < 0)
      return Error(ErrorKind::kUnavailable, "KubePrism: " + std::string(strerror(errno)));
    const int one = 1;
    setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    set_tcp_options(listener_, true);  // every client socket inherits them
    if (bind(listener_, at->get(), at->length) != 0 || ::listen(listener_, 4096) != 0) {
      return Error(ErrorKind::kUnavailable,
                   "KubePrism cannot listen on " + where + ": " + strerror(errno));
    }
    add(listener_, EPOLLIN, token(Kind::kListener));
    add(wake_, EPOLLIN, token(Kind::kWake));
    add(resolver_.fd(), EPOLLIN, token(Kind::kResolver));
    add(readyz_.fd(), EPOLLIN, token(Kind::kReadyz));
    thread_ = std::thread([this] { run(); });
    return {};
  }

  void set_upstreams(const std::vector<std::string>& upstreams) override {
    {
      std::lock_guard lock(mu_);
      set_.assign(upstreams);
    }
    check_now_ = true;  // new ones are checked at once
    wake();
  }

  std::vector<UpstreamState> upstreams() const override {
    std::lock_guard lock(mu_);
    return set_.snapshot();
  }

  std::string address() const override { return address_text(); }
  int connections() const override { return connections_; }

 private:
  std::string address_text() const {
    return (o_.host.find(':') != std::string::npos ? "[" + o_.host + "]" : o_.host) + ":" +
           std::to_string(o_.port);
  }

  void wake() {
    const uint64_t one = 1;
    if (wake_ >= 0) (void)!write(wake_, &one, sizeof one);
  }

  void listen_for(uint32_t events) {
    epoll_event e{};
    e.events = events;
    e.data.u64 = token(Kind::kListener);
    epoll_ctl(epoll_, EPOLL_CTL_MOD, listener_, &e);
  }

  void add(int fd, uint32_t events, uint64_t tok) {
    epoll_event e{};
    e.events = events;
    e.data.u64 = tok;
    epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &e);
  }

  // Never 0: a side without a socket has tag 0.
  uint32_t next_tag() {
    if (++tags_ == 0) ++tags_;
    return tags_;
  }

  // --- the loop ---

  void run() {
    epoll_event events[256];
    next_check_ = Clock::now();
    while (!stopping_) {
      const int n = epoll_wait(epoll_, events, 256, timeout_ms());
      now_ = Clock::now();
      for (int i = 0; i < n; ++i) dispatch(events[i]);
      expire_dials();
      expire_probes();
      if (accept_paused_until_ && now_ >= *accept_paused_until_) {
        accept_paused_until_.reset();
        listen_for(EPOLLIN);
      }
      if (check_now_.exchange(false) || now_ >= next_check_) check_all();
    }
  }

  // Until the next dial deadline, probe deadline or round of checks.
  int timeout_ms() const {
    const auto now = Clock::now();
    auto until = next_check_;
    if (accept_paused_until_) until = std::min(until, *accept_paused_until_);
    if (!dials_.empty()) until = std::min(until, dials_.front().at);
    for (const auto& p : probes_) {
      if (p.in_use) until = std::min(until, p.deadline);
    }
    if (until <= now) return 0;
    return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(until - now).count());
  }

  void dispatch(const epoll_event& e) {
    const auto kind = static_cast<Kind>(e.data.u64 & 7);
    const auto slot = static_cast<uint32_t>((e.data.u64 & 0xffffffff) >> 3);
    const auto tag = static_cast<uint32_t>(e.data.u64 >> 32);
    switch (kind) {
      case Kind::kListener:
        return accept_all();
      case Kind::kWake: {
        uint64_t count = 0;
        (void)!read(wake_, &count, sizeof count);
        return;
      }
      case Kind::kResolver:
        return resolved(resolver_.take());
      case Kind::kReadyz:
        return readyz_answered(readyz_.take());
      case Kind::kClient:
      case Kind::kUpstream: {
        if (slot >= connections_pool_.size()) return;
        Connection& c = connections_pool_[slot];
        Side& side = kind == Kind::kClient ? c.client : c.upstream;
        if (!c.in_use || side.tag != tag) return;  // an event of a socket that has gone
        const bool error = (e.events & (EPOLLERR | EPOLLHUP)) != 0;
        if (&side == &c.upstream && c.dialing) {
          if (error || (e.events & EPOLLOUT) == 0) return upstream_failed(slot);
          return connected(slot, e.events);
        }
        note(side, e.events);
        return pump(slot);
      }
      case Kind::kProbe: {
        if (slot >= probes_.size() || !probes_[slot].in_use || probes_[slot].tag != tag) return;
        return probe_done(slot,
                          (e.events & (EPOLLERR | EPOLLHUP)) == 0 && (e.events & EPOLLOUT) != 0);
      }
    }
  }

  static void note(Side& side, uint32_t events) {
    const bool error = (events & (EPOLLERR | EPOLLHUP)) != 0;
    if ((events & (EPOLLIN | EPOLLRDHUP)) != 0 || error) side.readable = true;
    if ((events & EPOLLOUT) != 0 || error) side.writable = true;
    if ((events & (EPOLLRDHUP | EPOLLHUP)) != 0) side.peer_ended = true;
  }

  // --- accepting ---

  void accept_all() {
    for (int i = 0; i < kAcceptsPerWakeup; ++i) {
      const int fd = accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (would_block()) return;
        // Out of descriptors (EMFILE, ENFILE) or memory: the client stays queued and the
        // listener readable, so accepting pauses for a tenth of a second instead of spinning.
        log_limited("KubePrism cannot accept: " + std::string(strerror(errno)));
        listen_for(0);
        accept_paused_until_ = now_ + std::chrono::milliseconds(100);
        return;
      }
      if (connections_ >= o_.max_connections) {
        ::close(fd);
        log_limited("KubePrism connection limit reached: new clients are closed");
        continue;
      }
      ++connections_;
      const uint32_t slot = take_slot();
      Connection& c = connections_pool_[slot];
      c.client.fd = fd;
      c.client.tag = next_tag();
      add(fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, token(Kind::kClient, slot, c.client.tag));
      {
        std::lock_guard lock(mu_);
        set_.dial_order_into(c.order);
      }
      try_next(slot);
    }
  }

  // Once a second at most: a full descriptor table or the bound would otherwise log each client.
  void log_limited(const std::string& message) {
    const auto now = Clock::now();
    if (now - last_limit_log_ < std::chrono::seconds(1)) return;
    last_limit_log_ = now;
    o_.log.warn(message,
                {{"limit", std::to_string(o_.max_connections)}, {"listen", address_text()}});
  }

  uint32_t take_slot() {
    uint32_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<uint32_t>(connections_pool_.size());
      connections_pool_.emplace_back();
    }
    Connection& c = connections_pool_[slot];
    c.in_use = true;
    c.dialing = false;
    c.next = 0;
    c.answered = false;
    c.replaying = true;
    c.replay.clear();
    c.replay_sent = 0;
    c.client = {};
    c.upstream = {};
    return slot;
  }

  // Closes both sockets (the kernel drops them from the epoll set) and frees the slot.
  void finish(uint32_t slot) {
    Connection& c = connections_pool_[slot];
    if (!c.in_use) return;
    if (c.client.fd >= 0) ::close(c.client.fd);
    if (c.upstream.fd >= 0) ::close(c.upstream.fd);
    if (!c.address.empty() && !c.dialing) {
      std::lock_guard lock(mu_);
      set_.closed(c.address);
    }
    c.address.clear();
    c.client = {};
    c.upstream = {};
    c.in_use = false;
    give_buffer(c.up);
    give_buffer(c.down);
    if (c.replay.capacity() > kBufferSize)
      c.replay = std::string();  // a big request's room is not kept

    free_slots_.push_back(slot);
    --connections_;
  }

  // --- dialing ---

  // The next upstream, with a deadline; none left: the client is closed, cleanly.
  void try_next(uint32_t slot) {
    Connection& c = connections_pool_[slot];
    while (c.next < c.order.size()) {
      c.address = c.order[c.next++];
      const auto to = address_of(c.address);
      const int fd = to ? socket(to->family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0) : -1;
      if (fd >= 0) {
        set_tcp_options(fd, false);
        if (::connect(fd, to->get(), to->length) == 0 || errno == EINPROGRESS) {
          c.upstream = {.fd = fd, .tag = next_tag()};
          c.dialing = true;
          // Its first event says how the connect went: writable, or an error.
          add(fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
              token(Kind::kUpstream, slot, c.upstream.tag));
          dials_.push_back({now_ + o_.dial_timeout, slot, c.upstream.tag});
          return;
        }
        ::close(fd);
      }
      mark_failed(c.address);
    }
    c.address.clear();
    finish(slot);
  }

  // A numeric address parsed once; a name as the health checks last resolved it.
  std::optional<SocketAddress> address_of(const std::string& address) {
    if (auto it = addresses_.find(address); it != addresses_.end()) return it->second;
    auto numeric = NameResolver::parse_numeric(address);
    if (numeric) addresses_.emplace(address, *numeric);
    return numeric;
  }

  void expire_dials() {
    while (!dials_.empty() && dials_.front().at <= now_) {
      const DialDeadline d = dials_.front();
      dials_.pop_front();
      Connection& c = connections_pool_[d.slot];
      if (c.in_use && c.dialing && c.upstream.tag == d.tag) upstream_failed(d.slot);
    }
  }

  void mark_failed(const std::string& address) {
    changed([&] { set_.failed(address); });
  }

  void connected(uint32_t slot, uint32_t events) {
    Connection& c = connections_pool_[slot];
    c.dialing = false;
    {
      std::lock_guard lock(mu_);
      set_.opened(c.address);
    }
    c.replay_sent = 0;
    note(c.upstream, events);
    pump(slot);
  }

  // Down, or gone before it answered: the next upstream gets the client's bytes again. After
  // the first byte back to the client there is no going back: the client sees the failure.
  void upstream_failed(uint32_t slot) {
    Connection& c = connections_pool_[slot];
    if (c.dialing) {
      mark_failed(c.address);  // a failed dial marks the upstream down at once
    } else {
      std::lock_guard lock(mu_);
      set_.closed(c.address);  // one that accepted and then went is left to the health checks
    }
    ::close(c.upstream.fd);
    c.upstream = {};
    c.dialing = false;
    c.address.clear();
    if (c.answered || !c.replaying) return finish(slot);
    c.replay_sent = 0;
    try_next(slot);
  }

  // --- copying ---

  std::unique_ptr<char[]> take_buffer() {
    if (spare_buffers_.empty()) return std::unique_ptr<char[]>(new char[kBufferSize]);
    auto b = std::move(spare_buffers_.back());
    spare_buffers_.pop_back();
    return b;
  }

  void give_buffer(Buffer& b) {
    if (b.data && spare_buffers_.size() < kSpareBuffers)
      spare_buffers_.push_back(std::move(b.data));
    b.data.reset();
    b.off = b.len = 0;
  }

  // Moves what can move in both directions; closes the connection once both ends are over.
  void pump(uint32_t slot) {
    Connection& c = connections_pool_[slot];
    if (c.upstream.fd >= 0 && !c.dialing && !pump_down(slot)) return;
    if (!pump_up(slot)) return;
    Connection& d = connections_pool_[slot];
    if (d.in_use && d.client.ended && d.upstream.ended && d.up.pending() == 0 &&
        d.down.pending() == 0)
      finish(slot);
  }

  // Client → upstream. While no upstream is connected the bytes only go to `replay`, and
  // reading pauses when it is full. False when the connection is over.
  bool pump_up(uint32_t slot) {
    Connection& c = connections_pool_[slot];
    const bool connected = c.upstream.fd >= 0 && !c.dialing;
    while (true) {
      if (c.replaying && c.replay_sent == c.replay.size() && connected &&
          (c.answered || c.replay.size() >= kReplayLimit)) {
        c.replaying = false;  // answered, or too much to keep: from now on, no retry
        c.replay.clear();
        c.replay_sent = 0;
      }
      const char* data = c.replaying ? c.replay.data() + c.replay_sent : c.up.data.get() + c.up.off;
      const size_t pending = c.replaying ? c.replay.size() - c.replay_sent : c.up.pending();
      if (pending > 0) {
        if (!connected || !c.upstream.writable) break;
        const ssize_t n = ::send(c.upstream.fd, data, pending, MSG_NOSIGNAL);
        if (n < 0) {
          if (errno == EINTR) continue;
          if (!would_block()) {
            upstream_failed(slot);
            return connections_pool_[slot].in_use;
          }
          c.upstream.writable = false;
          break;
        }
        (c.replaying ? c.replay_sent : c.up.off) += static_cast<size_t>(n);
        if (static_cast<size_t>(n) < pending) {
          c.upstream.writable = false;  // full: an edge comes when it drains
          break;
        }
        continue;
      }
      give_buffer(c.up);  // idle: no buffer held
      if (c.client.ended) {
        if (connected && !c.upstream.shut && !c.upstream.ended) {
          shutdown(c.upstream.fd, SHUT_WR);
          c.upstream.shut = true;
        }
        break;
      }
      if (!c.client.readable) break;
      // While replaying, the buffer is only where a read lands before it joins `replay`.
      const size_t room =
          c.replaying ? std::min(kReplayLimit - c.replay.size(), kBufferSize) : kBufferSize;
      if (room == 0) break;  // full until an upstream takes it
      c.up.data = take_buffer();
      const ssize_t n = ::recv(c.client.fd, c.up.data.get(), room, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (!would_block()) {
          finish(slot);
          return false;
        }
        c.client.readable = false;
        continue;
      }
      const auto got = static_cast<size_t>(n);
      if (c.replaying) {
        c.replay.append(c.up.data.get(), got);
      } else {
        c.up.off = 0;
        c.up.len = got;
      }
      if (n == 0 || (got < room && c.client.peer_ended)) {
        c.client.ended = true;  // all of it read: an end of stream
      } else if (got < room) {
        c.client.readable = false;  // drained: the next byte brings an edge
      }
    }
    return true;
  }

  // Upstream → client, the same way; an end before any byte (the client still sending) counts
  // as a failure to retry. False when the connection is over.
  bool pump_down(uint32_t slot) {
    Connection& c = connections_pool_[slot];
    while (true) {
      const size_t pending = c.down.pending();
      if (pending > 0) {
        if (!c.client.writable) break;
        const ssize_t n =
            ::send(c.client.fd, c.down.data.get() + c.down.off, pending, MSG_NOSIGNAL);
        if (n < 0) {
          if (errno == EINTR) continue;
          if (!would_block()) {
            finish(slot);
            return false;
          }
          c.client.writable = false;
          break;
        }
        c.down.off += static_cast<size_t>(n);
        if (static_cast<size_t>(n) < pending) {
          c.client.writable = false;
          break;
        }
        continue;
      }
      give_buffer(c.down);
      if (c.upstream.ended) {
        if (c.client.ended) {
          finish(slot);
          return false;
        }
        if (!c.client.shut) {
          shutdown(c.client.fd, SHUT_WR);
          c.client.shut = true;
        }
        break;
      }
      if (!c.upstream.readable) break;
      c.down.data = take_buffer();
      const ssize_t n = ::recv(c.upstream.fd, c.down.data.get(), kBufferSize, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (!would_block()) {
          upstream_failed(slot);
          return connections_pool_[slot].in_use && !connections_pool_[slot].dialing;
        }
        c.upstream.readable = false;
        continue;
      }
      const bool ends = n == 0 || (static_cast<size_t>(n) < kBufferSize && c.upstream.peer_ended);
      if (n == 0 && !c.answered && !c.client.ended) {
        // An end before an answer while the client may still be talking: a failure to retry.
        upstream_failed(slot);
        return connections_pool_[slot].in_use && !connections_pool_[slot].dialing;
      }
      if (n > 0) c.answered = true;
      c.down.off = 0;
      c.down.len = static_cast<size_t>(n);
      if (ends) {
        c.upstream.ended = true;
      } else if (static_cast<size_t>(n) < kBufferSize) {
        c.upstream.readable = false;
      }
    }
    return true;
  }

  // --- health checks ---

  // Applies `edit` to the set and tells the owner when any upstream's health flipped.
  template <class Edit>
  void changed(Edit edit) {
    bool flipped = false;
    {
      std::lock_guard lock(mu_);
      const auto before = set_.snapshot();
      edit();
      const auto after = set_.snapshot();
      for (size_t i = 0; i < after.size(); ++i) {
        flipped = flipped || i >= before.size() || before[i].address != after[i].address ||
                  before[i].healthy != after[i].healthy;
      }
    }
    if (flipped && o_.on_change) o_.on_change();
  }

  // A check of every upstream that has none under way; the next round in a second, ± 10%.
  void check_all() {
    for (const auto& u : upstreams()) {
      bool running = false;
      for (const auto& p : probes_) running = running || (p.in_use && p.address == u.address);
      if (!running) check(u.address);
    }
    const auto every = o_.check_every.count();
    std::uniform_int_distribution<long> jitter(-every / 10, every / 10);
    next_check_ = now_ + std::chrono::milliseconds(every + jitter(rng_));
  }

  // One health check within the check interval (the dial deadline at least): a TCP connect or
  // an HTTPS /readyz; a name is resolved first, and the answer kept for the dials.
  void check(const std::string& address) {
    size_t slot = 0;
    while (slot < probes_.size() && probes_[slot].in_use) ++slot;
    if (slot == probes_.size()) probes_.emplace_back();
    Probe& p = probes_[slot];
    p = {.address = address,
         .resolving = false,
         .fd = -1,
         .tag = next_tag(),
         .started = now_,
         .deadline = now_ + std::max(o_.check_every, o_.dial_timeout),
         .in_use = true};
    if (auto numeric = NameResolver::parse_numeric(address)) return run_probe(slot, *numeric);
    p.resolving = true;
    resolver_.resolve(address);
  }

  void run_probe(size_t slot, const SocketAddress& to) {
    Probe& p = probes_[slot];
    p.resolving = false;
    if (o_.health_check == HealthCheck::kHttpsReadyz) {
      return readyz_.start(p.address, to, p.tag,
                           std::chrono::duration_cast<std::chrono::milliseconds>(p.deadline - now_));
    }
    p.fd = socket(to.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (p.fd < 0 || (::connect(p.fd, to.get(), to.length) != 0 && errno != EINPROGRESS))
      return probe_done(slot, false);
    add(p.fd, EPOLLOUT, token(Kind::kProbe, static_cast<uint32_t>(slot), p.tag));
  }

  void resolved(const std::vector<Resolved>& answers) {
    for (const auto& a : answers) {
      if (a.ok) {
        addresses_[a.address] = a.to;
      } else {
        addresses_.erase(a.address);
      }
      for (size_t slot = 0; slot < probes_.size(); ++slot) {
        Probe& p = probes_[slot];
        if (!p.in_use || !p.resolving || p.address != a.address) continue;
        if (a.ok) {
          run_probe(slot, a.to);
        } else {
          probe_done(slot, false);
        }
      }
    }
  }

  void readyz_answered(const std::vector<ReadyzAnswer>& answers) {
    for (const auto& a : answers) {
      for (size_t slot = 0; slot < probes_.size(); ++slot) {
        const Probe& p = probes_[slot];
        if (!p.in_use || p.tag != a.tag) continue;  // else it timed out, and was counted
        if (!a.ok && !stopping_) o_.log.debug("KubePrism health check failed", {{"upstream", a.address}, {"why", a.why}});
        probe_done(slot, a.ok, a.connect_latency);
      }
    }
  }

  // `latency`: the connect's, when the check measured it (a readyz check's TLS round trips
  // are not the upstream's distance).
  void probe_done(size_t slot, bool ok, std::optional<std::chrono::microseconds> latency = std::nullopt) {
    Probe& p = probes_[slot];
    if (p.fd >= 0) ::close(p.fd);
    p.fd = -1;
    p.in_use = false;
    if (stopping_) return;
    if (!latency)
      latency = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - p.started);
    changed([&] {
      if (ok) {
        set_.check_passed(p.address, *latency);
      } else {
        set_.failed(p.address);
      }
    });
  }

  void expire_probes() {
    for (size_t slot = 0; slot < probes_.size(); ++slot) {
      if (probes_[slot].in_use && probes_[slot].deadline <= now_) probe_done(slot, false);
    }
  }

  const LoadBalancerOptions o_;
  std::mt19937 rng_;
  int epoll_ = -1;
  int listener_ = -1;
  int wake_ = -1;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> check_now_{false};
  std::atomic<int> connections_{0};
  mutable std::mutex mu_;  // set_
  UpstreamSet set_;        // guarded by mu_
  // The loop's thread only:
  NameResolver resolver_;
  ReadyzCheck readyz_;
  std::deque<Connection> connections_pool_;  // slots; a deque keeps their addresses
  std::vector<uint32_t> free_slots_;
  std::deque<DialDeadline> dials_;  // in deadline order: every dial gets the same time
  std::vector<Probe> probes_;
  std::unordered_map<std::string, SocketAddress> addresses_;
  std::vector<std::unique_ptr<char[]>> spare_buffers_;
  uint32_t tags_ = 0;
  Clock::time_point now_ = Clock::now();
  Clock::time_point next_check_ = Clock::now();
  Clock::time_point last_limit_log_{};
  std::optional<Clock::time_point> accept_paused_until_;
};

}  // namespace

Result<std::unique_ptr<LoadBalancer>> LoadBalancer::start(LoadBalancerOptions options) {
  if (options.port < 1 || options.port > 65535) {
    return Error(ErrorKind::kInvalidArgument,
                 "KubePrism port " + std::to_string(options.port) + " is not in 1..65535");
  }
  auto lb = std::make_unique<Balancer>(std::move(options));
  if (auto s = lb->listen(); !s.ok()) return s.error();
  return std::unique_ptr<LoadBalancer>(std::move(lb));
}

}  // namespace cosi::controllers
