#include "runtime/resource/meta/namespace.h"

#include "runtime/resource/meta/resource_definition.h"

namespace cosi {

std::shared_ptr<Namespace> make_namespace(std::string name, std::string description) {
  return make_resource(Metadata(kMetaNamespace, kNamespaceType, std::move(name)),
                       NamespaceSpec{std::move(description)});
}

}  // namespace cosi
