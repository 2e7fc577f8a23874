// Connection: where cosictl's calls go and how they are secured.
//
//   endpoints  the node cosictl dials (host or host:port, port 50000 by default): -e, else the
//              talosconfig context's, else (with --insecure) the first of -n
//   nodes      what each call names in its `node` metadata: -n, else the context's, else the
//              endpoint itself; the endpoint forwards calls for other nodes
//   security   mutual TLS with the talosconfig context's CA and client certificate;
//              --insecure: TLS without verifying the node and without a client certificate
//              (maintenance mode), optionally pinning the node's key with --cert-fingerprint;
//              no talosconfig anywhere: plaintext, for nodes run with --insecure-dev
// Every unary call has a deadline.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::cosictl {

struct ConnectOptions {
  std::vector<std::string> endpoints;
  std::vector<std::string> nodes;
  std::chrono::seconds timeout{10};
  std::string talosconfig;  // --talosconfig
  std::string context;      // --context
  bool insecure = false;
  std::string cert_fingerprint;
};

class Connection {
 public:
  static Result<Connection> open(const ConnectOptions& options);

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
