// The node's identity: a random id made once and kept in STATE_DIR/node-identity.yaml, so the
// node is the same member of its cluster after a restart; published as
// cluster/Identities "local".
#pragma once

#include <string>

#include "runtime/state/state.h"

namespace cosi::machined {

// Reads or creates the identity and publishes it; returns the node id.
Result<std::string> load_node_identity(State& state, const std::string& state_dir);

}  // namespace cosi::machined
