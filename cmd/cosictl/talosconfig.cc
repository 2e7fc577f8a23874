#include "cmd/cosictl/talosconfig.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>

#include "cmd/common/files.h"
#include "runtime/base/base64.h"
#include "resources/config/yaml_reader.h"

namespace cosi::cosictl {

namespace {

Error invalid(const YAML::Node& at, const std::string& path, const std::string& what) {
  return Error(ErrorKind::kInvalidArgument,
               "talosconfig line " + std::to_string(at.Mark().line + 1) + ": " + path + ": " + what);
}

// Names, endpoints and nodes are printable text (the reader has checked UTF-8): control
// characters would not survive a rewrite of the file, and can only be a corrupted file.
bool printable(const std::string& s) {
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

Result<std::string> read_text(const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) return invalid(node, path, "expected a string");
  if (!printable(node.Scalar())) return invalid(node, path, "contains control characters");
  return node.Scalar();
}

// Values read, aliases counted each time: a few aliases can make a file of billions.
constexpr size_t kMaxValues = 100000;
thread_local size_t values_read = 0;

Result<std::vector<std::string>> read_list(const YAML::Node& node, const std::string& path) {
  std::vector<std::string> out;
  if (!node || node.IsNull()) return out;
  if (!node.IsSequence()) return invalid(node, path, "expected a list of strings");
  if ((values_read += node.size()) > kMaxValues) return invalid(node, path, "the file is too large (aliases counted)");
  for (size_t i = 0; i < node.size(); ++i) {
    auto text = read_text(node[i], path + "[" + std::to_string(i) + "]");
    if (!text.ok()) return text.error();
    out.push_back(std::move(*text));
  }
  return out;
}

Result<std::string> read_pem(const YAML::Node& node, const std::string& path) {
  if (!node || node.IsNull()) return std::string();
  if (!node.IsScalar()) return invalid(node, path, "expected a base64 string");
  if (node.Scalar().empty()) return std::string();
  auto pem = base64_decode(node.Scalar());
  if (!pem) return invalid(node, path, "is not base64");
  if (pem->find("-----BEGIN ") == std::string::npos) return invalid(node, path, "is not a base64-encoded PEM block");
  return *pem;
}

Result<TalosContext> read_context(const YAML::Node& node, const std::string& path) {
  if (!node.IsMap()) return invalid(node, path, "expected a mapping");
  TalosContext c;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) return invalid(kv.first, path, "a key must be a string");
    const std::string key = kv.first.Scalar();
    const std::string p = path + "." + key;
    if (key == "endpoints") {
      auto v = read_list(kv.second, p);
      if (!v.ok()) return v.error();
      c.endpoints = std::move(*v);
    } else if (key == "nodes") {
      auto v = read_list(kv.second, p);
      if (!v.ok()) return v.error();
      c.nodes = std::move(*v);
    } else if (key == "ca" || key == "crt" || key == "key") {
      auto v = read_pem(kv.second, p);
      if (!v.ok()) return v.error();
      (key == "ca" ? c.ca : key == "crt" ? c.crt : c.key) = std::move(*v);
    } else if (key == "auth" || key == "cluster") {
      // talosctl's Omni/SideroV1 settings: nothing for us to use.
    } else {
      return invalid(kv.first, p, "unknown key");
    }
  }
  return c;
}

}  // namespace

Result<const TalosContext*> TalosConfig::find(const std::string& name) const {
  const std::string& wanted = name.empty() ? context : name;
  if (wanted.empty()) return Error(ErrorKind::kNotFound, "the talosconfig names no current context");
  auto it = contexts.find(wanted);
  if (it == contexts.end()) {
    std::string known;
    for (const auto& [n, _] : contexts) known += (known.empty() ? "" : ", ") + n;
    return Error(ErrorKind::kNotFound, "context \"" + wanted + "\" is not in the talosconfig (it has: " +
                                           (known.empty() ? std::string("none") : known) + ")");
  }
  return &it->second;
}

Result<TalosConfig> parse_talosconfig(std::string_view yaml) {
  try {
    values_read = 0;
    YAML::Node doc = config::load_yaml_document(yaml);
    TalosConfig out;
    if (doc.IsNull()) return out;
    if (!doc.IsMap()) return invalid(doc, "(document)", "expected a mapping");
    for (const auto& kv : doc) {
      if (!kv.first.IsScalar()) return invalid(kv.first, "(document)", "a key must be a string");
      const std::string key = kv.first.Scalar();
      if (key == "context") {
        if (!kv.second.IsScalar() && !kv.second.IsNull()) return invalid(kv.second, key, "expected a string");
        if (kv.second.IsScalar()) {
          auto text = read_text(kv.second, key);
          if (!text.ok()) return text.error();
          out.context = std::move(*text);
        }
      } else if (key == "contexts") {
        if (kv.second.IsNull()) continue;
        if (!kv.second.IsMap()) return invalid(kv.second, key, "expected a mapping of context names");
        for (const auto& c : kv.second) {
          if (!c.first.IsScalar()) return invalid(c.first, key, "a context name must be a string");
          auto text = read_text(c.first, key);
          if (!text.ok()) return text.error();
          const std::string name = std::move(*text);
          if (out.contexts.contains(name)) return invalid(c.first, "contexts." + name, "defined twice");
          auto ctx = read_context(c.second, "contexts." + name);
          if (!ctx.ok()) return ctx.error();
          out.contexts.emplace(name, std::move(*ctx));
        }
      } else {
        return invalid(kv.first, key, "unknown key (a talosconfig has context and contexts)");
      }
    }
    return out;
  } catch (const YAML::Exception& e) {
    return Error(ErrorKind::kInvalidArgument,
                 "talosconfig line " + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
}

std::string render_talosconfig(const TalosConfig& config) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "context" << YAML::Value << config.context;
  out << YAML::Key << "contexts" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, c] : config.contexts) {
    out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "endpoints" << YAML::Value << YAML::BeginSeq;
    for (const auto& e : c.endpoints) out << e;
    out << YAML::EndSeq;
    if (!c.nodes.empty()) {
      out << YAML::Key << "nodes" << YAML::Value << YAML::BeginSeq;
      for (const auto& n : c.nodes) out << n;
      out << YAML::EndSeq;
    }
    if (!c.ca.empty()) out << YAML::Key << "ca" << YAML::Value << base64_encode(c.ca);
    if (!c.crt.empty()) out << YAML::Key << "crt" << YAML::Value << base64_encode(c.crt);
    if (!c.key.empty()) out << YAML::Key << "key" << YAML::Value << base64_encode(c.key);
    out << YAML::EndMap;
  }
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::string talosconfig_path(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("TALOSCONFIG"); env != nullptr && *env != '\0') return env;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : "/root") + "/.talos/config";
}

Result<TalosConfig> load_talosconfig(const std::string& path) {
  auto text = cmd::read_file(path);
  if (!text.ok()) return text.error();
  auto config = parse_talosconfig(*text);
  if (!config.ok()) return Error(ErrorKind::kInvalidArgument, path + ": " + config.error().message());
  return config;
}

Status save_talosconfig(const std::string& path, const TalosConfig& config) {
  return cmd::write_file_atomically(path, render_talosconfig(config), 0600);
}

std::vector<std::string> merge_talosconfig(TalosConfig& into, const TalosConfig& other) {
  std::vector<std::string> lines;
  std::string current;
  for (const auto& [name, c] : other.contexts) {
    std::string target = name;
    for (int i = 1; into.contexts.contains(target); ++i) target = name + "-" + std::to_string(i);
    into.contexts.emplace(target, c);
    lines.push_back(target == name ? "added context \"" + name + "\""
                                   : "renamed context \"" + name + "\" to \"" + target + "\"");
    if (name == other.context) current = target;
  }
  if (!current.empty()) into.context = current;
  return lines;
}

}  // namespace cosi::cosictl
