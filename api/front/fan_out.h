// FanOut: one unary MachineService call sent to several nodes at once (talosctl's `nodes`
// metadata), answered with one reply that holds every node's messages, each stamped with the
// node it came from; a node that fails contributes a message carrying its error instead.
#pragma once

#include <grpcpp/generic/async_generic_service.h>

#include <string>
#include <vector>

#include "api/front/stream_proxy.h"

namespace cosi::api::front {

struct FanOutTarget {
  std::string node;  // what the caller named: stamped as metadata.hostname
  BackendCall call;
};

grpc::ServerGenericBidiReactor* start_fan_out(grpc::GenericCallbackServerContext* ctx, std::vector<FanOutTarget> targets);

}  // namespace cosi::api::front
