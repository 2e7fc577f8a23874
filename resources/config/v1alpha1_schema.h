// What Talos's v1alpha1 machine config document may contain: every key path it defines and the
// shape of the value under it. The validator walks a document against this table.
//
//   find_schema_key("machine.network.interfaces[].vip.ip")->shape == KeyShape::kScalar
//   find_schema_key("machine.kubelet.extraArgs")->shape == KeyShape::kScalarMap   // keys are free-form
//   find_schema_key("machine.nonsense") == nullptr                                 // not a Talos key
#pragma once

#include <span>
#include <string_view>

namespace cosi::config {

enum class KeyShape {
  kScalar,      // a string, number or bool
  kScalarList,  // a sequence of scalars
  kStruct,      // a mapping whose keys are the paths below it
  kStructList,  // a sequence of such mappings: children at `path[].key`
  kStructMap,   // a mapping with free-form keys whose values are structs: children at `path.*.key`
  kScalarMap,   // a mapping with free-form keys and scalar (or list-of-scalar) values
  kFreeForm,    // any YAML (embedded Kubernetes objects and the like); not descended
};

struct SchemaKey {
  std::string_view path;
  KeyShape shape;
  bool deprecated;  // Talos marks it deprecated
};

// The key at `path` (in the notation above), or nullptr when Talos does not define it.
const SchemaKey* find_schema_key(std::string_view path);

// Every key, sorted by path.
std::span<const SchemaKey> schema_keys();

}  // namespace cosi::config
