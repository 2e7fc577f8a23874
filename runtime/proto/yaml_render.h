// render_yaml: a protobuf message as the YAML Talos prints for a resource spec — generically,
// from the message's descriptor, with a YamlStyle for what the descriptor cannot say:
//
//   keys         field → YAML key; default the field's lowerCamelCase name (node_id → nodeId)
//   omit_empty   fields left out when empty (Go's `omitempty`); others print even when empty
//   scalars      message types printed as one text (common.NetIP → "172.20.0.2")
//   enum_text    enum value → text; default: the name after the enum's common prefix,
//                lowercased, without underscores (TYPE_CONTROL_PLANE → controlplane)
//   uint_text    unsigned fields printed as text (address flags → "permanent")
//
//   YamlStyle style;
//   style.keys["talos.resource.definitions.cluster.ControlPlane.api_server_port"] = "port";
//   std::string yaml = render_yaml(member_spec, style);
//   // nodeId: 7x1...\naddresses:\n    - 172.20.0.2\nhostname: cp-1\n...
//
// Layout follows Go's yaml.v3 as Talos configures it: four-space indent, sequences of scalars
// as "- item" under their key, maps with sorted keys, [] and {} for empty collections.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace google::protobuf {
class Message;
}

namespace cosi {

struct YamlStyle {
  std::unordered_map<std::string, std::string> keys;        // full field name → key
  std::unordered_set<std::string> omit_empty;               // full field names
  std::unordered_map<std::string, std::string> enum_text;   // full enum value name → text
  // Full message name → its text; an empty text counts as empty (for omit_empty).
  std::unordered_map<std::string, std::function<std::string(const google::protobuf::Message&)>> scalars;
  // Full field name of an unsigned field → its text (bit flags printed by name).
  std::unordered_map<std::string, std::function<std::string(std::uint64_t)>> uint_text;
  // Full field name of a bytes field → its text (a hardware address as aa:bb:…), instead of base64.
  std::unordered_map<std::string, std::function<std::string(const std::string&)>> bytes_text;

  static const YamlStyle& plain();

  YamlStyle();

  // What the renderer worked out per message type and enum value, kept so that a render is
  // pointer lookups, not hashing of field names. Shared by copies; thread-safe. Change the
  // tables above before the first render.
  struct Plans;
  std::shared_ptr<Plans> plans;
};

std::string render_yaml(const google::protobuf::Message& message, const YamlStyle& style);

// A string as a YAML scalar: plain when it reads back as the same string, else double-quoted.
std::string yaml_scalar(const std::string& text);

}  // namespace cosi
