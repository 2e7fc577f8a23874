// Connection: where cosictl's calls go — the endpoint it dials (host or host:port, port 50000
// by default) and the nodes it names in the `node` metadata of each call (the endpoint's own
// address when -n is not given). Every unary call has a deadline.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "api/host_port.h"
#include "runtime/base/result.h"

namespace cosi::cosictl {

class Connection {
 public:
  static Result<Connection> open(const std::vector<std::string>& endpoints, std::vector<std::string> nodes,
                                 std::chrono::seconds timeout);

  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  const std::vector<std::string>& nodes() const { return nodes_; }
  const std::string& endpoint() const { return endpoint_; }

  // A context naming `node`; with a deadline unless the call streams until stopped.
  std::unique_ptr<grpc::ClientContext> context(const std::string& node, bool bounded = true) const;

  // "endpoint: message" for a failed call.
  Error error(const grpc::Status& status) const;

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::string endpoint_;
  std::vector<std::string> nodes_;
  std::chrono::seconds timeout_{10};
};

}  // namespace cosi::cosictl
