// Reading YAML that comes from outside (configs, patches, talosconfigs, bundles). yaml-cpp 0.7
// never returns from LoadAll when a ',' stands where a block node should start (",",
// "{a: b},"): its parser yields an empty document without consuming the token, forever,
// allocating as it goes; and it reads bytes that are not UTF-8 but writes them back changed
// (as U+FFFD), so a patched config could come out unreadable. These functions check the
// text and walk the events first, and turn both into errors.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>
#include <vector>

namespace cosi::config {

// Every document in `text`. Throws YAML::Exception (with the mark) on invalid YAML.
std::vector<YAML::Node> load_yaml_documents(std::string_view text);

// The first document (null when there is none); the rest must still be valid YAML.
YAML::Node load_yaml_document(std::string_view text);

}  // namespace cosi::config
