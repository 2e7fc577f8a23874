#include "runtime/proto/resource_types.h"

#include "runtime/resource/meta/namespace.h"
#include "runtime/resource/meta/resource_definition.h"

namespace cosi {

ResourceTypes::ResourceTypes() {
  add<ResourceDefinitionSpec>(kResourceDefinitionType);
  add<NamespaceSpec>(kNamespaceType);
}

Result<MutableResourcePtr> ResourceTypes::decode(Metadata metadata, std::string_view proto,
                                                 std::string_view yaml) const {
  if (auto it = decoders_.find(metadata.type()); it != decoders_.end()) {
    return it->second(std::move(metadata), proto);
  }
  return MutableResourcePtr(make_resource(std::move(metadata), RawSpec{std::string(proto), std::string(yaml)}));
}

}  // namespace cosi
