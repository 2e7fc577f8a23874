// SpecTraits for specs that are protobuf messages: equality by content, the message's own
// encoding, and YAML rendered from its descriptor in the style YamlStyleOf<M> names (plain
// unless a resource type specialises it).
//
//   template <> struct cosi::YamlStyleOf<MemberSpec> {
//     static const YamlStyle& get() { return talos_yaml_style(); }
//   };
//   auto member = make_resource(md, MemberSpec{});   // encodable, comparable, printable
#pragma once

#include <google/protobuf/message.h>
#include <google/protobuf/util/message_differencer.h>

#include <string>
#include <string_view>
#include <type_traits>

#include "runtime/base/result.h"
#include "runtime/proto/yaml_render.h"
#include "runtime/resource/typed_resource.h"

namespace cosi {

template <class M>
struct YamlStyleOf {
  static const YamlStyle& get() { return YamlStyle::plain(); }
};

// The traits of a protobuf spec; SpecTraits<M> is this for every message unless a type needs
// to differ (it may then derive from ProtoSpecTraits<M> and replace what differs).
template <class M>
struct ProtoSpecTraits {
  static bool equal(const M& a, const M& b) {
    return google::protobuf::util::MessageDifferencer::Equals(a, b);
  }
  static std::string encode(const M& m) {
    std::string out;
    m.SerializeToString(&out);
    return out;
  }
  static Result<M> decode(std::string_view bytes) {
    M m;
    if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return Error(ErrorKind::kInvalidArgument, "spec bytes are not a valid " + M::descriptor()->full_name());
    }
    return m;
  }
  static std::string yaml(const M& m) { return render_yaml(m, YamlStyleOf<M>::get()); }
};

template <class M>
  requires std::is_base_of_v<google::protobuf::Message, M>
struct SpecTraits<M> : ProtoSpecTraits<M> {};

}  // namespace cosi
