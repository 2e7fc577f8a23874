#include "resources/common/ip.h"

#include <arpa/inet.h>

#include <cstdio>

namespace cosi::resources {

std::string ip_text(std::string_view bytes) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (bytes.size() == 4) return inet_ntop(AF_INET, bytes.data(), buf, sizeof buf) != nullptr ? buf : "";
  if (bytes.size() == 16) return inet_ntop(AF_INET6, bytes.data(), buf, sizeof buf) != nullptr ? buf : "";
  return "";
}

std::optional<std::string> ip_bytes(const std::string& text) {
  unsigned char buf[16];
  if (inet_pton(AF_INET, text.c_str(), buf) == 1) return std::string(reinterpret_cast<char*>(buf), 4);
  if (inet_pton(AF_INET6, text.c_str(), buf) == 1) return std::string(reinterpret_cast<char*>(buf), 16);
  return std::nullopt;
}

std::string hardware_addr_text(std::string_view bytes) {
  std::string out;
  char buf[4];
  for (unsigned char b : bytes) {
    std::snprintf(buf, sizeof buf, out.empty() ? "%02x" : ":%02x", b);
    out += buf;
  }
  return out;
}

}  // namespace cosi::resources
