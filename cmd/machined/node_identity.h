// The node's identity: a random id (base62 of 32 bytes, as Talos makes them) made once and kept
// in STATE_DIR/node-identity.yaml, so the node is the same member of its cluster after a
// restart. cluster.IdentityController publishes it.
#pragma once

#include <string>

#include "runtime/base/result.h"

namespace cosi::machined {

// Reads the identity, or creates and persists a new one; the node id.
Result<std::string> load_or_create_node_id(const std::string& state_dir);

}  // namespace cosi::machined
