// IP addresses as the resource specs carry them (common.NetIP: 4 or 16 bytes) and as people
// write them ("198.51.100.5", "2001:db8::5"); hardware addresses as Go's net.HardwareAddr
// prints them ("52:54:00:12:34:56").
//
//   auto bytes = ip_bytes("198.51.100.5");   // 4 bytes; nullopt for "not-an-ip"
//   ip_text(*bytes) == "198.51.100.5";
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cosi::resources {

// The text of 4 or 16 address bytes; empty for anything else.
std::string ip_text(std::string_view bytes);

// The bytes of an IPv4 or IPv6 address in text; nullopt when it is not one.
std::optional<std::string> ip_bytes(const std::string& text);

// "52:54:00:12:34:56" for 6 bytes (any length: each byte as two hex digits, ':'-joined).
std::string hardware_addr_text(std::string_view bytes);

}  // namespace cosi::resources
