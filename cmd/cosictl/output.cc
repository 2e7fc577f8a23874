#include "cmd/cosictl/output.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "cmd/cosictl/jsonpath.h"
#include "cmd/cosictl/yaml_json.h"
#include "runtime/proto/yaml_render.h"
#include "resources/config/yaml_reader.h"

namespace cosi::cosictl {
namespace {

std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xc0) != 0x80) ++n;  // count UTF-8 code points
  }
  return n;
}

// RFC 3339 with nanoseconds, trailing zeros dropped (Go's time.RFC3339Nano).
std::string rfc3339(const google::protobuf::Timestamp& t) {
  std::time_t secs = static_cast<std::time_t>(t.seconds());
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec);
  std::string out = buf;
  if (t.nanos() != 0) {
    std::snprintf(buf, sizeof buf, ".%09d", t.nanos());
    std::string frac = buf;
    while (frac.back() == '0') frac.pop_back();
    out += frac;
  }
  return out + "Z";
}

std::string indented(const std::string& text, const std::string& pad) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    out += line.empty() ? "\n" : pad + line + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::string event_name(EventType e) { return std::string(to_string(e)); }

std::string document(const std::string& node, const cosi::resource::Resource& r, std::optional<EventType> event) {
  std::string out = "node: " + yaml_scalar(node) + "\n";
  if (event) out += "event: " + event_name(*event) + "\n";
  out += metadata_yaml(r.metadata());
  const std::string& spec = r.spec().yaml_spec();
  out += spec.empty() ? "spec: {}\n" : "spec:\n" + indented(spec, "    ");
  return out;
}

class TablePrinter final : public Printer {
 public:
  TablePrinter(const ResourceDefinitionSpec& d, bool watching) : definition_(d), watching_(watching) {
    std::vector<std::string> header{"NODE"};
    if (watching) header.push_back("*");
    for (const char* f : {"NAMESPACE", "TYPE", "ID", "VERSION"}) header.push_back(f);
    for (const auto& c : d.print_columns) {
      std::string name = c.name;
      for (auto& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      header.push_back(name);
    }
    table_.row(std::move(header));
  }

  Status print(const std::string& node, const cosi::resource::Resource& r, std::optional<EventType> event) override {
    std::vector<std::string> row{node};
    if (watching_) {
      row.push_back(event == EventType::kCreated ? "+" : event == EventType::kDestroyed ? "-" : " ");
    }
    const auto& md = r.metadata();
    row.insert(row.end(), {md.namespace_(), definition_.display_type, md.id(), md.version()});
    YAML::Node spec;
    try {
      spec = config::load_yaml_document(r.spec().yaml_spec());
    } catch (const YAML::Exception& e) {
      return Error(ErrorKind::kInvalidArgument, "the server sent a spec that is not YAML: " + std::string(e.what()));
    }
    for (const auto& c : definition_.print_columns) {
      auto v = eval_jsonpath(c.json_path, spec);
      if (!v.ok()) return v.error();
      row.push_back(*v);
    }
    table_.row(std::move(row));
    if (watching_) flush();  // each event as it comes
    return {};
  }

  void flush() override {
    std::cout << table_.render() << std::flush;
    table_ = TabWriter();
  }

 private:
  const ResourceDefinitionSpec definition_;
  const bool watching_;
  TabWriter table_;
};

class YamlPrinter final : public Printer {
 public:
  explicit YamlPrinter(bool watching) : watching_(watching) {}
  Status print(const std::string& node, const cosi::resource::Resource& r, std::optional<EventType> event) override {
    if (dashes_) std::cout << "---\n";
    dashes_ = true;
    std::cout << document(node, r, watching_ ? event : std::nullopt) << std::flush;
    return {};
  }
  void flush() override {}

 private:
  const bool watching_;
  bool dashes_ = false;
};

class JsonPrinter final : public Printer {
 public:
  explicit JsonPrinter(bool watching) : watching_(watching) {}
  Status print(const std::string& node, const cosi::resource::Resource& r, std::optional<EventType> event) override {
    YAML::Node doc;
    try {
      doc = config::load_yaml_document(document(node, r, watching_ ? event : std::nullopt));
    } catch (const YAML::Exception& e) {
      return Error(ErrorKind::kInvalidArgument, "the server sent a spec that is not YAML: " + std::string(e.what()));
    }
    std::cout << to_json(doc, "    ") << "\n" << std::flush;
    return {};
  }
  void flush() override {}

 private:
  const bool watching_;
};

}  // namespace

std::string TabWriter::render() {
  std::vector<std::size_t> widths;
  for (const auto& row : rows_) {
    for (std::size_t i = 0; i + 1 < row.size(); ++i) {  // the last cell of a row does not align
      if (widths.size() <= i) widths.resize(i + 1, 0);
      widths[i] = std::max(widths[i], display_width(row[i]));
    }
  }
  std::string out;
  for (const auto& row : rows_) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      out += row[i];
      if (i + 1 < row.size()) out += std::string(widths[i] - display_width(row[i]) + 3, ' ');
    }
    out += "\n";
  }
  return out;
}

std::string metadata_yaml(const cosi::resource::Metadata& md) {
  std::string out = "metadata:\n";
  out += "    namespace: " + yaml_scalar(md.namespace_()) + "\n";
  out += "    type: " + yaml_scalar(md.type()) + "\n";
  out += "    id: " + yaml_scalar(md.id()) + "\n";
  out += "    version: " + md.version() + "\n";
  out += "    owner: " + yaml_scalar(md.owner()) + "\n";
  out += "    phase: " + md.phase() + "\n";
  out += "    created: " + rfc3339(md.created()) + "\n";
  out += "    updated: " + rfc3339(md.updated()) + "\n";
  auto map_block = [&](const char* key, const google::protobuf::Map<std::string, std::string>& m) {
    if (m.empty()) return;
    std::map<std::string, std::string> sorted(m.begin(), m.end());
    out += std::string("    ") + key + ":\n";
    for (const auto& [k, v] : sorted) out += "        " + yaml_scalar(k) + ": " + yaml_scalar(v) + "\n";
  };
  map_block("labels", md.labels());
  map_block("annotations", md.annotations());
  if (md.finalizers_size() > 0) {
    out += "    finalizers:\n";
    for (const auto& f : md.finalizers()) out += "        - " + yaml_scalar(f) + "\n";
  }
  return out;
}

Result<std::unique_ptr<Printer>> make_printer(const std::string& format, const ResourceDefinitionSpec& definition,
                                              bool watching) {
  if (format == "table") {
    for (const auto& c : definition.print_columns) {
      if (auto v = eval_jsonpath(c.json_path, YAML::Node()); !v.ok()) return v.error();
    }
    return std::unique_ptr<Printer>(new TablePrinter(definition, watching));
  }
  if (format == "yaml") return std::unique_ptr<Printer>(new YamlPrinter(watching));
  if (format == "json") return std::unique_ptr<Printer>(new JsonPrinter(watching));
  return Error(ErrorKind::kInvalidArgument, "output format \"" + format + "\" is not one of table, yaml, json");
}

}  // namespace cosi::cosictl
