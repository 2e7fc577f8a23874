// Tombstone: the placeholder resource that events carry when there is no resource to carry —
// the Destroyed event that opens a watch of a missing resource, and the Bootstrapped and Noop
// markers. Namespace and type are set, version is undefined, phase running, spec empty.
//
//   ResourcePtr t = make_tombstone(Pointer{"cluster", "Members.cluster.talos.dev", "gone"});
//   is_tombstone(*t) == true
#pragma once

#include "runtime/resource/resource.h"

namespace cosi {

ResourcePtr make_tombstone(const Pointer& pointer);
bool is_tombstone(const Resource& resource);

}  // namespace cosi
