#include "resources/config/config_diff.h"
#include "resources/config/yaml_reader.h"

#include <yaml-cpp/yaml.h>

#include <map>

namespace cosi::config {

namespace {

using Leaves = std::map<std::string, std::string>;

bool is_secret(const std::string& path) {
  auto last = path.substr(path.find_last_of(".]") == std::string::npos ? 0 : path.find_last_of(".]") + 1);
  return last == "key" || last == "token" || last == "secret" || last.find("Secret") != std::string::npos ||
         last == "bootstraptoken";
}

// What a comparison may hold, aliases counted each time they are expanded: leaves, and bytes
// of their paths and values (deep nesting makes long paths).
constexpr size_t kMaxLeaves = 100000;
constexpr size_t kMaxBytes = 16 << 20;

struct Flattener {
  Leaves out;
  size_t bytes = 0;
  bool truncated = false;

  void leaf(const std::string& path, std::string value) {
    if (out.size() >= kMaxLeaves || bytes + path.size() + value.size() > kMaxBytes) {
      truncated = true;
      return;
    }
    bytes += path.size() + value.size();
    out[path] = std::move(value);
  }

  void flatten(const YAML::Node& node, const std::string& path) {
    if (truncated) return;
    switch (node.Type()) {
      case YAML::NodeType::Map:
        if (node.size() == 0) leaf(path, "{}");
        for (const auto& kv : node) {
          const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
          flatten(kv.second, path.empty() ? key : path + "." + key);
        }
        break;
      case YAML::NodeType::Sequence:
        if (node.size() == 0) leaf(path, "[]");
        for (size_t i = 0; i < node.size() && !truncated; ++i) flatten(node[i], path + "[" + std::to_string(i) + "]");
        break;
      case YAML::NodeType::Scalar:
        leaf(path, "\"" + node.Scalar() + "\"");
        break;
      default:
        leaf(path, "null");
    }
  }
};

Leaves leaves_of(std::string_view text) {
  Flattener f;
  try {
    auto docs = load_yaml_documents(text);
    for (size_t i = 0; i < docs.size(); ++i) f.flatten(docs[i], docs.size() > 1 ? "#" + std::to_string(i) : "");
  } catch (const YAML::Exception&) {
  }
  if (f.truncated) f.out["~"] = "(too large to compare)";
  return std::move(f.out);
}

}  // namespace

std::vector<std::string> describe_changes(std::string_view before, std::string_view after) {
  const Leaves a = leaves_of(before);
  const Leaves b = leaves_of(after);
  auto shown = [](const std::string& path, const std::string& value) {
    return is_secret(path) ? std::string("(secret)") : value;
  };
  std::vector<std::string> out;
  auto ia = a.begin();
  auto ib = b.begin();
  while (ia != a.end() || ib != b.end()) {
    if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
      out.push_back("- " + ia->first + ": " + shown(ia->first, ia->second));
      ++ia;
    } else if (ia == a.end() || ib->first < ia->first) {
      out.push_back("+ " + ib->first + ": " + shown(ib->first, ib->second));
      ++ib;
    } else {
      if (ia->second != ib->second) {
        out.push_back("~ " + ia->first + ": " + shown(ia->first, ia->second) + " -> " + shown(ib->first, ib->second));
      }
      ++ia;
      ++ib;
    }
  }
  return out;
}

}  // namespace cosi::config
