// host:port as machined's flags and cosictl's endpoints write them: "127.0.5.10:50000",
// "127.0.5.10" (default port), "[::1]:50000", "localhost:9100".
//
//   auto hp = parse_host_port("127.0.5.10", 50000);   // {"127.0.5.10", 50000}
//   hp->to_string() == "127.0.5.10:50000"; is_loopback(hp->host) == true
#pragma once

#include <string>
#include <string_view>

#include "runtime/base/result.h"

namespace cosi::api {

struct HostPort {
  std::string host;
  int port = 0;
  std::string to_string() const;  // brackets an IPv6 host
};

// kInvalidArgument naming the text for an empty host or a port outside 0..65535.
Result<HostPort> parse_host_port(std::string_view text, int default_port);

// 127.0.0.0/8, ::1 or "localhost".
bool is_loopback(const std::string& host);

}  // namespace cosi::api
