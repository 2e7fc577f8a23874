// HttpServer: the few plain HTTP endpoints machined serves beside its API — /metrics in the
// Prometheus text format, /healthz, /readyz. One thread, one request per connection, socket
// timeouts on every read and write: a client that stalls costs at most a few seconds.
//
//   auto http = HttpServer::start("127.0.0.1:9100", {
//       {"/metrics", [&] { return HttpResponse{200, "text/plain; version=0.0.4", registry.render()}; }},
//       {"/healthz", [] { return HttpResponse{200, "text/plain", "ok\n"}; }}});
//   http->port();   // the bound port (useful with :0)
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "runtime/base/result.h"

namespace cosi::api {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using HttpHandler = std::function<HttpResponse()>;

class HttpServer {
 public:
  static Result<std::unique_ptr<HttpServer>> start(const std::string& listen, std::map<std::string, HttpHandler> routes);
  ~HttpServer();

  int port() const { return port_; }
  void stop();

 private:
  HttpServer(int fd, int port, std::map<std::string, HttpHandler> routes);
  void serve();
  void handle(int client);

  int fd_;
  int port_;
  std::map<std::string, HttpHandler> routes_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace cosi::api
