// YAML values as talosctl sees them after yaml.v3 decodes a spec: plain scalars that read as
// bools, ints, floats or null are those, everything else a string. Rendered to JSON the way
// Go's encoding/json prints the decoded value (map keys sorted, four-space indent when asked).
#pragma once

#include <string>

namespace YAML {
class Node;
}

namespace cosi::cosictl {

// Compact JSON ("indent" empty) or indented JSON starting at `level`.
std::string to_json(const YAML::Node& node, const std::string& indent = "", int level = 0);

// A scalar as text (what fmt.Sprint prints for the decoded value).
std::string scalar_text(const YAML::Node& node);

std::string json_string(const std::string& s);

}  // namespace cosi::cosictl
