// The JSONPath subset resource print columns use, evaluated over a resource's YAML spec the
// way talosctl's table does (k8s jsonpath with missing keys allowed):
//
//   {.hostname}              a value
//   {.endpoints[*].host}     every element's value, space-separated
//   {.addresses[0]}          one element
//   {.aliases[:]}            a slice ([1:], [:2], [1:3]): its elements, space-separated
//
// Scalars print as text; lists and maps as compact JSON (["172.20.0.2","fd00::1"]). A missing
// key prints nothing.
#pragma once

#include <string>

#include "runtime/base/result.h"

namespace YAML {
class Node;
}

namespace cosi::cosictl {

// kInvalidArgument naming the expression when it is not of the subset above.
Result<std::string> eval_jsonpath(const std::string& expression, const YAML::Node& root);

}  // namespace cosi::cosictl
