// StreamProxy: one call relayed as bytes between the caller and a backend channel — the
// node's own services (in process) or another node's front. Unary and streaming calls alike
// go through as a bidirectional stream: each message the caller sends is written to the
// backend once the previous one is taken; backend messages are read ahead into a short queue
// (at most 64) while earlier ones are written back, so long streams are not slowed by both
// hops' latencies per message. The backend's status and trailing metadata become the
// caller's, after its last message; a caller that goes away cancels the backend call.
#pragma once

#include <grpcpp/channel.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>

#include <map>
#include <memory>
#include <string>

namespace cosi::api::front {

// Metadata to send the backend, and the deadline to hold it to.
struct BackendCall {
  std::shared_ptr<grpc::Channel> channel;
  std::multimap<std::string, std::string> metadata;
  std::chrono::system_clock::time_point deadline = std::chrono::system_clock::time_point::max();
  // Set for calls forwarded to another node: a failure to reach it is reported as
  // "node X is unreachable from this node: ..." rather than as the caller's own connection.
  std::string forwarded_to;
};

// Starts relaying `ctx`'s call to `backend`. The returned reactor owns itself.
grpc::ServerGenericBidiReactor* start_stream_proxy(grpc::GenericCallbackServerContext* ctx, BackendCall backend);

// A reactor that fails the call at once.
grpc::ServerGenericBidiReactor* reject_call(grpc::Status status);

}  // namespace cosi::api::front
