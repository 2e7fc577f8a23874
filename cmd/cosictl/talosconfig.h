// talosconfig: the client's contexts (endpoints, nodes and credentials), in the file format
// talosctl reads and writes, looked up at --talosconfig, then $TALOSCONFIG, then
// ~/.talos/config.
//
//   context: demo
//   contexts:
//     demo:
//       endpoints: [127.0.5.10]
//       nodes: [127.0.5.10]
//       ca: <base64 PEM>     crt: <base64 PEM>     key: <base64 PEM>
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::cosictl {

struct TalosContext {
  std::vector<std::string> endpoints;
  std::vector<std::string> nodes;
  std::string ca;   // PEM, decoded from the file's base64
  std::string crt;  // PEM
  std::string key;  // PEM (either label: "PRIVATE KEY" or Talos's "ED25519 PRIVATE KEY")

  friend bool operator==(const TalosContext&, const TalosContext&) = default;
};

struct TalosConfig {
  std::string context;
  std::map<std::string, TalosContext> contexts;

  // The current context (or `name` when given); kNotFound naming what exists.
  Result<const TalosContext*> find(const std::string& name = "") const;

  friend bool operator==(const TalosConfig&, const TalosConfig&) = default;
};

// kInvalidArgument naming the line and key for anything but a talosconfig.
Result<TalosConfig> parse_talosconfig(std::string_view yaml);
std::string render_talosconfig(const TalosConfig& config);

// The file to read: `flag` when given, else $TALOSCONFIG, else ~/.talos/config.
std::string talosconfig_path(const std::string& flag);

// Reads `path`; a missing file is kNotFound.
Result<TalosConfig> load_talosconfig(const std::string& path);
// Writes atomically (temp file, fsync, rename), mode 0600, creating the directory.
Status save_talosconfig(const std::string& path, const TalosConfig& config);

// Adds `other`'s contexts to `into`; a name already taken gets "-1", "-2"... The current
// context becomes `other`'s (renamed). Returns one line per context added.
std::vector<std::string> merge_talosconfig(TalosConfig& into, const TalosConfig& other);

}  // namespace cosi::cosictl
