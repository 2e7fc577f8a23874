#include "cmd/cosictl/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <map>

namespace cosi::cosictl {
namespace {

enum class Type { kNull, kBool, kInt, kFloat, kString };

bool digits(const std::string& s, std::size_t from) {
  if (from >= s.size()) return false;
  for (std::size_t i = from; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

Type type_of(const YAML::Node& n) {
  if (n.IsNull()) return Type::kNull;
  if (n.Tag() == "!") return Type::kString;  // quoted
  const std::string& s = n.Scalar();
  if (s == "true" || s == "false" || s == "True" || s == "False" || s == "TRUE" || s == "FALSE") return Type::kBool;
  if (s == "null" || s == "~" || s == "Null" || s == "NULL") return Type::kNull;
  std::size_t sign = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (digits(s, sign)) return Type::kInt;
  double d;
  char tail;
  if (std::sscanf(s.c_str(), "%lf%c", &d, &tail) == 1 && s.find_first_of("0123456789") != std::string::npos &&
      s.find_first_not_of("0123456789.eE+-") == std::string::npos) {
    return Type::kFloat;
  }
  return Type::kString;
}

}  // namespace

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '<': out += "\\u003c"; break;  // as Go's encoder escapes HTML
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string scalar_text(const YAML::Node& n) {
  switch (type_of(n)) {
    case Type::kNull: return "<nil>";
    default: return n.Scalar();
  }
}

std::string to_json(const YAML::Node& n, const std::string& indent, int level) {
  const bool pretty = !indent.empty();
  auto pad = [&](int l) {
    std::string p;
    for (int i = 0; i < l; ++i) p += indent;
    return p;
  };
  if (n.IsSequence()) {
    if (n.size() == 0) return "[]";
    std::string out = "[";
    for (std::size_t i = 0; i < n.size(); ++i) {
      if (i) out += ",";
      if (pretty) out += "\n" + pad(level + 1);
      out += to_json(n[i], indent, level + 1);
    }
    if (pretty) out += "\n" + pad(level);
    return out + "]";
  }
  if (n.IsMap()) {
    std::map<std::string, YAML::Node> sorted;
    for (const auto& kv : n) sorted.emplace(kv.first.Scalar(), kv.second);
    if (sorted.empty()) return "{}";
    std::string out = "{";
    bool first = true;
    for (const auto& [k, v] : sorted) {
      if (!first) out += ",";
      first = false;
      if (pretty) out += "\n" + pad(level + 1);
      out += json_string(k) + (pretty ? ": " : ":") + to_json(v, indent, level + 1);
    }
    if (pretty) out += "\n" + pad(level);
    return out + "}";
  }
  switch (type_of(n)) {
    case Type::kNull: return "null";
    case Type::kBool: return (n.Scalar()[0] == 't' || n.Scalar()[0] == 'T') ? "true" : "false";
    case Type::kInt:
    case Type::kFloat: return n.Scalar()[0] == '+' ? n.Scalar().substr(1) : n.Scalar();
    case Type::kString: return json_string(n.Scalar());
  }
  return "null";
}

}  // namespace cosi::cosictl
