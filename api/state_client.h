// GrpcState: the State interface over a cosi.resource.State connection — how a controller runs
// out of process against machined's trusted socket. Every call has a deadline. Passes the
// store conformance suite over a real connection.
//
//   auto channel = grpc::CreateChannel("unix:/run/machined/state.sock", grpc::InsecureChannelCredentials());
//   GrpcState state(channel, types);
//   GrpcState cp2(api_channel, types, {.metadata = {{"node", "127.5.0.11"}}});   // through a front
//   state.get(pointer); state.watch_kind(kind, {.bootstrap_contents = true}); ...
//
// The store's own default for an update is the running phase, but on the wire an absent
// expected_phase means any phase: so this client sends "running" explicitly unless the caller
// asked for any phase.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/proto/resource_types.h"
#include "runtime/state/state.h"

namespace grpc {
class Channel;
}

namespace cosi::api {

struct GrpcStateOptions {
  std::chrono::milliseconds deadline{10000};  // per unary call, and to open a watch
  // Sent with every call and watch, e.g. {"node", "127.5.0.11"}: which node a front serves it for.
  std::vector<std::pair<std::string, std::string>> metadata = {};
};

class GrpcState final : public State {
 public:
  GrpcState(std::shared_ptr<grpc::Channel> channel, const ResourceTypes& types, GrpcStateOptions options = {});
  ~GrpcState() override;

  Result<ResourcePtr> get(const Pointer& pointer) override;
  Result<std::vector<ResourcePtr>> list(const Kind& kind, const ListOptions& options = {}) override;
  Result<ResourcePtr> create(ResourcePtr resource, const CreateOptions& options = {}) override;
  Result<ResourcePtr> update(ResourcePtr resource, const UpdateOptions& options = {}) override;
  Status destroy(const Pointer& pointer, const DestroyOptions& options = {}) override;
  Result<WatchPtr> watch(const Pointer& pointer, const WatchOptions& options = {}) override;
  Result<WatchPtr> watch_kind(const Kind& kind, const WatchKindOptions& options = {}) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosi::api
