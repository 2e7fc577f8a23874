#include "api/host_port.h"

#include <arpa/inet.h>

#include <charconv>

namespace cosi::api {

std::string HostPort::to_string() const {
  bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<HostPort> parse_host_port(std::string_view text, int default_port) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorKind::kInvalidArgument, "\"" + std::string(text) + "\": " + why);
  };
  HostPort hp{std::string(text), default_port};
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos) return bad("unclosed [");
    hp.host = std::string(text.substr(1, close - 1));
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') return bad("expected :port after ]");
      port = text.substr(close + 2);
    }
  } else if (auto colon = text.rfind(':'); colon != std::string_view::npos && text.find(':') == colon) {
    hp.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  }
  if (hp.host.empty()) return bad("no host");
  if (!port.empty() || (text.size() > 0 && text.back() == ':')) {
    int p = -1;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (ec != std::errc() || end != port.data() + port.size() || p < 0 || p > 65535) {
      return bad("port must be a number from 0 to 65535");
    }
    hp.port = p;
  }
  return hp;
}

bool is_loopback(const std::string& host) {
  if (host == "localhost") return true;
  unsigned char b[16];
  if (inet_pton(AF_INET, host.c_str(), b) == 1) return b[0] == 127;
  if (inet_pton(AF_INET6, host.c_str(), b) == 1) {
    for (int i = 0; i < 15; ++i) {
      if (b[i] != 0) return false;
    }
    return b[15] == 1;
  }
  return false;
}

}  // namespace cosi::api
