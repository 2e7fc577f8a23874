// The encodings of the meta specs: protobuf as cosi.resource.meta, YAML as COSI prints them.
#include "meta.pb.h"
#include "runtime/resource/meta/namespace.h"
#include "runtime/resource/meta/resource_definition.h"

namespace cosi {
namespace {

// A YAML scalar that is safe to write plain, else double-quoted.
std::string scalar(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == '/')) {
      plain = false;
    }
  }
  if (plain) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

void list(std::string& out, const char* key, const std::vector<std::string>& items) {
  out += key;
  if (items.empty()) {
    out += ": []\n";
    return;
  }
  out += ":\n";
  for (const auto& i : items) out += "    - " + scalar(i) + "\n";
}

Error undecodable(std::string_view what) {
  return Error(ErrorKind::kInvalidArgument, "spec bytes are not a valid " + std::string(what));
}

}  // namespace

std::string SpecTraits<ResourceDefinitionSpec>::encode(const ResourceDefinitionSpec& spec) {
  cosi::resource::meta::ResourceDefinitionSpec m;
  m.set_resource_type(spec.type);
  m.set_display_type(spec.display_type);
  m.set_default_namespace(spec.default_namespace);
  for (const auto& a : spec.aliases) m.add_aliases(a);
  for (const auto& a : spec.all_aliases) m.add_all_aliases(a);
  for (const auto& c : spec.print_columns) {
    auto* col = m.add_print_columns();
    col->set_name(c.name);
    col->set_json_path(c.json_path);
  }
  m.set_sensitivity(static_cast<cosi::resource::meta::ResourceDefinitionSpec::Sensitivity>(spec.sensitivity));
  return m.SerializeAsString();
}

Result<ResourceDefinitionSpec> SpecTraits<ResourceDefinitionSpec>::decode(std::string_view bytes) {
  cosi::resource::meta::ResourceDefinitionSpec m;
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return undecodable("cosi.resource.meta.ResourceDefinitionSpec");
  }
  ResourceDefinitionSpec spec;
  spec.type = m.resource_type();
  spec.display_type = m.display_type();
  spec.default_namespace = m.default_namespace();
  spec.aliases.assign(m.aliases().begin(), m.aliases().end());
  spec.all_aliases.assign(m.all_aliases().begin(), m.all_aliases().end());
  for (const auto& c : m.print_columns()) spec.print_columns.push_back({c.name(), c.json_path()});
  spec.sensitivity = static_cast<Sensitivity>(m.sensitivity());
  return spec;
}

std::string SpecTraits<ResourceDefinitionSpec>::yaml(const ResourceDefinitionSpec& spec) {
  std::string out = "type: " + scalar(spec.type) + "\n";
  out += "displayType: " + scalar(spec.display_type) + "\n";
  out += "defaultNamespace: " + scalar(spec.default_namespace) + "\n";
  list(out, "aliases", spec.aliases);
  list(out, "allAliases", spec.all_aliases);
  out += "printColumns:";
  if (spec.print_columns.empty()) {
    out += " []\n";
  } else {
    out += "\n";
    for (const auto& c : spec.print_columns) {
      out += "    - name: " + scalar(c.name) + "\n      jsonPath: " + scalar(c.json_path) + "\n";
    }
  }
  if (spec.sensitivity == Sensitivity::kSensitive) out += "sensitivity: sensitive\n";
  return out;
}

std::string SpecTraits<NamespaceSpec>::encode(const NamespaceSpec& spec) {
  cosi::resource::meta::NamespaceSpec m;
  m.set_description(spec.description);
  return m.SerializeAsString();
}

Result<NamespaceSpec> SpecTraits<NamespaceSpec>::decode(std::string_view bytes) {
  cosi::resource::meta::NamespaceSpec m;
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return undecodable("cosi.resource.meta.NamespaceSpec");
  }
  return NamespaceSpec{m.description()};
}

std::string SpecTraits<NamespaceSpec>::yaml(const NamespaceSpec& spec) {
  return "description: " + scalar(spec.description) + "\n";
}

}  // namespace cosi
