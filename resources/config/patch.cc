#include "resources/config/patch.h"
#include "resources/config/yaml_reader.h"

#include <yaml-cpp/yaml.h>

#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace cosi::config {

namespace {

constexpr std::string_view kDirective = "$patch";

// Values and scalar bytes a merge may read or produce, aliases counted each time they are
// expanded (yaml-cpp expands them when it copies or writes a document).
constexpr size_t kMaxValues = 100000;
constexpr size_t kMaxBytes = 16 << 20;
struct TooLarge {};
// YAML allows implicit keys of at most 1024 characters as written (escapes included); longer
// ones could not be read back.
constexpr size_t kMaxKeyChars = 1024;
struct KeyTooLong {
  int line;
  size_t chars;
};
// A key that is a list or a mapping: no config has one, and yaml-cpp cannot write it back.
struct KeyNotScalar {
  int line;
};
thread_local size_t produced = 0;
thread_local size_t produced_bytes = 0;

void count(const YAML::Node& node) {
  if (++produced > kMaxValues) throw TooLarge{};
  if (node.IsScalar() && (produced_bytes += node.Scalar().size()) > kMaxBytes) throw TooLarge{};
}

// Throws TooLarge when `node` expands beyond the budget.
void measure(const YAML::Node& node) {
  count(node);
  if (node.IsMap()) {
    for (const auto& kv : node) {
      if (kv.first.IsMap() || kv.first.IsSequence()) throw KeyNotScalar{kv.first.Mark().line + 1};
      if (kv.first.IsScalar() && kv.first.Scalar().size() > kMaxKeyChars / 8) {
        YAML::Emitter written;
        written << kv.first;
        if (written.size() > kMaxKeyChars) throw KeyTooLong{kv.first.Mark().line + 1, written.size()};
      }
      measure(kv.first);
      measure(kv.second);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) measure(item);
  }
}

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
  // The last patch item of each name wins, as a later key would in a mapping.
  std::unordered_map<std::string, YAML::Node> changes;
  for (const auto& item : patch) {
    const std::string name = item[*key].Scalar();
    changes.erase(name);  // never assign one YAML::Node to another: that rewrites what it refers to
    changes.emplace(name, static_cast<const YAML::Node&>(item));
  }
  std::unordered_set<std::string> in_base;
  for (const auto& item : base) {
    const std::string name = item[*key].Scalar();
    in_base.insert(name);
    auto change = changes.find(name);
    if (change == changes.end()) {
      out.push_back(YAML::Clone(item));
    } else if (!is_delete(change->second)) {
      out.push_back(merged(item, change->second));
    }
  }
  for (const auto& item : patch) {
    const std::string name = item[*key].Scalar();
    if (in_base.contains(name) || is_delete(item)) continue;
    in_base.insert(name);  // a name given twice in the patch is added once, its last version
    out.push_back(merged(YAML::Node(YAML::NodeType::Null), changes.at(name)));
  }
  return out;
}

// A new node: `patch` merged over `base` (neither is modified).
YAML::Node merged(const YAML::Node& base, const YAML::Node& patch) {
  count(patch);
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
    return load_yaml_documents(text);
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
    // Both inputs within the budget as written, then the result as built.
    for (const auto& [name, docs_of] : {std::pair{"config", &*docs}, std::pair{"patch", &*patches}}) {
      produced = produced_bytes = 0;
      try {
        for (const auto& d : *docs_of) measure(d);
      } catch (const KeyNotScalar& e) {
        return Error(ErrorKind::kInvalidArgument,
                     std::string(name) + " line " + std::to_string(e.line) + ": a key that is a list or a mapping");
      } catch (const KeyTooLong& e) {
        return Error(ErrorKind::kInvalidArgument, std::string(name) + " line " + std::to_string(e.line) + ": a key of " +
                                                      std::to_string(e.chars) + " characters as YAML (at most " +
                                                      std::to_string(kMaxKeyChars) + ")");
      }
    }
    produced = produced_bytes = 0;
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
  } catch (const TooLarge&) {
    return Error(ErrorKind::kInvalidArgument,
                 "the patched config would be too large (more than " + std::to_string(kMaxValues) + " values, aliases counted)");
  }
}

}  // namespace cosi::config
