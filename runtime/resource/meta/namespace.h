// Namespace: the meta resource that declares a namespace exists. The API serves only
// namespaces that have one.
//
//   state.create(make_namespace("cluster", "Cluster discovery and membership."),
//                {.owner = kMetaOwner});
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "runtime/base/result.h"
#include "runtime/resource/typed_resource.h"

namespace cosi {

inline constexpr std::string_view kNamespaceType = "Namespaces.meta.cosi.dev";

struct NamespaceSpec {
  std::string description;

  friend bool operator==(const NamespaceSpec&, const NamespaceSpec&) = default;
};

// Encoded as cosi.resource.meta.NamespaceSpec (runtime/proto/meta_codec.cc).
template <>
struct SpecTraits<NamespaceSpec> {
  static bool equal(const NamespaceSpec& a, const NamespaceSpec& b) { return a == b; }
  static std::string encode(const NamespaceSpec& spec);
  static Result<NamespaceSpec> decode(std::string_view bytes);
  static std::string yaml(const NamespaceSpec& spec);
};

using Namespace = TypedResource<NamespaceSpec>;

// The resource meta/<name>.
std::shared_ptr<Namespace> make_namespace(std::string name, std::string description);

}  // namespace cosi
