#include "controllers/k8s/load_balancer/readyz_check.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

namespace cosi::controllers {

namespace {

using Clock = std::chrono::steady_clock;

// At most this much of an answer is read: the status line is all the check needs.
constexpr size_t kAnswerLimit = 4096;

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Waits for `events` on fd until the deadline; false when it passed first.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  while (true) {
    pollfd p{.fd = fd, .events = events, .revents = 0};
    const int left = remaining_ms(deadline);
    if (left == 0) return false;
    const int n = poll(&p, 1, left);
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

// Drives one SSL call on a non-blocking socket until it is done, fails, or the deadline passes;
// its result (> 0 done) or ≤ 0.
template <class Call>
int tls_call(SSL* ssl, int fd, Clock::time_point deadline, Call call) {
  while (true) {
    const int r = call();
    if (r > 0) return r;
    const int e = SSL_get_error(ssl, r);
    if (e == SSL_ERROR_WANT_READ) {
      if (!wait_for(fd, POLLIN, deadline)) return -1;
    } else if (e == SSL_ERROR_WANT_WRITE) {
      if (!wait_for(fd, POLLOUT, deadline)) return -1;
    } else {
      return r;  // the end of the answer (0) or an error
    }
  }
}

// One TLS client context for every check: any certificate (SSL_VERIFY_NONE is the default).
SSL_CTX* client_context() {
  static SSL_CTX* const ctx = [] {
    SSL_CTX* c = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(c, SSL_VERIFY_NONE, nullptr);
    return c;
  }();
  return ctx;
}

}  // namespace

struct ReadyzCheck::Shared {
  Shared() : event(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~Shared() { close(event); }

  void answer(ReadyzAnswer a) {
    std::lock_guard lock(mu);
    answers.push_back(std::move(a));
    const uint64_t one = 1;
    (void)!write(event, &one, sizeof one);
  }

  const int event;
  std::mutex mu;
  std::vector<ReadyzAnswer> answers;  // guarded by mu
};

ReadyzCheck::ReadyzCheck() : shared_(std::make_shared<Shared>()) {}
ReadyzCheck::~ReadyzCheck() = default;

int ReadyzCheck::fd() const {
  return shared_->event;
}

void ReadyzCheck::start(const std::string& address, const SocketAddress& to, uint32_t tag,
                        std::chrono::milliseconds deadline) {
  std::thread([shared = shared_, address, to, tag, deadline] {
    // OpenSSL writes to the socket with write(): an upstream that closes mid-request would
    // raise SIGPIPE, whose default kills the process. Blocked on this thread, the write fails
    // with EPIPE instead (and the check with it).
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    ReadyzAnswer a = run(address, to, deadline);
    a.tag = tag;
    shared->answer(std::move(a));
  }).detach();
}

std::vector<ReadyzAnswer> ReadyzCheck::take() {
  uint64_t count = 0;
  (void)!read(shared_->event, &count, sizeof count);
  std::lock_guard lock(shared_->mu);
  return std::exchange(shared_->answers, {});
}

ReadyzAnswer ReadyzCheck::run(const std::string& address, const SocketAddress& to,
                              std::chrono::milliseconds deadline) {
  const auto started = Clock::now();
  const auto until = started + deadline;
  ReadyzAnswer a{.address = address};
  const int fd = socket(to.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    a.why = std::string("socket: ") + strerror(errno);
    return a;
  }
  int error = 0;
  socklen_t len = sizeof error;
  if (::connect(fd, to.get(), to.length) != 0 &&
      (errno != EINPROGRESS || !wait_for(fd, POLLOUT, until) ||
       getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0)) {
    a.why = error != 0 ? std::string("connect: ") + strerror(error) : "connect: no answer in time";
    close(fd);
    return a;
  }
  a.connect_latency = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);

  SSL* ssl = SSL_new(client_context());
  SSL_set_fd(ssl, fd);
  std::string answer;
  if (tls_call(ssl, fd, until, [&] { return SSL_connect(ssl); }) <= 0) {
    a.why = "TLS handshake failed or timed out";
  } else {
    const std::string request =
        "GET /readyz HTTP/1.1\r\nHost: kubernetes\r\nUser-Agent: kubeprism\r\nConnection: close\r\n\r\n";
    if (tls_call(ssl, fd, until, [&] { return SSL_write(ssl, request.data(), static_cast<int>(request.size())); }) <= 0) {
      a.why = "the request could not be sent in time";
    } else {
      char buf[1024];
      while (answer.size() < kAnswerLimit && answer.find("\r\n") == std::string::npos) {
        const int n = tls_call(ssl, fd, until, [&] { return SSL_read(ssl, buf, sizeof buf); });
        if (n <= 0) break;
        answer.append(buf, static_cast<size_t>(n));
      }
      const auto line_end = answer.find("\r\n");
      const std::string status = answer.substr(0, line_end);
      a.ok = line_end != std::string::npos && status.rfind("HTTP/1.", 0) == 0 && status.size() >= 12 &&
             status.compare(8, 4, " 200") == 0;
      if (!a.ok) a.why = status.empty() ? "no answer in time" : "/readyz answered \"" + status + "\"";
    }
  }
  ERR_clear_error();  // this thread's queue: a failed handshake leaves entries in it
  SSL_free(ssl);
  close(fd);
  return a;
}

}  // namespace cosi::controllers
