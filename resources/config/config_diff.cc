#include "resources/config/config_diff.h"

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

void flatten(const YAML::Node& node, const std::string& path, Leaves& out) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      if (node.size() == 0) out[path] = "{}";
      for (const auto& kv : node) {
        const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
        flatten(kv.second, path.empty() ? key : path + "." + key, out);
      }
      break;
    case YAML::NodeType::Sequence:
      if (node.size() == 0) out[path] = "[]";
      for (size_t i = 0; i < node.size(); ++i) flatten(node[i], path + "[" + std::to_string(i) + "]", out);
      break;
    case YAML::NodeType::Scalar:
      out[path] = "\"" + node.Scalar() + "\"";
      break;
    default:
      out[path] = "null";
  }
}

Leaves leaves_of(std::string_view text) {
  Leaves out;
  try {
    auto docs = YAML::LoadAll(std::string(text));
    for (size_t i = 0; i < docs.size(); ++i) flatten(docs[i], docs.size() > 1 ? "#" + std::to_string(i) : "", out);
  } catch (const YAML::Exception&) {
  }
  return out;
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
