// The YAML style of Talos's resource specs: keys as Talos's Go yaml tags spell them, the
// fields Talos leaves out when empty, enums and address flags as their text, addresses as
// text. Every Talos resource type renders through it (YamlStyleOf specialisations in each
// namespace's header).
#pragma once

#include "runtime/proto/yaml_render.h"

namespace cosi::resources {

const YamlStyle& yaml_style();

}  // namespace cosi::resources

// Declares that spec message M prints in the Talos style.
#define COSI_TALOS_YAML(M)                                               \
  template <>                                                            \
  struct cosi::YamlStyleOf<M> {                                          \
    static const YamlStyle& get() { return ::cosi::resources::yaml_style(); } \
  }
