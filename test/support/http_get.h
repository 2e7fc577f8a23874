// Plain HTTP/1.1 for tests of the HTTP endpoints (/metrics, /healthz, the web dashboard), with a
// 5 s socket timeout. Each returns the raw response (status line, headers, body); empty when
// nothing answers.
//
//   std::string metrics = http_get("127.8.0.1", 9100, "/metrics");
//   std::string r = http_send("127.8.0.1", 8080, "POST /api/action HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}");
//   std::string first = http_send("127.8.0.1", 8080, "GET /events HTTP/1.1\r\n\r\n", "\n\n");
#pragma once

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace cosi::testing {

// Sends `request` as it is and reads until the server closes, or until `until` has arrived
// (then closes: how a test reads the start of a stream of events).
inline std::string http_send(const std::string& ip, int port, const std::string& request, const std::string& until = "") {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, ip.c_str(), &addr.sin_addr);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    (void)::write(fd, request.data(), request.size());
    char buf[4096];
    ssize_t n;
    while ((until.empty() || response.find(until) == std::string::npos) && (n = ::read(fd, buf, sizeof buf)) > 0) {
      response.append(buf, static_cast<std::size_t>(n));
    }
  }
  close(fd);
  return response;
}

inline std::string http_get(const std::string& ip, int port, const std::string& path) {
  return http_send(ip, port, "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
}

}  // namespace cosi::testing
