#include "controllers/k8s/load_balancer/load_balancer.h"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <atomic>
#include <cerrno>
#include <boost/asio.hpp>
#include <list>
#include <mutex>
#include <random>
#include <thread>

namespace cosi::controllers {

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using Clock = std::chrono::steady_clock;

constexpr size_t kBufferSize = 16 * 1024;
// Client bytes kept until the upstream answers, to give another upstream if it fails first (a
// TLS ClientHello, a request's headers).
constexpr size_t kReplayLimit = 64 * 1024;
// What a read waiting for data reads into: a request or a short answer in one go.
constexpr size_t kSmallBuffer = 1024;
// Idle buffers kept for the next transfers instead of freed (a megabyte at most).
constexpr size_t kSpareBuffers = 64;
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
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &kKeepAliveIntervalSeconds, sizeof kKeepAliveIntervalSeconds);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &kKeepAliveCount, sizeof kKeepAliveCount);
}

// "host:port" → host, port; the host may be "[v6]".
std::pair<std::string, std::string> split(const std::string& address) {
  const auto colon = address.rfind(':');
  std::string host = address.substr(0, colon);
  if (host.size() > 1 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, colon == std::string::npos ? "" : address.substr(colon + 1)};
}

class Balancer;

// One health check under way.
struct Probe {
  explicit Probe(asio::io_context& io) : socket(io), resolver(io), timer(io) {}
  void cancel() {
    error_code ignored;
    resolver.cancel();
    timer.cancel();
    socket.close(ignored);
  }
  tcp::socket socket;
  tcp::resolver resolver;
  asio::steady_timer timer;
  Clock::time_point started = Clock::now();
  bool finished = false;
};

// One client's connection: dialing the upstreams in turn, then copying both ways. Until the
// upstream has sent the client a byte, every byte the client sent is kept (up to kReplayLimit):
// an upstream that fails before it answers (killed while the connection was in its accept
// queue, say) is marked down and the next one is dialed and given those bytes again, so the
// client never sees the failure.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Balancer& lb, tcp::socket client);
  ~Connection();
  void dial(std::vector<std::string> order);
  void close();

 private:
  void try_next();
  void connected(unsigned generation, const std::string& address);
  void wait_client();
  void read_client();
  void from_client(const char* data, size_t n, size_t capacity, error_code ec);
  void wait_upstream(unsigned generation);
  void read_upstream(unsigned generation);
  void from_upstream(unsigned generation, const char* data, size_t n, size_t capacity, error_code ec);
  void upstream_failed(unsigned generation);
  void done_if_both_ended();

  Balancer& lb_;
  tcp::socket client_;
  tcp::socket upstream_;
  tcp::resolver resolver_;
  asio::steady_timer timer_;
  std::vector<std::string> order_;
  size_t next_ = 0;
  std::string address_;     // the upstream it is connected to; empty while dialing
  unsigned generation_ = 0;  // of the current dial: handlers of an older one do nothing
  bool answered_ = false;    // the upstream has sent the client something
  bool replayable_ = true;   // every client byte so far is in replay_
  std::string replay_;
  bool client_waiting_ = false;
  bool writing_up_ = false;
  bool client_ended_ = false;
  bool upstream_ended_ = false;
  std::unique_ptr<char[]> up_;    // big buffers, only while data flows
  std::unique_ptr<char[]> down_;
  char small_up_[kSmallBuffer];   // what the waiting reads read into
  char small_down_[kSmallBuffer];
  bool closed_ = false;
};

class Balancer final : public LoadBalancer {
 public:
  explicit Balancer(LoadBalancerOptions o) : o_(std::move(o)), acceptor_(io_), checks_(io_), rng_(std::random_device{}()) {}

  ~Balancer() override {
    asio::post(io_, [this] {
      stopping_ = true;
      error_code ec;
      acceptor_.close(ec);
      checks_.cancel();
      for (auto& w : live_) {
        if (auto c = w.lock()) c->close();
      }
      for (auto& w : probes_) {
        if (auto p = w.lock()) p->cancel();
      }
    });
    if (thread_.joinable()) thread_.join();
  }

  Status listen() {
    error_code ec;
    const auto address = asio::ip::make_address(o_.host, ec);
    if (ec) return Error(ErrorKind::kInvalidArgument, "KubePrism: \"" + o_.host + "\" is not an IP address");
    const tcp::endpoint at(address, static_cast<uint16_t>(o_.port));
    acceptor_.open(at.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(at, ec);
    if (!ec) set_tcp_options(acceptor_.native_handle(), true);  // every client socket inherits them
    if (!ec) acceptor_.listen(4096, ec);
    if (ec) return Error(ErrorKind::kUnavailable, "KubePrism cannot listen on " + address_text() + ": " + ec.message());
    accept();
    schedule_checks(std::chrono::milliseconds(0));
    thread_ = std::thread([this] { io_.run(); });
    return {};
  }

  void set_upstreams(const std::vector<std::string>& upstreams) override {
    {
      std::lock_guard lock(mu_);
      set_.assign(upstreams);
    }
    asio::post(io_, [this] { schedule_checks(std::chrono::milliseconds(0)); });  // new ones are checked at once
  }

  std::vector<UpstreamState> upstreams() const override {
    std::lock_guard lock(mu_);
    return set_.snapshot();
  }

  std::string address() const override { return address_text(); }
  int connections() const override { return connections_; }

  // For connections (the balancer's thread only, but for the lock its readers share).
  asio::io_context& io() { return io_; }
  const LoadBalancerOptions& options() const { return o_; }
  std::vector<std::string> dial_order() {
    std::lock_guard lock(mu_);
    return set_.dial_order();
  }
  void opened(const std::string& a) {
    std::lock_guard lock(mu_);
    set_.opened(a);
  }
  void closed(const std::string& a) {
    std::lock_guard lock(mu_);
    set_.closed(a);
  }
  void dial_failed(const std::string& a) { changed([&] { set_.failed(a); }); }
  void gone() { --connections_; }
  // Copy buffers, recycled between connections (the balancer's thread only).
  std::unique_ptr<char[]> take_buffer() {
    if (free_buffers_.empty()) return std::unique_ptr<char[]>(new char[kBufferSize]);
    auto b = std::move(free_buffers_.back());
    free_buffers_.pop_back();
    return b;
  }
  void give_buffer(std::unique_ptr<char[]>& b) {
    if (b && free_buffers_.size() < kSpareBuffers) free_buffers_.push_back(std::move(b));
    b.reset();
  }

 private:
  std::string address_text() const {
    return (o_.host.find(':') != std::string::npos ? "[" + o_.host + "]" : o_.host) + ":" + std::to_string(o_.port);
  }

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
        flipped = flipped || i >= before.size() || before[i].address != after[i].address || before[i].healthy != after[i].healthy;
      }
    }
    if (flipped && o_.on_change) o_.on_change();
  }

  void accept() {
    acceptor_.async_accept([this](error_code ec, tcp::socket client) {
      if (stopping_ || ec == asio::error::operation_aborted) return;
      if (!ec) {
        if (connections_ >= o_.max_connections) {
          const auto now = Clock::now();
          if (now - last_limit_log_ > std::chrono::seconds(1)) {
            last_limit_log_ = now;
            o_.log.warn("KubePrism connection limit reached: new clients are closed",
                        {{"limit", std::to_string(o_.max_connections)}, {"listen", address_text()}});
          }
          error_code ignored;
          client.close(ignored);
        } else {
          ++connections_;
          error_code ignored;
          client.non_blocking(true, ignored);
          auto c = std::make_shared<Connection>(*this, std::move(client));
          live_.push_back(c);
          if (live_.size() > 2 * static_cast<size_t>(connections_) + 64) live_.remove_if([](const auto& w) { return w.expired(); });
          c->dial(dial_order());
        }
      }
      accept();
    });
  }

  void schedule_checks(std::chrono::milliseconds after) {
    checks_.expires_after(after);
    checks_.async_wait([this](error_code ec) {
      if (ec || stopping_) return;
      for (const auto& u : upstreams()) check(u.address);
      const auto every = o_.check_every.count();
      std::uniform_int_distribution<long> jitter(-every / 10, every / 10);
      schedule_checks(std::chrono::milliseconds(every + jitter(rng_)));
    });
  }

  // One health check: a TCP connect within the check interval (the dial deadline at least).
  void check(const std::string& address) {
    auto p = std::make_shared<Probe>(io_);
    probes_.remove_if([](const auto& w) { return w.expired(); });
    probes_.push_back(p);
    auto done = [this, p, address](bool ok) {
      if (p->finished || stopping_) return;
      p->finished = true;
      p->cancel();
      const auto latency = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - p->started);
      changed([&] {
        if (ok) {
          set_.check_passed(address, latency);
        } else {
          set_.failed(address);
        }
      });
    };
    p->timer.expires_after(std::max(o_.check_every, o_.dial_timeout));
    p->timer.async_wait([done](error_code ec) {
      if (!ec) done(false);
    });
    const auto [host, port] = split(address);
    p->resolver.async_resolve(host, port, [p, done](error_code ec, tcp::resolver::results_type results) {
      if (ec) return done(false);
      asio::async_connect(p->socket, results, [done](error_code cec, const tcp::endpoint&) { done(!cec); });
    });
  }

  const LoadBalancerOptions o_;
  asio::io_context io_{1};  // one thread runs it
  tcp::acceptor acceptor_;
  asio::steady_timer checks_;
  std::mt19937 rng_;
  std::thread thread_;
  mutable std::mutex mu_;  // set_
  UpstreamSet set_;        // guarded by mu_
  std::atomic<int> connections_{0};
  std::list<std::weak_ptr<Connection>> live_;  // the balancer's thread only
  std::list<std::weak_ptr<Probe>> probes_;     // the balancer's thread only
  std::vector<std::unique_ptr<char[]>> free_buffers_;  // the balancer's thread only
  Clock::time_point last_limit_log_{};         // the balancer's thread only
  bool stopping_ = false;                      // the balancer's thread only
};

Connection::Connection(Balancer& lb, tcp::socket client)
    : lb_(lb), client_(std::move(client)), upstream_(lb.io()), resolver_(lb.io()), timer_(lb.io()) {}

Connection::~Connection() {
  if (!address_.empty()) lb_.closed(address_);
  lb_.give_buffer(up_);
  lb_.give_buffer(down_);
  lb_.gone();
}

// The client is read once an upstream is connected: by then its first bytes are usually there
// (no read that finds nothing), and any read before an answer is kept for a retry anyway.
void Connection::dial(std::vector<std::string> order) {
  order_ = std::move(order);
  try_next();
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  error_code ignored;
  timer_.cancel();
  resolver_.cancel();
  client_.close(ignored);
  upstream_.close(ignored);
}

// The next upstream within the dial deadline; none left: the client is closed, cleanly.
void Connection::try_next() {
  if (closed_) return;
  if (next_ >= order_.size()) {
    close();
    return;
  }
  const unsigned g = ++generation_;
  const std::string address = order_[next_++];
  auto self = shared_from_this();
  timer_.expires_after(lb_.options().dial_timeout);
  timer_.async_wait([self, g, address](error_code ec) {
    if (ec || g != self->generation_ || self->closed_) return;
    self->upstream_failed(g);
  });
  auto on_connect = [self, g, address](error_code ec) {
    if (g != self->generation_ || self->closed_) return;
    if (ec) return self->upstream_failed(g);
    self->timer_.cancel();
    self->connected(g, address);
  };
  const auto [host, port] = split(address);
  error_code not_numeric;
  const auto ip = asio::ip::make_address(host, not_numeric);
  if (!not_numeric) {  // an address: no resolver (it runs on a thread of its own)
    const tcp::endpoint to(ip, static_cast<uint16_t>(std::stoi(port)));
    error_code oec;
    upstream_.open(to.protocol(), oec);
    if (oec) return upstream_failed(g);
    set_tcp_options(upstream_.native_handle(), false);
    upstream_.non_blocking(true, oec);
    // connect(2) itself, then a wait to be writable and SO_ERROR: asio's connect polls the
    // socket once more.
    if (::connect(upstream_.native_handle(), to.data(), static_cast<socklen_t>(to.size())) == 0) return on_connect({});
    if (errno != EINPROGRESS) return on_connect(error_code(errno, boost::system::system_category()));
    upstream_.async_wait(tcp::socket::wait_write, [self, on_connect](error_code wec) {
      if (wec) return on_connect(wec);
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(self->upstream_.native_handle(), SOL_SOCKET, SO_ERROR, &err, &len);
      on_connect(err == 0 ? error_code() : error_code(err, boost::system::system_category()));
    });
    return;
  }
  resolver_.async_resolve(host, port, [self, g, on_connect](error_code ec, tcp::resolver::results_type results) {
    if (g != self->generation_ || self->closed_) return;
    if (ec) return self->upstream_failed(g);
    asio::async_connect(self->upstream_, results, [on_connect](error_code cec, const tcp::endpoint&) { on_connect(cec); });
  });
}

// Down, or gone before it answered: the next upstream gets the client's bytes again. After
// the first byte back to the client there is no going back: the client sees the failure.
void Connection::upstream_failed(unsigned g) {
  if (g != generation_ || closed_) return;
  if (address_.empty()) {
    lb_.dial_failed(order_[next_ - 1]);  // a failed dial marks the upstream down at once
  } else {
    lb_.closed(address_);  // one that accepted and then went is left to the health checks
    address_.clear();
  }
  if (answered_ || !replayable_) return close();
  ++generation_;  // whatever is pending on the old socket does nothing now
  writing_up_ = false;
  error_code ignored;
  upstream_.close(ignored);
  upstream_ = tcp::socket(lb_.io());
  try_next();
}

void Connection::connected(unsigned g, const std::string& address) {
  address_ = address;
  lb_.opened(address);
  if (!upstream_.non_blocking()) {  // dialed by name: opened by the resolver's connect
    set_tcp_options(upstream_.native_handle(), false);
    error_code ignored;
    upstream_.non_blocking(true, ignored);
  }
  wait_upstream(g);
  if (!replay_.empty()) {
    // What the client sent while dialing (or to an upstream that failed), first.
    auto bytes = std::make_shared<std::string>(replay_);
    writing_up_ = true;
    auto self = shared_from_this();
    asio::async_write(upstream_, asio::buffer(*bytes), [self, g, bytes](error_code ec, size_t) {
      if (g != self->generation_ || self->closed_) return;
      self->writing_up_ = false;
      if (ec) return self->upstream_failed(g);
      if (self->client_ended_) {
        error_code ignored;
        self->upstream_.shutdown(tcp::socket::shutdown_send, ignored);
      } else if (!self->client_waiting_) {
        self->wait_client();
      }
    });
  } else if (client_ended_) {
    error_code ignored;
    upstream_.shutdown(tcp::socket::shutdown_send, ignored);
  } else if (!client_waiting_) {
    wait_client();
  }
}

// Waiting for the client reads into a small buffer of the connection's own (asio's read ops,
// unlike its waits, cost no epoll_ctl each time); a read that fills it goes on into a big one.
void Connection::wait_client() {
  lb_.give_buffer(up_);  // idle: no big buffer held
  client_waiting_ = true;
  auto self = shared_from_this();
  client_.async_read_some(asio::buffer(small_up_, kSmallBuffer), [self](error_code ec, size_t n) {
    self->client_waiting_ = false;
    if (self->closed_) return;
    self->from_client(self->small_up_, n, kSmallBuffer, ec);
  });
}

// More is likely there: read it into a big buffer now.
void Connection::read_client() {
  if (closed_ || writing_up_ || client_ended_) return;
  if (!up_) up_ = lb_.take_buffer();
  error_code ec;
  const size_t n = client_.read_some(asio::buffer(up_.get(), kBufferSize), ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) return wait_client();
  from_client(up_.get(), n, kBufferSize, ec);
}

// Client → upstream. While no upstream is connected the bytes only go to replay_, and reading
// pauses until one is.
void Connection::from_client(const char* data, size_t n, size_t capacity, error_code ec) {
  if (ec == asio::error::eof) {
    client_ended_ = true;
    if (!address_.empty() && !upstream_ended_) {  // no point telling one that has closed
      error_code ignored;
      upstream_.shutdown(tcp::socket::shutdown_send, ignored);
    }
    return done_if_both_ended();
  }
  if (ec) return close();
  if (!answered_ && replayable_) {
    if (replay_.size() + n <= kReplayLimit) {
      replay_.append(data, n);
    } else {
      replayable_ = false;
      replay_.clear();
      if (address_.empty()) return close();  // nowhere to send it, and too much to keep
    }
  }
  if (address_.empty()) return;  // kept in replay_; sent once an upstream is connected
  const unsigned g = generation_;
  const bool full = n == capacity;
  // Written at once when the socket takes it all (the common case: no handler to run later).
  error_code wec;
  const size_t sent = upstream_.write_some(asio::buffer(data, n), wec);
  if (wec && wec != asio::error::would_block && wec != asio::error::try_again) return upstream_failed(g);
  if (!wec && sent == n) return full ? read_client() : wait_client();
  writing_up_ = true;
  auto self = shared_from_this();
  const size_t done = wec ? 0 : sent;
  asio::async_write(upstream_, asio::buffer(data + done, n - done), [self, g, full](error_code aec, size_t) {
    if (g != self->generation_ || self->closed_) return;
    self->writing_up_ = false;
    if (aec) return self->upstream_failed(g);
    if (full) return self->read_client();
    self->wait_client();
  });
}

void Connection::wait_upstream(unsigned g) {
  lb_.give_buffer(down_);
  auto self = shared_from_this();
  upstream_.async_read_some(asio::buffer(small_down_, kSmallBuffer), [self, g](error_code ec, size_t n) {
    if (g != self->generation_ || self->closed_) return;
    self->from_upstream(g, self->small_down_, n, kSmallBuffer, ec);
  });
}

void Connection::read_upstream(unsigned g) {
  if (g != generation_ || closed_) return;
  if (!down_) down_ = lb_.take_buffer();
  error_code ec;
  const size_t n = upstream_.read_some(asio::buffer(down_.get(), kBufferSize), ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) return wait_upstream(g);
  from_upstream(g, down_.get(), n, kBufferSize, ec);
}

// Upstream → client, the same way; an end before any byte (the client still sending) counts as
// a failure to retry.
void Connection::from_upstream(unsigned g, const char* data, size_t n, size_t capacity, error_code ec) {
  // An end after an answer, or once the client has ended its side, is the upstream's reply.
  if (ec == asio::error::eof && (answered_ || client_ended_)) {
    upstream_ended_ = true;
    if (!client_ended_) {
      error_code ignored;
      client_.shutdown(tcp::socket::shutdown_send, ignored);
    }
    return done_if_both_ended();
  }
  if (ec) return upstream_failed(g);
  if (!answered_) {
    answered_ = true;
    replay_.clear();
    replay_.shrink_to_fit();
  }
  const bool full = n == capacity;
  error_code wec;
  const size_t sent = client_.write_some(asio::buffer(data, n), wec);
  if (wec && wec != asio::error::would_block && wec != asio::error::try_again) return close();
  if (!wec && sent == n) return full ? read_upstream(g) : wait_upstream(g);
  auto self = shared_from_this();
  const size_t done = wec ? 0 : sent;
  asio::async_write(client_, asio::buffer(data + done, n - done), [self, g, full](error_code aec, size_t) {
    if (self->closed_) return;
    if (aec) return self->close();
    if (g != self->generation_) return;
    if (full) return self->read_upstream(g);
    self->wait_upstream(g);
  });
}

void Connection::done_if_both_ended() {
  if (client_ended_ && upstream_ended_) close();
}

}  // namespace

Result<std::unique_ptr<LoadBalancer>> LoadBalancer::start(LoadBalancerOptions options) {
  if (options.port < 1 || options.port > 65535) {
    return Error(ErrorKind::kInvalidArgument, "KubePrism port " + std::to_string(options.port) + " is not in 1..65535");
  }
  auto lb = std::make_unique<Balancer>(std::move(options));
  if (auto s = lb->listen(); !s.ok()) return s.error();
  return std::unique_ptr<LoadBalancer>(std::move(lb));
}

}  // namespace cosi::controllers
