// HttpServer: the few plain HTTP endpoints machined serves beside its API — /metrics in the
// Prometheus text format, /healthz, /readyz — and what cosictl's web dashboard serves on
// loopback. One accepting thread answers one request per connection, with socket timeouts on
// every read and write, so a client that stalls costs at most a few seconds; a response that
// streams (server-sent events) runs on a thread of its own, at most `max_streams` at once.
//
//   auto http = HttpServer::start("127.0.0.1:9100", {
//       {"/metrics", [&](const HttpRequest&) { return HttpResponse{200, "text/plain; version=0.0.4", registry.render()}; }},
//       {"POST /api/action", [&](const HttpRequest& r) { return act(r.body); }}});
//   http->port();   // the bound port (useful with :0)
//
// A route named by its path alone answers GET (and HEAD); "POST /path" answers POST. Another
// method on a known path is 405, an unknown path 404.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::api {

struct HttpRequest {
  std::string method;  // "GET" (HEAD is served as GET), "POST"
  std::string path;    // without the query
  std::string query;   // after '?', as sent
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;                            // by Content-Length, at most 64 KiB

  // The header's value; empty when absent. `name` in lower case.
  std::string header(const std::string& name) const;
};

// The body of a streaming response, written as it comes.
class HttpStream {
 public:
  virtual ~HttpStream() = default;
  // False once the client has gone or the server stops: the handler should return then.
  virtual bool write(std::string_view data) = 0;
  // Waits up to `d` for the client to go or the server to stop; true while both remain.
  virtual bool open_after(std::chrono::milliseconds d) = 0;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers = {};
  // Set: the response has no length and `stream` writes its body, on a thread of its own,
  // until it returns (the body above is ignored).
  std::function<void(HttpStream&)> stream = nullptr;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
  std::string what = "metrics";  // names the listen address in errors: "metrics listen address ..."
  std::size_t max_streams = 8;   // streaming responses at once; beyond, 503
};

class HttpServer {
 public:
  static Result<std::unique_ptr<HttpServer>> start(const std::string& listen, std::map<std::string, HttpHandler> routes,
                                                   HttpServerOptions options = {});
  ~HttpServer();

  int port() const { return port_; }
  // Stops accepting, ends every stream (their handlers see write() fail) and waits for them.
  void stop();

 private:
  class Stream;
  HttpServer(int fd, int port, std::map<std::string, HttpHandler> routes, HttpServerOptions options);
  void serve();
  void handle(int client);
  // False when `max_streams` already run (nothing was sent then).
  bool start_stream(int client, const std::string& head_text, std::function<void(HttpStream&)> body);
  void reap_streams(bool all);

  int fd_;
  int port_;
  std::map<std::string, HttpHandler> routes_;
  HttpServerOptions options_;
  std::atomic<bool> stopping_{false};
  std::mutex streams_mu_;
  std::vector<std::shared_ptr<Stream>> streams_;  // guarded by streams_mu_
  std::thread thread_;
};

}  // namespace cosi::api
