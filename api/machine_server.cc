#include "api/machine_server.h"

#include <sys/utsname.h>

namespace cosi::api {

grpc::ServerUnaryReactor* MachineServer::Version(grpc::CallbackServerContext* ctx, const google::protobuf::Empty*,
                                                 machine::VersionResponse* resp) {
  auto* v = resp->add_messages();
  v->mutable_metadata()->set_hostname(node_.hostname);
  auto* info = v->mutable_version();
  info->set_tag(node_.version);
  info->set_sha(node_.sha);
  info->set_go_version("c++20");
  struct utsname u {};
  if (uname(&u) == 0) {
    info->set_os(u.sysname[0] == 'L' ? "linux" : u.sysname);
    info->set_arch(std::string(u.machine) == "x86_64" ? "amd64" : u.machine);
  }
  v->mutable_platform()->set_name(node_.platform);
  v->mutable_platform()->set_mode(node_.mode);
  v->mutable_features()->set_rbac(true);
  auto* reactor = ctx->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace cosi::api
