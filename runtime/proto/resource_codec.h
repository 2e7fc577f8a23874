// Resources to and from cosi.resource.Resource messages: every metadata field (version and
// phase as their wire strings, times as Timestamps) and the spec's protobuf bytes and YAML.
// The one encoding the API, the gRPC-backed State and the plugin ABI share.
//
//   cosi::resource::Resource msg;
//   if (auto s = encode_resource(*r, &msg); !s.ok()) ...
//   auto back = decode_resource(msg, types);   // typed when `types` knows the type
#pragma once

#include "resource.pb.h"
#include "runtime/base/result.h"
#include "runtime/proto/resource_types.h"
#include "runtime/resource/resource.h"

namespace cosi {

void encode_metadata(const Metadata& metadata, cosi::resource::Metadata* out);
// kInvalidArgument naming the field for a version or phase that does not parse.
Result<Metadata> decode_metadata(const cosi::resource::Metadata& in);

// kInvalidArgument when the spec type has no encoding. Always sets `spec`, even empty.
Status encode_resource(const Resource& resource, cosi::resource::Resource* out);
Result<MutableResourcePtr> decode_resource(const cosi::resource::Resource& in,
                                           const ResourceTypes& types);

}  // namespace cosi
