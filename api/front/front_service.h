// FrontService: every call to a node's API port enters here, as apid does for Talos. In one
// place it
//   1. authenticates the caller (Authenticator: certificate → roles),
//   2. authorises the method by the role table (roles.h) — Sensitive resources are checked by
//      the State view, which gets the caller's roles from the front,
//   3. routes by talosctl's metadata: no `node`, or `node` naming this node → the node's own
//      services (an in-process channel); `node` naming another → that node's front over mTLS,
//      one hop, with the caller's roles in `talos-role`; `nodes: a, b` → fan-out of a unary
//      machine.MachineService call to each, replies stamped with the node they came from.
// Bytes are relayed, never decoded: the front knows no service but by name.
#pragma once

#include <grpcpp/generic/async_generic_service.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/auth/authenticator.h"
#include "runtime/base/result.h"

namespace cosi::api::front {

struct FrontConfig {
  auth::Authenticator authenticator;
  // The node's own services.
  std::shared_ptr<grpc::Channel> local;
  // Names and addresses that mean this node in `node`/`nodes` metadata: these, and any for
  // which `also_self` (below, when set) says yes.
  std::vector<std::string> self;
  // A channel to another node's front; null when this node does not forward, with the reason
  // the caller is told.
  std::function<Result<std::shared_ptr<grpc::Channel>>(const std::string& node)> dial;
  std::string no_forwarding_reason = "this node does not forward calls to other nodes";
  // The addresses the node has now, on a host it owns (they come and go with its links).
  std::function<bool(const std::string& node)> also_self;
};

class FrontService final : public grpc::CallbackGenericService {
 public:
  explicit FrontService(FrontConfig config) : config_(std::move(config)) {}

  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* ctx) override;

 private:
  const FrontConfig config_;
};

}  // namespace cosi::api::front
