#include "controllers/k8s/load_balancer/load_balancer.h"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <atomic>
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
constexpr int kKeepAliveIdleSeconds = 30;
constexpr int kKeepAliveIntervalSeconds = 5;
constexpr int kKeepAliveCount = 3;
constexpr unsigned kUserTimeoutMs = 15000;

void tune(tcp::socket& s) {
  error_code ec;
  s.set_option(tcp::no_delay(true), ec);
  s.set_option(asio::socket_base::keep_alive(true), ec);
  const int fd = s.native_handle();
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &kKeepAliveIdleSeconds, sizeof kKeepAliveIdleSeconds);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &kKeepAliveIntervalSeconds, sizeof kKeepAliveIntervalSeconds);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &kKeepAliveCount, sizeof kKeepAliveCount);
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &kUserTimeoutMs, sizeof kUserTimeoutMs);
  s.non_blocking(true, ec);
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

// One client's connection: dialing the upstreams in turn, then two pumps.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Balancer& lb, tcp::socket client);
  ~Connection();
  void dial(std::vector<std::string> order);
  void close();

 private:
  struct Direction {
    tcp::socket* from;
    tcp::socket* to;
    std::unique_ptr<char[]> buffer;  // only while data flows
    bool done = false;
  };

  void try_next();
  void connected(const std::string& address);
  void wait(Direction& d);
  void transfer(Direction& d);
  void finish(Direction& d);

  Balancer& lb_;
  tcp::socket client_;
  tcp::socket upstream_;
  tcp::resolver resolver_;
  asio::steady_timer timer_;
  std::vector<std::string> order_;
  size_t next_ = 0;
  std::string address_;  // the upstream it goes to, once connected
  Direction up_{&client_, &upstream_};
  Direction down_{&upstream_, &client_};
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
          tune(client);
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
  asio::io_context io_;
  tcp::acceptor acceptor_;
  asio::steady_timer checks_;
  std::mt19937 rng_;
  std::thread thread_;
  mutable std::mutex mu_;  // set_
  UpstreamSet set_;        // guarded by mu_
  std::atomic<int> connections_{0};
  std::list<std::weak_ptr<Connection>> live_;  // the balancer's thread only
  std::list<std::weak_ptr<Probe>> probes_;     // the balancer's thread only
  Clock::time_point last_limit_log_{};         // the balancer's thread only
  bool stopping_ = false;                      // the balancer's thread only
};

Connection::Connection(Balancer& lb, tcp::socket client)
    : lb_(lb), client_(std::move(client)), upstream_(lb.io()), resolver_(lb.io()), timer_(lb.io()) {}

Connection::~Connection() {
  if (!address_.empty()) lb_.closed(address_);
  lb_.gone();
}

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
  const std::string address = order_[next_++];
  auto self = shared_from_this();
  auto attempt = std::make_shared<bool>(true);  // this attempt is still the current one
  timer_.expires_after(lb_.options().dial_timeout);
  timer_.async_wait([self, attempt, address](error_code ec) {
    if (ec || !*attempt || self->closed_) return;
    *attempt = false;
    error_code ignored;
    self->resolver_.cancel();
    self->upstream_.close(ignored);
    self->lb_.dial_failed(address);
    self->try_next();
  });
  const auto [host, port] = split(address);
  resolver_.async_resolve(host, port, [self, attempt, address](error_code ec, tcp::resolver::results_type results) {
    if (!*attempt || self->closed_) return;
    if (ec) {
      *attempt = false;
      self->timer_.cancel();
      self->lb_.dial_failed(address);
      self->try_next();
      return;
    }
    asio::async_connect(self->upstream_, results, [self, attempt, address](error_code cec, const tcp::endpoint&) {
      if (!*attempt || self->closed_) return;
      *attempt = false;
      self->timer_.cancel();
      if (cec) {
        error_code ignored;
        self->upstream_.close(ignored);
        self->lb_.dial_failed(address);
        self->try_next();
        return;
      }
      self->connected(address);
    });
  });
}

void Connection::connected(const std::string& address) {
  address_ = address;
  lb_.opened(address);
  tune(upstream_);
  wait(up_);
  wait(down_);
}

void Connection::wait(Direction& d) {
  d.buffer.reset();  // idle: no buffer held
  auto self = shared_from_this();
  d.from->async_wait(tcp::socket::wait_read, [self, &d](error_code ec) {
    if (ec) return self->finish(d);
    self->transfer(d);
  });
}

// Reads what is there and writes it on; again at once while data keeps coming.
void Connection::transfer(Direction& d) {
  if (closed_) return;
  if (!d.buffer) d.buffer.reset(new char[kBufferSize]);
  error_code ec;
  const size_t n = d.from->read_some(asio::buffer(d.buffer.get(), kBufferSize), ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) return wait(d);
  if (ec == asio::error::eof) {
    error_code ignored;
    d.to->shutdown(tcp::socket::shutdown_send, ignored);
    d.done = true;
    if (up_.done && down_.done) close();
    return;
  }
  if (ec) return finish(d);
  auto self = shared_from_this();
  asio::async_write(*d.to, asio::buffer(d.buffer.get(), n), [self, &d](error_code wec, size_t) {
    if (wec) return self->finish(d);
    self->transfer(d);
  });
}

void Connection::finish(Direction& d) {
  d.done = true;
  close();
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
