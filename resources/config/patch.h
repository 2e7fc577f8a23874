// Strategic-merge patches of machine configs, as `talosctl machineconfig patch` and
// `gen config --config-patch` apply them: mappings merge key by key, lists of named items
// (by `interface`, `vlanId` or `name`) merge item by item, other lists append, scalars
// replace, and `$patch: delete` removes what it sits in.
//
//   apply_patch(config, "machine:\n  network:\n    hostname: cp-1\n")
//   apply_patch(config, "cluster:\n  discovery:\n    $patch: delete\n")   // drops cluster.discovery
#pragma once

#include <string>
#include <string_view>

#include "runtime/base/result.h"

namespace cosi::config {

// The patched config as YAML (comments are not kept). kInvalidArgument, naming the patch's
// line, for a patch that is not YAML, not a mapping, or a JSON6902 operation list.
Result<std::string> apply_patch(std::string_view config, std::string_view patch);

}  // namespace cosi::config
