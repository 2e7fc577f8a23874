// PluginLoader: loads controller plugins (shared objects speaking runtime/plugin/abi.h) into a
// runtime. Only files inside the configured directories are loaded; each is opened with
// RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE and never unloaded.
//
//   ResourceTypes types;
//   PluginLoader loader({"/usr/lib/cosi/plugins"}, types);
//   auto names = loader.load("/usr/lib/cosi/plugins/example.so", runtime);
//   // names: the controllers it added; or an error naming the file and what is wrong:
//   // outside the plugin directories, not loadable, no cosi_plugin_entry, ABI mismatch,
//   // a controller name already taken.
//
// A plugin controller runs like an in-tree one: the same access checks, ownership, metrics,
// backoff and crash handling. Resources cross as cosi.resource.Resource bytes, decoded with
// `types` (unknown types stay raw).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "runtime/base/result.h"
#include "runtime/controller/runtime.h"
#include "runtime/proto/resource_types.h"

namespace cosi {

class PluginLoader {
 public:
  PluginLoader(std::vector<std::filesystem::path> directories, const ResourceTypes& types);

  // Adds the plugin's controllers to `runtime` (before it starts). Returns their names.
  Result<std::vector<std::string>> load(const std::filesystem::path& file, Runtime& runtime);
  // Every *.so directly inside the configured directories, in name order.
  Result<std::vector<std::string>> load_all(Runtime& runtime);

 private:
  std::vector<std::filesystem::path> directories_;
  const ResourceTypes& types_;
};

}  // namespace cosi
