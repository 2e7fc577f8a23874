#include "cmd/cosictl/connection.h"

#include "api/status.h"

namespace cosi::cosictl {

Result<Connection> Connection::open(const std::vector<std::string>& endpoints, std::vector<std::string> nodes,
                                    std::chrono::seconds timeout) {
  if (endpoints.empty()) {
    return Error(ErrorKind::kInvalidArgument, "no endpoint: give one with -e (for example -e 127.0.7.1)");
  }
  auto hp = api::parse_host_port(endpoints.front(), 50000);
  if (!hp.ok()) return Error(ErrorKind::kInvalidArgument, "endpoint " + hp.error().message());
  Connection c;
  c.endpoint_ = hp->to_string();
  c.nodes_ = nodes.empty() ? std::vector<std::string>{hp->host} : std::move(nodes);
  c.timeout_ = timeout;
  c.channel_ = grpc::CreateChannel(c.endpoint_, grpc::InsecureChannelCredentials());
  return c;
}

std::unique_ptr<grpc::ClientContext> Connection::context(const std::string& node, bool bounded) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->AddMetadata("node", node);
  if (bounded) ctx->set_deadline(std::chrono::system_clock::now() + timeout_);
  return ctx;
}

Error Connection::error(const grpc::Status& status) const {
  Error e = api::from_status(status);
  std::string message = status.error_message();
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE || status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    message = "cannot reach " + endpoint_ + " (" + message + ")";
  }
  return Error(e.kind(), message);
}

}  // namespace cosi::cosictl
