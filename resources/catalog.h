// The catalog of resource types machined serves: every type's ResourceDefinition (type,
// default namespace, aliases, print columns, sensitivity), the namespaces they live in, and
// the spec decoders for a ResourceTypes.
//
//   for (const auto& spec : resources::definitions()) state.create(make_definition_resource(spec), ...);
//   ResourceTypes types; resources::register_types(types);
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runtime/proto/resource_types.h"
#include "runtime/resource/meta/resource_definition.h"

namespace cosi::resources {

// Every type above, validated; the meta types (ResourceDefinitions, Namespaces) included.
std::vector<ResourceDefinitionSpec> definitions();

// (namespace, description), meta included.
std::vector<std::pair<std::string, std::string>> namespaces();

void register_types(ResourceTypes& types);

}  // namespace cosi::resources
