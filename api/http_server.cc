#include "api/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "api/host_port.h"

namespace cosi::api {
namespace {

constexpr int kTimeoutSeconds = 5;
constexpr std::size_t kMaxRequest = 8192;

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

void send_all(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

}  // namespace

Result<std::unique_ptr<HttpServer>> HttpServer::start(const std::string& listen,
                                                      std::map<std::string, HttpHandler> routes) {
  auto hp = parse_host_port(listen, 9100);
  if (!hp.ok()) return Error(ErrorKind::kInvalidArgument, "metrics listen address " + hp.error().message());
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
    return Error(ErrorKind::kInvalidArgument, "metrics listen address \"" + listen + "\": the host must be an IP address");
  }
  int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error(ErrorKind::kUnavailable, std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd, 64) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    return Error(ErrorKind::kUnavailable, "metrics listen address " + listen + ": " + why);
  }
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port)
                               : ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return std::unique_ptr<HttpServer>(new HttpServer(fd, port, std::move(routes)));
}

HttpServer::HttpServer(int fd, int port, std::map<std::string, HttpHandler> routes)
    : fd_(fd), port_(port), routes_(std::move(routes)), thread_([this] { serve(); }) {}

HttpServer::~HttpServer() { stop(); }

void HttpServer::stop() {
  if (stopping_.exchange(true)) return;
  ::shutdown(fd_, SHUT_RDWR);
  if (thread_.joinable()) thread_.join();
  ::close(fd_);
}

void HttpServer::serve() {
  while (!stopping_) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 250) <= 0) continue;
    int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    timeval tv{kTimeoutSeconds, 0};
    ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    handle(client);
    ::close(client);
  }
}

void HttpServer::handle(int client) {
  std::string request;
  char buf[1024];
  while (request.find("\r\n\r\n") == std::string::npos && request.size() < kMaxRequest) {
    ssize_t n = ::recv(client, buf, sizeof buf, 0);
    if (n <= 0) return;
    request.append(buf, static_cast<std::size_t>(n));
  }
  auto line_end = request.find("\r\n");
  std::string line = request.substr(0, line_end);
  auto sp1 = line.find(' ');
  auto sp2 = line.find(' ', sp1 + 1);
  std::string method = line.substr(0, sp1);
  std::string path = sp1 == std::string::npos ? "" : line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (auto q = path.find('?'); q != std::string::npos) path.resize(q);

  HttpResponse response{404, "text/plain; charset=utf-8", "not found\n"};
  if (method != "GET" && method != "HEAD") {
    response = {405, "text/plain; charset=utf-8", "only GET\n"};
  } else if (auto it = routes_.find(path); it != routes_.end()) {
    response = it->second();
  }
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " " + reason(response.status) +
                    "\r\nContent-Type: " + response.content_type +
                    "\r\nContent-Length: " + std::to_string(response.body.size()) + "\r\nConnection: close\r\n\r\n";
  if (method != "HEAD") out += response.body;
  send_all(client, out);
}

}  // namespace cosi::api
