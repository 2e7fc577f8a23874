// ResourceTypes: which spec types a process can decode from their protobuf bytes, by resource
// type. One per API server or plugin host, never process-global. Resources of types it does
// not know decode into RawResource, bytes kept as they came.
//
//   ResourceTypes types;                                   // knows the two meta types
//   types.add<MemberSpec>("Members.cluster.talos.dev");    // needs SpecTraits<MemberSpec>::decode
//   auto r = types.decode(metadata, proto_bytes, yaml);
#pragma once

#include <functional>
#include <string_view>
#include <unordered_map>

#include "runtime/base/result.h"
#include "runtime/resource/raw_resource.h"
#include "runtime/resource/typed_resource.h"

namespace cosi {

class ResourceTypes {
 public:
  using Decoder = std::function<Result<MutableResourcePtr>(Metadata, std::string_view proto)>;

  ResourceTypes();

  template <class Spec>
  void add(Atom type) {
    decoders_[type] = [](Metadata md, std::string_view proto) -> Result<MutableResourcePtr> {
      auto spec = SpecTraits<Spec>::decode(proto);
      if (!spec.ok()) {
        return Error(ErrorKind::kInvalidArgument, md.describe() + ": " + spec.error().message());
      }
      return MutableResourcePtr(make_resource(std::move(md), std::move(*spec)));
    };
  }

  bool knows(Atom type) const { return decoders_.contains(type); }

  // The typed resource when the type is known, else a RawResource.
  Result<MutableResourcePtr> decode(Metadata metadata, std::string_view proto,
                                    std::string_view yaml) const;

 private:
  std::unordered_map<Atom, Decoder> decoders_;
};

}  // namespace cosi
