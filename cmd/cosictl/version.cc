// cosictl version: the client's version, then each node's (machine.MachineService.Version).
#include <cstdio>

#include "cmd/cosictl/commands.h"
#include "machine.grpc.pb.h"

namespace cosi::cosictl {

Status run_version(const Connection& c) {
  std::printf("Client:\n\tTag:         v0.1.0\n\tSHA:         %s\n\tBuilt:       \n\tGo version:  c++20\n\tOS/Arch:     linux/amd64\n",
              "undefined");
  auto stub = machine::MachineService::NewStub(c.channel());
  std::printf("Server:\n");
  for (const auto& node : c.nodes()) {
    auto ctx = c.context(node);
    google::protobuf::Empty req;
    machine::VersionResponse resp;
    grpc::Status s = stub->Version(ctx.get(), req, &resp);
    if (!s.ok()) return c.error(s);
    for (const auto& m : resp.messages()) {
      std::printf("\tNODE:        %s\n\tTag:         %s\n\tSHA:         %s\n\tBuilt:       %s\n\tGo version:  %s\n"
                  "\tOS/Arch:     %s/%s\n\tEnabled:     %s\n",
                  node.c_str(), m.version().tag().c_str(), m.version().sha().c_str(), m.version().built().c_str(),
                  m.version().go_version().c_str(), m.version().os().c_str(), m.version().arch().c_str(),
                  m.features().rbac() ? "RBAC" : "");
    }
  }
  return {};
}

}  // namespace cosi::cosictl
