// Namespace: the meta resource that declares a namespace exists. The API serves only
// namespaces that have one.
//
//   state.create(make_namespace("cluster", "Cluster discovery and membership."),
//                {.owner = kMetaOwner});
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "runtime/resource/typed_resource.h"

namespace cosi {

inline constexpr std::string_view kNamespaceType = "Namespaces.meta.cosi.dev";

struct NamespaceSpec {
  std::string description;

  friend bool operator==(const NamespaceSpec&, const NamespaceSpec&) = default;
};

using Namespace = TypedResource<NamespaceSpec>;

// The resource meta/<name>.
std::shared_ptr<Namespace> make_namespace(std::string name, std::string description);

}  // namespace cosi
