#include "runtime/resource/meta/inflection.h"

#include <array>
#include <utility>

namespace cosi::inflection {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// (plural ending, singular ending), first match wins. Words ending in -ss or -us are singular.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kRules = {{
    {"ies", "y"},
    {"sses", "ss"},
    {"uses", "us"},
    {"xes", "x"},
    {"ches", "ch"},
    {"shes", "sh"},
    {"s", ""},
}};

}  // namespace

std::string singular(std::string_view name) {
  if (ends_with(name, "ss") || ends_with(name, "us")) return std::string(name);
  for (const auto& [plural_end, singular_end] : kRules) {
    if (ends_with(name, plural_end)) {
      std::string out(name.substr(0, name.size() - plural_end.size()));
      out += singular_end;
      return out;
    }
  }
  return std::string(name);
}

bool is_plural(std::string_view name) { return singular(name) != name; }

}  // namespace cosi::inflection
