#include "resources/config/machine_config.h"

#include <arpa/inet.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <set>

#include "resources/config/v1alpha1_schema.h"
#include "runtime/base/base64.h"
#include "resources/config/yaml_reader.h"

namespace cosi::config {

std::string_view to_string(MachineType type) {
  return type == MachineType::kControlPlane ? "controlplane" : "worker";
}

namespace {

// The schema paths machined acts on. A key on this list is read into MachineConfig; a key of
// the schema that is not, and has no ignored ancestor, draws one warning.
const std::set<std::string_view>& acted_on() {
  static const std::set<std::string_view> keys = {
      "version",
      "machine",
      "machine.type",
      "machine.token",
      "machine.ca",
      "machine.ca.crt",
      "machine.ca.key",
      "machine.certSANs",
      "machine.install",
      "machine.install.disk",
      "machine.network",
      "machine.network.hostname",
      "machine.network.interfaces",
      "machine.network.interfaces[].interface",
      "machine.network.interfaces[].deviceSelector",
      "machine.network.interfaces[].deviceSelector.busPath",
      "machine.network.interfaces[].deviceSelector.driver",
      "machine.network.interfaces[].deviceSelector.hardwareAddr",
      "machine.network.interfaces[].deviceSelector.pciID",
      "machine.network.interfaces[].deviceSelector.permanentAddr",
      "machine.network.interfaces[].deviceSelector.physical",
      "machine.network.interfaces[].addresses",
      "machine.network.interfaces[].vip",
      "machine.network.interfaces[].vip.ip",
      "machine.features",
      "machine.features.kubePrism",
      "machine.features.kubePrism.enabled",
      "machine.features.kubePrism.port",
      "cluster.ca",
      "cluster.ca.crt",
      "cluster.ca.key",
      "cluster",
      "cluster.clusterName",
      "cluster.id",
      "cluster.secret",
      "cluster.controlPlane",
      "cluster.controlPlane.endpoint",
      "cluster.discovery",
      "cluster.discovery.enabled",
      "cluster.discovery.registries",
      "cluster.discovery.registries.service",
      "cluster.discovery.registries.service.disabled",
      "cluster.discovery.registries.service.endpoint",
      "cluster.etcd",
      "cluster.etcd.ca",
      "cluster.etcd.ca.crt",
      "cluster.etcd.ca.key",
      "cluster.etcd.advertisedSubnets",
      "cluster.etcd.listenSubnets",
      "cluster.etcd.extraArgs",
  };
  return keys;
}

int line_of(const YAML::Node& node) { return node.Mark().line + 1; }

Error invalid(const YAML::Node& at, const std::string& path, const std::string& what) {
  return Error(ErrorKind::kInvalidArgument, "line " + std::to_string(line_of(at)) + ": " + path + ": " + what);
}

std::string_view kind_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a sequence";
    case YAML::NodeType::Scalar: return "a scalar";
    default: return "nothing";
  }
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s.substr(0, 80)) {
    if (c == '"' || c == '\\') out += '\\';
    out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  }
  return out + (s.size() > 80 ? "…\"" : "\"");
}

// Walks a document against the schema: unknown keys, duplicate keys and shapes are errors;
// keys not acted on are collected as warnings (one per schema path).
class SchemaWalk {
 public:
  // Values visited, aliases counted each time: a few aliases can make a document of billions.
  static constexpr size_t kMaxValues = 100000;

  Status walk_struct(const YAML::Node& map, const std::string& schema_path, const std::string& path, bool ignored) {
    if (++visited_ > kMaxValues) {
      return invalid(map, path.empty() ? "(document)" : path,
                     "the document is too large (more than " + std::to_string(kMaxValues) + " values, aliases counted)");
    }
    if (!map.IsMap()) return invalid(map, path.empty() ? "(document)" : path, std::string("expected a mapping, got ") + std::string(kind_name(map)));
    std::set<std::string> seen;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) return invalid(kv.first, path.empty() ? "(document)" : path, "a key must be a string");
      const std::string key = kv.first.Scalar();
      const std::string child_path = path.empty() ? key : path + "." + key;
      if (!seen.insert(key).second) return invalid(kv.first, child_path, "defined twice");
      const std::string child_schema = schema_path.empty() ? key : schema_path + "." + key;
      const SchemaKey* def = find_schema_key(child_schema);
      if (def == nullptr) return invalid(kv.first, child_path, "unknown key: Talos's v1alpha1 schema does not define it");
      bool child_ignored = ignored;
      if (!ignored && !acted_on().contains(child_schema)) {
        child_ignored = true;
        if (warned_.insert(child_schema).second) {
          warnings_.push_back("line " + std::to_string(line_of(kv.first)) + ": " + child_path +
                              ": a Talos key machined does not act on; accepted and ignored" +
                              (def->deprecated ? " (deprecated in Talos)" : ""));
        }
      }
      if (auto s = walk_value(kv.second, *def, child_path, child_ignored); !s.ok()) return s;
    }
    return {};
  }

  std::vector<std::string> take_warnings() { return std::move(warnings_); }

 private:
  Status walk_value(const YAML::Node& value, const SchemaKey& def, const std::string& path, bool ignored) {
    if (value.IsNull()) return {};
    visited_ += value.IsSequence() || value.IsMap() ? value.size() : 1;
    if (visited_ > kMaxValues) {
      return invalid(value, path, "the document is too large (more than " + std::to_string(kMaxValues) + " values, aliases counted)");
    }
    const std::string schema_path(def.path);
    switch (def.shape) {
      case KeyShape::kScalar:
        if (!value.IsScalar()) return invalid(value, path, std::string("expected a scalar, got ") + std::string(kind_name(value)));
        return {};
      case KeyShape::kScalarList:
        if (!value.IsSequence()) return invalid(value, path, std::string("expected a sequence, got ") + std::string(kind_name(value)));
        for (size_t i = 0; i < value.size(); ++i) {
          if (!value[i].IsScalar()) return invalid(value[i], path + "[" + std::to_string(i) + "]", "expected a scalar");
        }
        return {};
      case KeyShape::kStruct:
        return walk_struct(value, schema_path, path, ignored);
      case KeyShape::kStructList:
        if (!value.IsSequence()) return invalid(value, path, std::string("expected a sequence, got ") + std::string(kind_name(value)));
        for (size_t i = 0; i < value.size(); ++i) {
          if (auto s = walk_struct(value[i], schema_path + "[]", path + "[" + std::to_string(i) + "]", ignored); !s.ok()) return s;
        }
        return {};
      case KeyShape::kStructMap:
        if (!value.IsMap()) return invalid(value, path, std::string("expected a mapping, got ") + std::string(kind_name(value)));
        for (const auto& kv : value) {
          if (!kv.first.IsScalar()) return invalid(kv.first, path, "a key must be a string");
          if (auto s = walk_struct(kv.second, schema_path + ".*", path + "." + kv.first.Scalar(), ignored); !s.ok()) return s;
        }
        return {};
      case KeyShape::kScalarMap:
        if (!value.IsMap()) return invalid(value, path, std::string("expected a mapping, got ") + std::string(kind_name(value)));
        for (const auto& kv : value) {
          if (!kv.first.IsScalar()) return invalid(kv.first, path, "a key must be a string");
          const auto& v = kv.second;
          bool ok = v.IsScalar() || v.IsNull();
          if (v.IsSequence()) {
            ok = true;
            for (const auto& item : v) ok = ok && item.IsScalar();
          }
          if (!ok) return invalid(v, path + "." + kv.first.Scalar(), "expected a string or a list of strings");
        }
        return {};
      case KeyShape::kFreeForm:
        return {};
    }
    return {};
  }

  std::set<std::string> warned_;
  std::vector<std::string> warnings_;
  size_t visited_ = 0;
};

// Typed reads of the acted-on keys. `node` may be undefined (key absent) or null (`key:`).
bool present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

// node[key], or an undefined node when `node` is absent or not a mapping (yaml-cpp throws on
// subscripts of absent nodes).
YAML::Node at(const YAML::Node& node, const char* key) {
  if (present(node) && node.IsMap()) {
    if (YAML::Node child = node[key]; child.IsDefined()) return child;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

Result<std::string> read_string(const YAML::Node& node, const std::string& path) {
  if (!present(node)) return std::string();
  if (!node.IsScalar()) return invalid(node, path, "expected a string");
  return node.Scalar();
}

Result<bool> read_bool(const YAML::Node& node, const std::string& path, bool fallback) {
  if (!present(node)) return fallback;
  const std::string& s = node.IsScalar() ? node.Scalar() : std::string();
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return invalid(node, path, "expected true or false, got " + (node.IsScalar() ? quoted(s) : std::string(kind_name(node))));
}

Result<int> read_port(const YAML::Node& node, const std::string& path, int fallback) {
  if (!present(node)) return fallback;
  const std::string& s = node.IsScalar() ? node.Scalar() : std::string();
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 1 || v > 65535) {
    return invalid(node, path, "expected a port number 1..65535, got " + (node.IsScalar() ? quoted(s) : std::string(kind_name(node))));
  }
  return v;
}

Result<std::vector<std::string>> read_strings(const YAML::Node& node, const std::string& path) {
  std::vector<std::string> out;
  if (!present(node)) return out;
  if (!node.IsSequence()) return invalid(node, path, "expected a list of strings");
  for (size_t i = 0; i < node.size(); ++i) {
    if (!node[i].IsScalar()) return invalid(node[i], path + "[" + std::to_string(i) + "]", "expected a string");
    out.push_back(node[i].Scalar());
  }
  return out;
}

bool is_ip(const std::string& text) {
  unsigned char buf[16];
  return inet_pton(AF_INET, text.c_str(), buf) == 1 || inet_pton(AF_INET6, text.c_str(), buf) == 1;
}

bool is_cidr(std::string_view text) {
  auto slash = text.find('/');
  if (slash == std::string_view::npos) return false;
  std::string ip(text.substr(0, slash));
  std::string_view bits = text.substr(slash + 1);
  unsigned char buf[16];
  int max = 0;
  if (inet_pton(AF_INET, ip.c_str(), buf) == 1) {
    max = 32;
  } else if (inet_pton(AF_INET6, ip.c_str(), buf) == 1) {
    max = 128;
  } else {
    return false;
  }
  int n = -1;
  auto [end, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), n);
  return !bits.empty() && ec == std::errc() && end == bits.data() + bits.size() && n >= 0 && n <= max;
}

Result<std::vector<std::string>> read_cidrs(const YAML::Node& node, const std::string& path, bool allow_negation) {
  auto list = read_strings(node, path);
  if (!list.ok()) return list;
  for (size_t i = 0; i < list->size(); ++i) {
    std::string_view v = (*list)[i];
    if (allow_negation && !v.empty() && v.front() == '!') v.remove_prefix(1);
    if (!is_cidr(v)) return invalid(node[i], path + "[" + std::to_string(i) + "]", quoted((*list)[i]) + " is not a CIDR (address/prefix)");
  }
  return list;
}

bool is_hostname(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  size_t label = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '.') {
      if (label == 0 || name[i - 1] == '-') return false;
      label = 0;
      continue;
    }
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok || (label == 0 && c == '-') || ++label > 63) return false;
  }
  return name.back() != '-';
}

// base64 of a PEM block whose label is `label` (one of them, for keys).
Result<std::string> read_pem(const YAML::Node& node, const std::string& path, std::initializer_list<std::string_view> labels) {
  auto text = read_string(node, path);
  if (!text.ok() || text->empty()) return text;
  auto pem = base64_decode(*text);
  if (!pem) return invalid(node, path, "is not base64");
  for (auto label : labels) {
    if (pem->find("-----BEGIN " + std::string(label) + "-----") != std::string::npos) return *pem;
  }
  return invalid(node, path, "is not a base64-encoded PEM " + std::string(*labels.begin()));
}

Result<CertificateAndKey> read_ca(const YAML::Node& node, const std::string& path) {
  CertificateAndKey ca;
  if (!present(node)) return ca;
  auto crt = read_pem(at(node, "crt"), path + ".crt", {"CERTIFICATE"});
  if (!crt.ok()) return crt.error();
  auto key = read_pem(at(node, "key"), path + ".key",
                      {"PRIVATE KEY", "ED25519 PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"});
  if (!key.ok()) return key.error();
  ca.crt = std::move(*crt);
  ca.key = std::move(*key);
  return ca;
}

#define COSI_TRY_ASSIGN(target, expr) \
  do {                                \
    auto r_ = (expr);                 \
    if (!r_.ok()) return r_.error();  \
    target = std::move(*r_);          \
  } while (0)

Result<MachineConfig> read_config(const YAML::Node& doc, std::vector<std::string>& warnings) {
  MachineConfig c;
  const YAML::Node machine = at(doc, "machine");
  const YAML::Node cluster = at(doc, "cluster");
  if (!present(machine)) return invalid(doc, "machine", "missing");
  if (!present(cluster)) return invalid(doc, "cluster", "missing");

  std::string type;
  COSI_TRY_ASSIGN(type, read_string(at(machine, "type"), "machine.type"));
  if (type == "controlplane") {
    c.type = MachineType::kControlPlane;
  } else if (type == "init") {
    c.type = MachineType::kControlPlane;
    warnings.push_back("line " + std::to_string(line_of(at(machine, "type"))) +
                       ": machine.type: \"init\" is deprecated in Talos; read as controlplane");
  } else if (type == "worker") {
    c.type = MachineType::kWorker;
  } else {
    return invalid(present(at(machine, "type")) ? at(machine, "type") : machine, "machine.type",
                   "expected controlplane or worker, got " + (type.empty() ? std::string("nothing") : quoted(type)));
  }
  COSI_TRY_ASSIGN(c.token, read_string(at(machine, "token"), "machine.token"));
  if (c.token.empty()) return invalid(machine, "machine.token", "missing: the token nodes use to join (trustd)");
  COSI_TRY_ASSIGN(c.ca, read_ca(at(machine, "ca"), "machine.ca"));
  if (c.ca.crt.empty()) return invalid(machine, "machine.ca.crt", "missing: the OS CA certificate");
  if (c.type == MachineType::kControlPlane && c.ca.key.empty()) {
    return invalid(present(at(machine, "ca")) ? at(machine, "ca") : machine, "machine.ca.key",
                   "missing: a control plane issues certificates with the OS CA key");
  }
  COSI_TRY_ASSIGN(c.cert_sans, read_strings(at(machine, "certSANs"), "machine.certSANs"));
  if (const YAML::Node install = at(machine, "install"); present(install)) {
    COSI_TRY_ASSIGN(c.install_disk, read_string(at(install, "disk"), "machine.install.disk"));
  }

  const YAML::Node network = at(machine, "network");
  if (present(network)) {
    COSI_TRY_ASSIGN(c.hostname, read_string(at(network, "hostname"), "machine.network.hostname"));
    if (!c.hostname.empty() && !is_hostname(c.hostname)) {
      return invalid(at(network, "hostname"), "machine.network.hostname", quoted(c.hostname) + " is not a valid hostname");
    }
    const YAML::Node interfaces = at(network, "interfaces");
    if (present(interfaces)) {
      for (size_t i = 0; i < interfaces.size(); ++i) {
        const YAML::Node item = interfaces[i];
        const std::string path = "machine.network.interfaces[" + std::to_string(i) + "]";
        NetworkInterface nic;
        COSI_TRY_ASSIGN(nic.name, read_string(at(item, "interface"), path + ".interface"));
        if (present(at(item, "deviceSelector"))) {
          for (const auto& kv : at(item, "deviceSelector")) {
            if (!kv.second.IsScalar()) return invalid(kv.second, path + ".deviceSelector." + kv.first.Scalar(), "expected a string");
            nic.device_selector[kv.first.Scalar()] = kv.second.Scalar();
          }
        }
        if (nic.name.empty() == nic.device_selector.empty()) {
          return invalid(item, path, "name the link with exactly one of interface and deviceSelector");
        }
        COSI_TRY_ASSIGN(nic.addresses, read_cidrs(at(item, "addresses"), path + ".addresses", false));
        if (present(at(item, "vip"))) {
          COSI_TRY_ASSIGN(nic.vip, read_string(at(at(item, "vip"), "ip"), path + ".vip.ip"));
          if (!is_ip(nic.vip)) return invalid(at(item, "vip"), path + ".vip.ip", quoted(nic.vip) + " is not an IP address");
        }
        c.interfaces.push_back(std::move(nic));
      }
    }
  }
  const YAML::Node prism = at(at(machine, "features"), "kubePrism");
  COSI_TRY_ASSIGN(c.kubeprism_enabled, read_bool(at(prism, "enabled"), "machine.features.kubePrism.enabled", false));
  COSI_TRY_ASSIGN(c.kubeprism_port, read_port(at(prism, "port"), "machine.features.kubePrism.port", 7445));

  COSI_TRY_ASSIGN(c.cluster_name, read_string(at(cluster, "clusterName"), "cluster.clusterName"));
  COSI_TRY_ASSIGN(c.cluster_id, read_string(at(cluster, "id"), "cluster.id"));
  COSI_TRY_ASSIGN(c.cluster_secret, read_string(at(cluster, "secret"), "cluster.secret"));
  if (!c.cluster_secret.empty()) {
    auto key = base64_decode(c.cluster_secret);
    if (!key || key->size() != 32) return invalid(at(cluster, "secret"), "cluster.secret", "must be the base64 of 32 bytes (it keys discovery's AES-256)");
  }
  const YAML::Node endpoint = at(at(cluster, "controlPlane"), "endpoint");
  if (!present(endpoint)) return invalid(cluster, "cluster.controlPlane.endpoint", "missing: the https URL of the control plane");
  std::string endpoint_text;
  COSI_TRY_ASSIGN(endpoint_text, read_string(endpoint, "cluster.controlPlane.endpoint"));
  auto url = parse_url(endpoint_text);
  if (!url.ok()) return invalid(endpoint, "cluster.controlPlane.endpoint", url.error().message());
  if (url->scheme != "https") return invalid(endpoint, "cluster.controlPlane.endpoint", "must be an https URL, got " + quoted(endpoint_text));
  c.control_plane_endpoint = *url;

  const YAML::Node discovery = at(cluster, "discovery");
  COSI_TRY_ASSIGN(c.discovery_enabled, read_bool(at(discovery, "enabled"), "cluster.discovery.enabled", false));
  const YAML::Node service = at(at(discovery, "registries"), "service");
  COSI_TRY_ASSIGN(c.discovery_service_disabled,
                  read_bool(at(service, "disabled"), "cluster.discovery.registries.service.disabled", false));
  COSI_TRY_ASSIGN(c.discovery_service_endpoint,
                  read_string(at(service, "endpoint"), "cluster.discovery.registries.service.endpoint"));
  if (!c.discovery_service_endpoint.empty()) {
    if (auto u = parse_url(c.discovery_service_endpoint); !u.ok()) {
      return invalid(at(service, "endpoint"), "cluster.discovery.registries.service.endpoint", u.error().message());
    }
    if (c.discovery_enabled && !c.discovery_service_disabled && (c.cluster_id.empty() || c.cluster_secret.empty())) {
      return invalid(discovery, "cluster.discovery", "the service registry needs cluster.id and cluster.secret");
    }
  }

  COSI_TRY_ASSIGN(c.kubernetes_ca, read_ca(at(cluster, "ca"), "cluster.ca"));
  const YAML::Node etcd = at(cluster, "etcd");
  COSI_TRY_ASSIGN(c.etcd.ca, read_ca(at(etcd, "ca"), "cluster.etcd.ca"));
  COSI_TRY_ASSIGN(c.etcd.advertised_subnets, read_cidrs(at(etcd, "advertisedSubnets"), "cluster.etcd.advertisedSubnets", true));
  COSI_TRY_ASSIGN(c.etcd.listen_subnets, read_cidrs(at(etcd, "listenSubnets"), "cluster.etcd.listenSubnets", true));
  if (present(at(etcd, "extraArgs"))) {
    for (const auto& kv : at(etcd, "extraArgs")) {
      std::string value;
      if (kv.second.IsSequence()) {
        for (const auto& item : kv.second) value += (value.empty() ? "" : ",") + item.Scalar();
      } else if (kv.second.IsScalar()) {
        value = kv.second.Scalar();
      }
      c.etcd.extra_args[kv.first.Scalar()] = value;
    }
  }
  if (c.type == MachineType::kControlPlane && (c.etcd.ca.crt.empty() || c.etcd.ca.key.empty())) {
    return invalid(present(etcd) ? etcd : cluster, "cluster.etcd.ca", "missing: a control plane runs etcd with this CA (crt and key)");
  }
  return c;
}

#undef COSI_TRY_ASSIGN

}  // namespace

Result<Url> parse_url(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorKind::kInvalidArgument, quoted(std::string(text)) + " is not a valid URL: " + why);
  };
  Url url;
  url.text = std::string(text);
  auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) return bad("expected scheme://host[:port]");
  url.scheme = std::string(text.substr(0, scheme_end));
  if (url.scheme != "https" && url.scheme != "http") return bad("the scheme must be https or http");
  std::string_view rest = text.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (rest.find('@') != std::string_view::npos) return bad("user information is not allowed");
  std::string_view host = rest;
  std::string_view port;
  if (!rest.empty() && rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return bad("unclosed [ in the host");
    host = rest.substr(1, close - 1);
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("unexpected text after the host");
      port = after.substr(1);
      if (port.empty()) return bad("empty port");
    }
    if (!is_ip(std::string(host))) return bad("the bracketed host is not an IPv6 address");
  } else if (auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
    if (port.empty()) return bad("empty port");
  }
  if (host.empty()) return bad("no host");
  if (host.find(':') == std::string_view::npos && !is_ip(std::string(host)) && !is_hostname(host)) {
    return bad("the host is neither an address nor a DNS name");
  }
  url.host = std::string(host);
  if (!port.empty()) {
    int p = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (ec != std::errc() || end != port.data() + port.size() || p < 1 || p > 65535) return bad("the port must be 1..65535");
    url.port = p;
  }
  return url;
}

Result<LoadedConfig> parse_machine_config(std::string_view yaml) {
  std::vector<YAML::Node> docs;
  try {
    docs = load_yaml_documents(yaml);
  } catch (const YAML::Exception& e) {
    return Error(ErrorKind::kInvalidArgument,
                 "line " + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  LoadedConfig out;
  const YAML::Node* v1alpha1 = nullptr;
  for (const auto& doc : docs) {
    if (doc.IsNull()) continue;
    if (!doc.IsMap()) return invalid(doc, "(document)", std::string("expected a mapping, got ") + std::string(kind_name(doc)));
    if (doc["apiVersion"] || doc["kind"]) {
      std::string kind = doc["kind"] && doc["kind"].IsScalar() ? doc["kind"].Scalar() : "(no kind)";
      out.warnings.push_back("line " + std::to_string(line_of(doc)) + ": document of kind " + quoted(kind) +
                             " is not acted on by machined; ignored");
      continue;
    }
    if (v1alpha1 != nullptr) return invalid(doc, "(document)", "a second v1alpha1 document; a config holds one");
    v1alpha1 = &doc;
  }
  if (v1alpha1 == nullptr) {
    return Error(ErrorKind::kInvalidArgument, "line 1: version: no v1alpha1 document (a mapping with version: v1alpha1)");
  }
  const YAML::Node& doc = *v1alpha1;
  const YAML::Node version = doc["version"];
  if (!present(version) || !version.IsScalar() || version.Scalar() != "v1alpha1") {
    return invalid(present(version) ? version : doc, "version",
                   "expected v1alpha1, got " + (present(version) && version.IsScalar() ? quoted(version.Scalar()) : std::string("nothing")));
  }
  SchemaWalk walk;
  try {
    if (auto s = walk.walk_struct(doc, "", "", false); !s.ok()) return s.error();
    std::vector<std::string> warnings = walk.take_warnings();
    auto config = read_config(doc, warnings);
    if (!config.ok()) return config.error();
    out.config = std::move(*config);
    warnings.insert(warnings.end(), out.warnings.begin(), out.warnings.end());
    out.warnings = std::move(warnings);
  } catch (const YAML::Exception& e) {
    return Error(ErrorKind::kInvalidArgument, "line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return out;
}

}  // namespace cosi::config
