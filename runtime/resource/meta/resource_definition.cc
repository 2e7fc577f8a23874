#include "runtime/resource/meta/resource_definition.h"

#include <cctype>

#include "runtime/resource/meta/inflection.h"
#include "runtime/resource/meta/namespace.h"

namespace cosi {
namespace {

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// ^[A-Z][A-Za-z0-9-]+$
bool valid_name(std::string_view name) {
  if (name.size() < 2 || !is_upper(name[0])) return false;
  for (char c : name.substr(1)) {
    if (!is_upper(c) && !is_lower(c) && !is_digit(c) && c != '-') return false;
  }
  return true;
}

// ^[a-z][a-z0-9-]+(\.[a-z][a-z0-9-]+)*$
bool valid_suffix(std::string_view suffix) {
  std::size_t start = 0;
  while (true) {
    std::size_t dot = suffix.find('.', start);
    std::string_view part = suffix.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.size() < 2 || !is_lower(part[0])) return false;
    for (char c : part.substr(1)) {
      if (!is_lower(c) && !is_digit(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

Error invalid(const std::string& type, const std::string& why) {
  return Error(ErrorKind::kInvalidArgument, "resource type \"" + type + "\": " + why);
}

}  // namespace

std::string ResourceDefinitionSpec::id() const { return lowercase(type); }

Result<ResourceDefinitionSpec> make_definition(ResourceDefinitionInput input) {
  const std::string& type = input.type;
  auto dot = type.find('.');
  if (dot == std::string::npos) {
    return invalid(type, "missing suffix (want PluralCamelName.suffix.domain)");
  }
  std::string_view name = std::string_view(type).substr(0, dot);
  std::string_view suffix = std::string_view(type).substr(dot + 1);
  if (name.empty()) return invalid(type, "name is empty");
  if (suffix.empty()) return invalid(type, "suffix is empty");
  if (lowercase(name) == name) return invalid(type, "name should be in CamelCase");
  if (!valid_name(name)) return invalid(type, "name doesn't match ^[A-Z][A-Za-z0-9-]+$");
  if (!valid_suffix(suffix)) {
    return invalid(type, "suffix doesn't match ^[a-z][a-z0-9-]+(\\.[a-z][a-z0-9-]+)*$");
  }
  if (!inflection::is_plural(name)) return invalid(type, "name should be plural");
  if (input.sensitivity != Sensitivity::kNonSensitive &&
      input.sensitivity != Sensitivity::kSensitive) {
    return invalid(type, "unknown sensitivity");
  }

  ResourceDefinitionSpec spec;
  spec.type = type;
  spec.display_type = inflection::singular(name);
  spec.default_namespace = std::move(input.default_namespace);
  spec.print_columns = std::move(input.print_columns);
  spec.sensitivity = input.sensitivity;

  spec.aliases = std::move(input.aliases);
  spec.aliases.push_back(lowercase(spec.display_type));
  std::string initials;
  for (char c : name) {
    if (is_upper(c)) initials += c;
  }
  if (initials.size() > 1) {
    spec.aliases.push_back(lowercase(initials));
    if (initials.back() != 'S') spec.aliases.push_back(lowercase(initials) + "s");
  }

  const std::string plural = lowercase(name);
  spec.all_aliases.push_back(plural);
  std::string prefix = plural;
  for (std::size_t start = 0, next; (next = suffix.find('.', start)) != std::string_view::npos;
       start = next + 1) {
    prefix += ".";
    prefix += suffix.substr(start, next - start);
    spec.all_aliases.push_back(prefix);
  }
  spec.all_aliases.insert(spec.all_aliases.end(), spec.aliases.begin(), spec.aliases.end());
  return spec;
}

std::shared_ptr<ResourceDefinition> make_definition_resource(const ResourceDefinitionSpec& spec) {
  return make_resource(Metadata(kMetaNamespace, kResourceDefinitionType, spec.id()), spec);
}

// As COSI defines it (pkg/resource/meta): the explicit alias `api-resources`, and the aliases as
// its one print column.
ResourceDefinitionSpec resource_definition_definition() {
  return *make_definition({.type = std::string(kResourceDefinitionType),
                           .default_namespace = std::string(kMetaNamespace),
                           .aliases = {"api-resources"},
                           .print_columns = {{"Aliases", "{.aliases[:]}"}}});
}

ResourceDefinitionSpec namespace_definition() {
  return *make_definition({.type = std::string(kNamespaceType),
                           .default_namespace = std::string(kMetaNamespace),
                           .aliases = {"ns"}});
}

}  // namespace cosi
