#include "api/front/front_service.h"

#include <grpcpp/security/auth_context.h>

#include <algorithm>

#include "api/front/fan_out.h"
#include "api/front/stream_proxy.h"
#include "api/status.h"

namespace cosi::api::front {

namespace {

constexpr std::string_view kApplyConfiguration = "/machine.MachineService/ApplyConfiguration";
constexpr std::string_view kMachineService = "/machine.MachineService/";

std::string text(const grpc::string_ref& s) { return std::string(s.data(), s.size()); }

// Every value under `key`, comma-separated values split (talosctl sends one value per node;
// other clients join them).
std::vector<std::string> values(const std::multimap<grpc::string_ref, grpc::string_ref>& md, std::string_view key) {
  std::vector<std::string> out;
  auto [begin, end] = md.equal_range(grpc::string_ref(key.data(), key.size()));
  for (auto it = begin; it != end; ++it) {
    std::string v = text(it->second);
    size_t start = 0;
    while (start <= v.size()) {
      size_t comma = v.find(',', start);
      std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      item.erase(0, item.find_first_not_of(' '));
      item.erase(item.find_last_not_of(' ') + 1);
      if (!item.empty()) out.push_back(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

// What a backend call carries of the caller's metadata: its own keys, without routing and
// identity keys, which the front sets itself.
std::multimap<std::string, std::string> passed_on(const std::multimap<grpc::string_ref, grpc::string_ref>& md) {
  std::multimap<std::string, std::string> out;
  for (const auto& [k, v] : md) {
    std::string key = text(k);
    if (key.empty() || key[0] == ':' || key.starts_with("grpc-") || key == "user-agent" || key == "te" ||
        key == "content-type" || key == "node" || key == "nodes" || key == auth::kTalosRoleMetadata ||
        key == auth::kCallerRolesMetadata) {
      continue;
    }
    out.emplace(std::move(key), text(v));
  }
  return out;
}

grpc::Status status_of(const Error& e) { return to_status(e); }

// Unary machine.MachineService methods fan out; the streaming ones cannot be merged.
bool fans_out(std::string_view method) {
  return method.starts_with(kMachineService) && method != "/machine.MachineService/EtcdSnapshot" &&
         method != "/machine.MachineService/EtcdRecover" && method != "/machine.MachineService/Logs";
}

}  // namespace

grpc::ServerGenericBidiReactor* FrontService::CreateReactor(grpc::GenericCallbackServerContext* ctx) {
  const auto& md = ctx->client_metadata();
  const std::string& method = ctx->method();

  std::string peer_certificate;
  if (auto auth_context = ctx->auth_context(); auth_context != nullptr) {
    auto certs = auth_context->FindPropertyValues("x509_pem_cert");
    if (!certs.empty()) peer_certificate = text(certs.front());
  }
  auto caller = config_.authenticator.authenticate(peer_certificate, values(md, auth::kTalosRoleMetadata),
                                                   std::chrono::system_clock::now());
  if (!caller.ok()) return reject_call(status_of(caller.error()));

  const bool maintenance_apply = config_.authenticator.is_maintenance() && method == kApplyConfiguration;
  if (!auth::allowed(caller->roles, method) && !maintenance_apply) {
    return reject_call(grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                    method + " needs role " + auth::describe(auth::required_roles(method)) +
                                        "; the caller has " + auth::describe(caller->roles)));
  }

  const auto deadline = ctx->deadline();
  auto is_self = [&](const std::string& node) {
    return std::find(config_.self.begin(), config_.self.end(), node) != config_.self.end() ||
           (config_.also_self && config_.also_self(node));
  };
  auto local_call = [&]() {
    BackendCall call{config_.local, passed_on(md), deadline};
    call.metadata.emplace(std::string(auth::kCallerRolesMetadata), caller->roles.to_string());
    return call;
  };
  auto remote_call = [&](const std::string& node) -> Result<BackendCall> {
    if (!config_.dial) return Error(ErrorKind::kFailedPrecondition, "cannot reach node " + node + ": " + config_.no_forwarding_reason);
    auto channel = config_.dial(node);
    if (!channel.ok()) return channel.error();
    BackendCall call{*channel, passed_on(md), deadline, node};
    for (const auto& role : caller->roles.names()) call.metadata.emplace(std::string(auth::kTalosRoleMetadata), role);
    return call;
  };

  const auto nodes = values(md, "nodes");
  const auto node = values(md, "node");
  if (!nodes.empty()) {
    if (!fans_out(method)) {
      return reject_call(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                      method + " cannot fan out: name one node in `node` metadata (nodes: several is for machine.MachineService unary calls)"));
    }
    std::vector<FanOutTarget> targets;
    for (const auto& n : nodes) {
      if (is_self(n)) {
        targets.push_back({n, local_call()});
        continue;
      }
      auto remote = remote_call(n);
      if (!remote.ok()) return reject_call(status_of(remote.error()));
      targets.push_back({n, std::move(*remote)});
    }
    return start_fan_out(ctx, std::move(targets));
  }
  if (node.size() > 1) {
    return reject_call(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "`node` metadata names one node; use `nodes` for several"));
  }
  if (node.empty() || is_self(node.front())) return start_stream_proxy(ctx, local_call());
  auto remote = remote_call(node.front());
  if (!remote.ok()) return reject_call(status_of(remote.error()));
  return start_stream_proxy(ctx, std::move(*remote));
}

}  // namespace cosi::api::front
