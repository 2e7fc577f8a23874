// What applying a config would change, key by key: the report of `apply-config --dry-run`.
// Values of keys that hold secrets (keys, tokens, secrets) are not printed.
//
//   describe_changes(old_yaml, new_yaml) ==
//       {"~ machine.network.hostname: \"cp-1\" -> \"cp-2\"", "+ machine.certSANs[1]: \"10.0.0.9\""}
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cosi::config {

// One line per changed leaf, "+ path: value" (added), "- path: value" (removed) or
// "~ path: old -> new", in path order. Both texts must be YAML (unparseable text counts as
// empty).
std::vector<std::string> describe_changes(std::string_view before, std::string_view after);

}  // namespace cosi::config
