// cosictl reset: MachineService.Reset on each node. Graceful by default (the node leaves the
// discovery service first, so its peers drop it at once); the node wipes its state and comes
// back in maintenance mode.
#include <cstdio>

#include "cmd/cosictl/commands.h"
#include "machine.grpc.pb.h"

namespace cosi::cosictl {

Status run_reset(const Connection& c, bool graceful) {
  auto stub = machine::MachineService::NewStub(c.channel());
  for (const auto& node : c.nodes()) {
    auto ctx = c.context(node);
    machine::ResetRequest req;
    req.set_graceful(graceful);
    machine::ResetResponse resp;
    grpc::Status s = stub->Reset(ctx.get(), req, &resp);
    if (!s.ok()) {
      Error e = c.error(s);
      return Error(e.kind(), node + ": " + e.message());
    }
    std::printf("%s: reset; it is back in maintenance mode\n", node.c_str());
  }
  return {};
}

}  // namespace cosi::cosictl
