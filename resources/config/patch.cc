#include "resources/config/patch.h"

#include <yaml-cpp/yaml.h>

#include <optional>

namespace cosi::config {

namespace {

constexpr std::string_view kDirective = "$patch";

bool is_delete(const YAML::Node& node) {
  return node.IsMap() && node[std::string(kDirective)] && node[std::string(kDirective)].IsScalar() &&
         node[std::string(kDirective)].Scalar() == "delete";
}

// The key that names the items of a list, when every item of both lists is a mapping that
// carries it.
std::optional<std::string> name_key(const YAML::Node& a, const YAML::Node& b) {
  for (const char* key : {"interface", "vlanId", "name"}) {
    bool all = true;
    for (const auto* list : {&a, &b}) {
      for (const auto& item : *list) {
        if (!item.IsMap() || !item[key] || !item[key].IsScalar()) all = false;
      }
    }
    if (all && (a.size() > 0 || b.size() > 0)) return std::string(key);
  }
  return std::nullopt;
}

YAML::Node merged(const YAML::Node& base, const YAML::Node& patch);

YAML::Node merged_maps(const YAML::Node& base, const YAML::Node& patch) {
  YAML::Node out(YAML::NodeType::Map);
  for (const auto& kv : base) {
    const std::string key = kv.first.Scalar();
    const YAML::Node change = patch[key];
    if (!change) {
      out[YAML::Clone(kv.first)] = YAML::Clone(kv.second);
    } else if (!is_delete(change)) {
      out[YAML::Clone(kv.first)] = merged(kv.second, change);
    }
  }
  for (const auto& kv : patch) {
    const std::string key = kv.first.Scalar();
    if (key == kDirective || base[key] || is_delete(kv.second)) continue;
    out[YAML::Clone(kv.first)] = merged(YAML::Node(YAML::NodeType::Null), kv.second);
  }
  return out;
}

YAML::Node merged_lists(const YAML::Node& base, const YAML::Node& patch) {
  YAML::Node out(YAML::NodeType::Sequence);
  auto key = name_key(base, patch);
  if (!key) {
    for (const auto& item : base) out.push_back(YAML::Clone(item));
    for (const auto& item : patch) out.push_back(merged(YAML::Node(YAML::NodeType::Null), item));
    return out;
  }
  auto find = [&](const YAML::Node& list, const std::string& name) -> std::optional<YAML::Node> {
    for (const auto& item : list) {
      if (item[*key].Scalar() == name) return item;
    }
    return std::nullopt;
  };
  for (const auto& item : base) {
    auto change = find(patch, item[*key].Scalar());
    if (!change) {
      out.push_back(YAML::Clone(item));
    } else if (!is_delete(*change)) {
      out.push_back(merged(item, *change));
    }
  }
  for (const auto& item : patch) {
    if (find(base, item[*key].Scalar()) || is_delete(item)) continue;
    out.push_back(merged(YAML::Node(YAML::NodeType::Null), item));
  }
  return out;
}

// A new node: `patch` merged over `base` (neither is modified).
YAML::Node merged(const YAML::Node& base, const YAML::Node& patch) {
  if (base.IsMap() && patch.IsMap()) return merged_maps(base, patch);
  if (base.IsSequence() && patch.IsSequence()) return merged_lists(base, patch);
  if (patch.IsMap()) return merged_maps(YAML::Node(YAML::NodeType::Map), patch);  // drops stray directives
  return YAML::Clone(patch);
}

bool is_v1alpha1(const YAML::Node& doc) { return doc.IsMap() && !doc["apiVersion"] && !doc["kind"]; }

bool same_document(const YAML::Node& a, const YAML::Node& b) {
  if (is_v1alpha1(a) || is_v1alpha1(b)) return is_v1alpha1(a) && is_v1alpha1(b);
  auto text = [](const YAML::Node& doc, const char* key) {
    return doc[key] && doc[key].IsScalar() ? doc[key].Scalar() : std::string();
  };
  return text(a, "apiVersion") == text(b, "apiVersion") && text(a, "kind") == text(b, "kind") &&
         text(a, "name") == text(b, "name");
}

Result<std::vector<YAML::Node>> load(std::string_view text, const char* what) {
  try {
    return YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    return Error(ErrorKind::kInvalidArgument,
                 std::string(what) + " line " + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
}

}  // namespace

Result<std::string> apply_patch(std::string_view config, std::string_view patch) {
  auto docs = load(config, "config");
  if (!docs.ok()) return docs.error();
  auto patches = load(patch, "patch");
  if (!patches.ok()) return patches.error();
  try {
    for (const auto& p : *patches) {
      if (p.IsNull()) continue;
      const std::string line = std::to_string(p.Mark().line + 1);
      if (p.IsSequence()) {
        return Error(ErrorKind::kInvalidArgument,
                     "patch line " + line + ": a list of JSON6902 operations; write a strategic merge patch (a mapping) instead");
      }
      if (!p.IsMap()) return Error(ErrorKind::kInvalidArgument, "patch line " + line + ": expected a mapping");
      bool applied = false;
      for (auto& doc : *docs) {
        if (doc.IsMap() && same_document(doc, p)) {
          doc = merged(doc, p);
          applied = true;
          break;
        }
      }
      if (!applied) docs->push_back(merged(YAML::Node(YAML::NodeType::Null), p));
    }
    std::string text;
    for (const auto& doc : *docs) {
      if (doc.IsNull()) continue;
      YAML::Emitter out;
      out << doc;
      text += (text.empty() ? "" : "---\n") + std::string(out.c_str()) + "\n";
    }
    return text;
  } catch (const YAML::Exception& e) {
    return Error(ErrorKind::kInvalidArgument, "patch line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

}  // namespace cosi::config
