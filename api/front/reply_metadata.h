// Stamping fan-out replies as apid does: every Talos reply is `XResponse { repeated X
// messages = 1; }` with `common.Metadata metadata = 1` first in each X. Appending a second
// metadata field to a message merges into the first (protobuf's rule for embedded messages),
// so the node's hostname lands in each message without knowing X.
//
//   stamp_hostname(reply_bytes, "10.5.0.3")        // each messages[i].metadata.hostname = "10.5.0.3"
//   error_reply("10.5.0.3", grpc::Status(UNAVAILABLE, "connection refused"))
//       // one message whose metadata carries hostname, error and status
#pragma once

#include <grpcpp/support/status.h>

#include <optional>
#include <string>
#include <string_view>

namespace cosi::api::front {

// nullopt when `reply` is not a well-formed protobuf message.
std::optional<std::string> stamp_hostname(std::string_view reply, std::string_view hostname);

// An XResponse with one message: metadata {hostname, error = message, status {code, message}}.
std::string error_reply(std::string_view hostname, const grpc::Status& status);

}  // namespace cosi::api::front
