// The hot path of List and Watch, in bytes: each stored snapshot is serialized once (cached on
// the snapshot, which never changes) and a response is its cached bytes with a few bytes of
// protobuf framing around them — no message objects built per read.
//
//   std::string r = list_response_bytes(*resource);          // cosi.resource.ListResponse
//   std::string w = watch_response_bytes(events, &status);   // cosi.resource.WatchResponse
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/result.h"
#include "runtime/resource/resource.h"
#include "runtime/state/event.h"

namespace cosi::api {

// The serialized cosi.resource.Resource of a resource, cached on it.
Result<std::string_view> resource_bytes(const Resource& resource);

Result<std::string> list_response_bytes(const Resource& resource);
// One WatchResponse holding `events` (one for talosctl's mode, a batch when aggregated).
Result<std::string> watch_response_bytes(const Event* events, std::size_t count);

}  // namespace cosi::api
