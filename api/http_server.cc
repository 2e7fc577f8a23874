#include "api/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "api/host_port.h"

namespace cosi::api {
namespace {

constexpr int kTimeoutSeconds = 5;
constexpr std::size_t kMaxHead = 8192;
constexpr std::size_t kMaxBody = 64 * 1024;

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

bool send_all(int fd, std::string_view data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

std::string head(const HttpResponse& r, bool with_length) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) + "\r\nContent-Type: " + r.content_type + "\r\n";
  for (const auto& [name, value] : r.headers) out += name + ": " + value + "\r\n";
  if (with_length) out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  return out + "Connection: close\r\n\r\n";
}

// Reads the request line, headers and body. False when the client sent no complete request.
bool read_request(int client, HttpRequest& req, int& error_status) {
  std::string data;
  char buf[4096];
  std::size_t end;
  while ((end = data.find("\r\n\r\n")) == std::string::npos) {
    if (data.size() >= kMaxHead) {
      error_status = 400;
      return false;
    }
    ssize_t n = ::recv(client, buf, sizeof buf, 0);
    if (n <= 0) return false;
    data.append(buf, static_cast<std::size_t>(n));
  }
  std::string_view text(data.data(), end);
  auto line_end = text.find("\r\n");
  std::string_view line = text.substr(0, line_end);
  auto sp1 = line.find(' ');
  auto sp2 = sp1 == std::string_view::npos ? std::string_view::npos : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) {
    error_status = 400;
    return false;
  }
  req.method = std::string(line.substr(0, sp1));
  std::string target(line.substr(sp1 + 1, sp2 - sp1 - 1));
  if (auto q = target.find('?'); q != std::string::npos) {
    req.query = target.substr(q + 1);
    target.resize(q);
  }
  req.path = std::move(target);
  std::size_t pos = line_end == std::string_view::npos ? text.size() : line_end + 2;
  while (pos < text.size()) {
    auto next = text.find("\r\n", pos);
    if (next == std::string_view::npos) next = text.size();
    std::string_view h = text.substr(pos, next - pos);
    if (auto colon = h.find(':'); colon != std::string_view::npos) {
      req.headers[lower(trim(h.substr(0, colon)))] = trim(h.substr(colon + 1));
    }
    pos = next + 2;
  }
  std::size_t length = 0;
  if (auto cl = req.headers.find("content-length"); cl != req.headers.end()) {
    char* stop = nullptr;
    unsigned long long n = std::strtoull(cl->second.c_str(), &stop, 10);
    if (cl->second.empty() || *stop != '\0') {
      error_status = 400;
      return false;
    }
    if (n > kMaxBody) {
      error_status = 413;
      return false;
    }
    length = static_cast<std::size_t>(n);
  }
  req.body = data.substr(end + 4);
  while (req.body.size() < length) {
    ssize_t n = ::recv(client, buf, std::min(sizeof buf, length - req.body.size()), 0);
    if (n <= 0) return false;
    req.body.append(buf, static_cast<std::size_t>(n));
  }
  req.body.resize(length);
  return true;
}

}  // namespace

std::string HttpRequest::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

// One streaming response: its socket and the thread that writes it.
class HttpServer::Stream final : public HttpStream {
 public:
  Stream(int fd, const std::atomic<bool>& stopping) : fd_(fd), stopping_(stopping) {}
  ~Stream() override {
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }

  bool write(std::string_view data) override { return !stopping_ && send_all(fd_, data); }

  bool open_after(std::chrono::milliseconds d) override {
    pollfd p{fd_, POLLIN | POLLRDHUP, 0};
    int n = ::poll(&p, 1, static_cast<int>(d.count()));
    if (stopping_) return false;
    if (n <= 0) return true;
    if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return false;
    char sink[256];  // a client may send more after its request; it is not read
    return ::recv(fd_, sink, sizeof sink, MSG_DONTWAIT) > 0;
  }

  void run(std::function<void(HttpStream&)> body) {
    thread_ = std::thread([this, body = std::move(body)] {
      body(*this);
      ::shutdown(fd_, SHUT_RDWR);
      done_ = true;
    });
  }
  void wake() { ::shutdown(fd_, SHUT_RDWR); }
  bool done() const { return done_; }

 private:
  int fd_;
  const std::atomic<bool>& stopping_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

Result<std::unique_ptr<HttpServer>> HttpServer::start(const std::string& listen, std::map<std::string, HttpHandler> routes,
                                                      HttpServerOptions options) {
  const std::string what = options.what + " listen address";
  auto hp = parse_host_port(listen, 9100);
  if (!hp.ok()) return Error(ErrorKind::kInvalidArgument, what + " " + hp.error().message());
  sockaddr_storage addr{};
  socklen_t len;
  int family;
  if (auto* v4 = reinterpret_cast<sockaddr_in*>(&addr); inet_pton(AF_INET, hp->host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(hp->port));
    len = sizeof(sockaddr_in);
    family = AF_INET;
  } else if (auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
             inet_pton(AF_INET6, hp->host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(hp->port));
    len = sizeof(sockaddr_in6);
    family = AF_INET6;
  } else {
    return Error(ErrorKind::kInvalidArgument, what + " \"" + listen + "\": the host must be an IP address");
  }
  int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error(ErrorKind::kUnavailable, std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd, 64) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    return Error(ErrorKind::kUnavailable, what + " " + listen + ": " + why);
  }
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port)
                               : ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return std::unique_ptr<HttpServer>(new HttpServer(fd, port, std::move(routes), std::move(options)));
}

HttpServer::HttpServer(int fd, int port, std::map<std::string, HttpHandler> routes, HttpServerOptions options)
    : fd_(fd), port_(port), routes_(std::move(routes)), options_(std::move(options)), thread_([this] { serve(); }) {}

HttpServer::~HttpServer() { stop(); }

void HttpServer::stop() {
  if (stopping_.exchange(true)) return;
  ::shutdown(fd_, SHUT_RDWR);
  if (thread_.joinable()) thread_.join();
  ::close(fd_);
  reap_streams(true);
}

void HttpServer::reap_streams(bool all) {
  std::vector<std::shared_ptr<Stream>> finished;
  {
    std::lock_guard lock(streams_mu_);
    if (all) {
      for (auto& s : streams_) s->wake();
      finished.swap(streams_);
    } else {
      auto gone = std::stable_partition(streams_.begin(), streams_.end(), [](const auto& s) { return !s->done(); });
      finished.assign(std::make_move_iterator(gone), std::make_move_iterator(streams_.end()));
      streams_.erase(gone, streams_.end());
    }
  }
  finished.clear();  // joins their threads, outside the lock
}

void HttpServer::serve() {
  while (!stopping_) {
    reap_streams(false);
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 250) <= 0) continue;
    int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    timeval tv{kTimeoutSeconds, 0};
    ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    handle(client);
  }
}

bool HttpServer::start_stream(int client, const std::string& head_text, std::function<void(HttpStream&)> body) {
  std::lock_guard lock(streams_mu_);
  if (streams_.size() >= options_.max_streams) return false;
  if (!send_all(client, head_text)) {
    ::close(client);
    return true;  // the client went: nothing more to answer
  }
  auto stream = std::make_shared<Stream>(client, stopping_);
  stream->run(std::move(body));
  streams_.push_back(std::move(stream));
  return true;
}

// Answers one request; closes `client` unless a stream took it.
void HttpServer::handle(int client) {
  HttpRequest req;
  int error_status = 0;
  HttpResponse response{404, "text/plain; charset=utf-8", "not found\n"};
  if (!read_request(client, req, error_status)) {
    if (error_status != 0) {
      response = {error_status, "text/plain; charset=utf-8", error_status == 413 ? "request body too large\n" : "bad request\n"};
      send_all(client, head(response, true) + response.body);
    }
    ::close(client);
    return;
  }
  const bool head_only = req.method == "HEAD";
  const std::string method = head_only ? "GET" : req.method;
  if (auto it = routes_.find(method == "GET" ? req.path : method + " " + req.path); it != routes_.end()) {
    response = it->second(req);
  } else if (routes_.contains(req.path) || routes_.contains("POST " + req.path)) {
    response = {405, "text/plain; charset=utf-8", "method " + req.method + " not allowed on " + req.path + "\n"};
  }
  if (response.stream && !head_only) {
    reap_streams(false);  // a stream that just ended leaves its place
    if (start_stream(client, head(response, false), std::move(response.stream))) return;
    response = {503, "text/plain; charset=utf-8", "too many streams\n"};
  }
  std::string out = head(response, true);
  if (!head_only) out += response.body;
  send_all(client, out);
  ::close(client);
}

}  // namespace cosi::api
