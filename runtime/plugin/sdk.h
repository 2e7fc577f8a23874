// The plugin SDK: an ordinary Controller or KeyedController class, the same as in-tree,
// becomes a plugin with one function and one macro.
//
//   // example.cc, built as a shared object against pkg-config cosi-runtime
//   #include "runtime/plugin/sdk.h"
//
//   class Doubler final : public cosi::Controller { ... };     // as in-tree
//
//   cosi::plugin::Definition make_plugin() {
//     cosi::plugin::Definition d{"example"};
//     d.controllers.push_back(std::make_unique<Doubler>());
//     d.types.add<NumberSpec>("Numbers.example.dev");         // specs it decodes typed
//     return d;
//   }
//   COSI_PLUGIN(make_plugin)
//
// Inside the plugin, ControllerContext reads and writes through the host (HostState), which
// checks and stamps every call exactly as for in-tree controllers. Exceptions stop at the ABI:
// one thrown by a reconcile reaches the host as a crash.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/controller/controller.h"
#include "runtime/plugin/abi.h"
#include "runtime/proto/resource_types.h"
#include "runtime/state/state.h"

namespace cosi::plugin {

struct Definition {
  explicit Definition(std::string name) : name(std::move(name)) {}

  std::string name;
  std::vector<std::unique_ptr<Controller>> controllers;
  std::vector<std::unique_ptr<KeyedController>> keyed;
  ResourceTypes types;
};

// A State over the host's calls. Watches are the host's business: watch() is kUnimplemented.
class HostState final : public State {
 public:
  HostState(const cosi_host& host, const ResourceTypes& types) : host_(host), types_(types) {}

  Result<ResourcePtr> get(const Pointer& pointer) override;
  Result<std::vector<ResourcePtr>> list(const Kind& kind, const ListOptions& options = {}) override;
  Result<ResourcePtr> create(ResourcePtr resource, const CreateOptions& options = {}) override;
  Result<ResourcePtr> update(ResourcePtr resource, const UpdateOptions& options = {}) override;
  Status destroy(const Pointer& pointer, const DestroyOptions& options = {}) override;
  Result<WatchPtr> watch(const Pointer& pointer, const WatchOptions& options = {}) override;
  Result<WatchPtr> watch_kind(const Kind& kind, const WatchKindOptions& options = {}) override;

  const cosi_host& host() const { return host_; }

 private:
  const cosi_host& host_;
  const ResourceTypes& types_;
};

// Builds the descriptor on first call and keeps it (and the controllers) for the process.
const cosi_plugin* export_plugin(Definition (*make)());

}  // namespace cosi::plugin

#define COSI_PLUGIN(make_fn)                                                               \
  extern "C" __attribute__((visibility("default"))) const cosi_plugin* cosi_plugin_entry(void) { \
    return ::cosi::plugin::export_plugin(make_fn);                                          \
  }
