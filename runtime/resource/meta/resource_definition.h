// ResourceDefinition: the meta resource that describes a resource type to clients — its
// display name, default namespace, aliases, extra print columns and sensitivity. talosctl
// lists them to resolve `get <alias>`; the API refuses types that have none.
//
//   auto spec = make_definition({.type = "EtcdMembers.etcd.talos.dev",
//                                .default_namespace = "etcd",
//                                .print_columns = {{"Member ID", "{.memberID}"}}});
//   spec->display_type == "EtcdMember"
//   spec->aliases      == {"etcdmember", "em", "ems"}
//   spec->all_aliases  == {"etcdmembers", "etcdmembers.etcd", "etcdmembers.etcd.talos",
//                          "etcdmember", "em", "ems"}
//
// Type names are `PluralCamelName.suffix.domain`. make_definition rejects anything else with
// a message naming the rule; it computes the display type (singular) and the automatic
// aliases as COSI does.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/result.h"
#include "runtime/resource/typed_resource.h"

namespace cosi {

inline constexpr std::string_view kMetaNamespace = "meta";
inline constexpr std::string_view kResourceDefinitionType = "ResourceDefinitions.meta.cosi.dev";
inline constexpr std::string_view kMetaOwner = "meta";

enum class Sensitivity { kNonSensitive = 0, kSensitive = 1 };

struct PrintColumn {
  std::string name;
  std::string json_path;

  friend bool operator==(const PrintColumn&, const PrintColumn&) = default;
};

struct ResourceDefinitionSpec {
  std::string type;
  std::string display_type;
  std::string default_namespace;
  std::vector<std::string> aliases;
  std::vector<std::string> all_aliases;
  std::vector<PrintColumn> print_columns;
  Sensitivity sensitivity = Sensitivity::kNonSensitive;

  // The resource id: the type in lowercase.
  std::string id() const;

  friend bool operator==(const ResourceDefinitionSpec&, const ResourceDefinitionSpec&) = default;
};

// What a type's author declares; make_definition fills in the rest.
struct ResourceDefinitionInput {
  std::string type;
  std::string default_namespace;
  std::vector<std::string> aliases;  // extra aliases, before the automatic ones
  std::vector<PrintColumn> print_columns;
  Sensitivity sensitivity = Sensitivity::kNonSensitive;
};

Result<ResourceDefinitionSpec> make_definition(ResourceDefinitionInput input);

// Encoded as cosi.resource.meta.ResourceDefinitionSpec (runtime/proto/meta_codec.cc).
template <>
struct SpecTraits<ResourceDefinitionSpec> {
  static bool equal(const ResourceDefinitionSpec& a, const ResourceDefinitionSpec& b) { return a == b; }
  static std::string encode(const ResourceDefinitionSpec& spec);
  static Result<ResourceDefinitionSpec> decode(std::string_view bytes);
  static std::string yaml(const ResourceDefinitionSpec& spec);
};

using ResourceDefinition = TypedResource<ResourceDefinitionSpec>;

// The resource meta/<lowercase type>, owned by "meta".
std::shared_ptr<ResourceDefinition> make_definition_resource(const ResourceDefinitionSpec& spec);

// The definitions of the two meta types themselves.
ResourceDefinitionSpec resource_definition_definition();
ResourceDefinitionSpec namespace_definition();

}  // namespace cosi
