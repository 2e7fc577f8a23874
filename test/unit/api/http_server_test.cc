// HttpServer: routes by method and path, request headers and body, HEAD, 404/405/413, and
// streaming responses that end when the client goes or the server stops.
#include "api/http_server.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "test/support/eventually.h"
#include "test/support/http_get.h"

namespace cosi::api {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using testing::http_get;
using testing::http_send;

std::string body_of(const std::string& response) {
  auto at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

TEST_CASE("HttpServer routes GET and POST, and refuses the rest") {
  auto server = HttpServer::start(
      "127.0.0.1:0",
      {{"/hello", [](const HttpRequest& r) { return HttpResponse{200, "text/plain", "hello " + r.query + "\n"}; }},
       {"POST /echo", [](const HttpRequest& r) {
          return HttpResponse{200, "text/plain", r.header("x-token") + ":" + r.body, {{"X-Seen", r.method}}};
        }}},
      {.what = "test"});
  REQUIRE(server.ok());
  const int port = (*server)->port();

  auto got = http_get("127.0.0.1", port, "/hello?name=ada");
  CHECK_THAT(got, StartsWith("HTTP/1.1 200 OK\r\n"));
  CHECK(body_of(got) == "hello name=ada\n");

  auto head = http_send("127.0.0.1", port, "HEAD /hello HTTP/1.1\r\n\r\n");
  CHECK_THAT(head, StartsWith("HTTP/1.1 200 OK\r\n"));
  CHECK_THAT(head, Contains("Content-Length: 7\r\n"));
  CHECK(body_of(head).empty());

  auto posted = http_send("127.0.0.1", port, "POST /echo HTTP/1.1\r\nX-Token: t1\r\nContent-Length: 5\r\n\r\nabcde");
  CHECK_THAT(posted, StartsWith("HTTP/1.1 200 OK\r\n"));
  CHECK_THAT(posted, Contains("X-Seen: POST\r\n"));
  CHECK(body_of(posted) == "t1:abcde");

  CHECK_THAT(http_send("127.0.0.1", port, "POST /hello HTTP/1.1\r\nContent-Length: 0\r\n\r\n"),
             StartsWith("HTTP/1.1 405 Method Not Allowed\r\n"));
  CHECK_THAT(http_send("127.0.0.1", port, "GET /echo HTTP/1.1\r\n\r\n"), StartsWith("HTTP/1.1 405 "));
  CHECK_THAT(http_get("127.0.0.1", port, "/nothing"), StartsWith("HTTP/1.1 404 Not Found\r\n"));
  CHECK_THAT(http_send("127.0.0.1", port, "POST /echo HTTP/1.1\r\nContent-Length: 999999\r\n\r\n"),
             StartsWith("HTTP/1.1 413 "));
  CHECK_THAT(http_send("127.0.0.1", port, "POST /echo HTTP/1.1\r\nContent-Length: x\r\n\r\n"), StartsWith("HTTP/1.1 400 "));
}

TEST_CASE("HttpServer refuses a listen address that is not an IP, naming it") {
  auto server = HttpServer::start("localhost:0", {}, {.what = "--listen"});
  REQUIRE_FALSE(server.ok());
  CHECK(server.error().message() == "--listen listen address \"localhost:0\": the host must be an IP address");
}

TEST_CASE("HttpServer streams a response until the client goes, and ends streams when it stops") {
  std::atomic<int> started{0}, ended{0};
  auto server = HttpServer::start(
      "127.0.0.1:0",
      {{"/events", [&](const HttpRequest&) {
          HttpResponse r{200, "text/event-stream", ""};
          r.stream = [&](HttpStream& out) {
            ++started;
            for (int i = 0; i < 3 && out.write("data: " + std::to_string(i) + "\n\n"); ++i) {
            }
            while (out.open_after(std::chrono::milliseconds(50))) {
            }
            ++ended;
          };
          return r;
        }}},
      {.what = "test", .max_streams = 1});
  REQUIRE(server.ok());
  const int port = (*server)->port();
  const auto soon = [] { return std::chrono::steady_clock::now() + std::chrono::seconds(5); };

  // A client that reads three events and goes: its stream ends.
  auto first = http_send("127.0.0.1", port, "GET /events HTTP/1.1\r\n\r\n", "data: 2\n\n");
  CHECK_THAT(first, StartsWith("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"));
  CHECK_THAT(first, !Contains("Content-Length"));
  CHECK(body_of(first) == "data: 0\n\ndata: 1\n\ndata: 2\n\n");
  CHECK(testing::eventually([&] { return ended == 1; }, soon()));

  // One that stays holds the only place: another stream is refused, a plain request still served.
  std::string second;
  std::jthread reader([&] { second = http_get("127.0.0.1", port, "/events"); });
  REQUIRE(testing::eventually([&] { return started == 2; }, soon()));
  CHECK_THAT(http_get("127.0.0.1", port, "/events"), StartsWith("HTTP/1.1 503 "));
  CHECK_THAT(http_get("127.0.0.1", port, "/other"), StartsWith("HTTP/1.1 404 "));

  // Stopping the server ends it.
  (*server)->stop();
  reader.join();
  CHECK(ended == 2);
  CHECK(body_of(second) == "data: 0\n\ndata: 1\n\ndata: 2\n\n");
}

}  // namespace
}  // namespace cosi::api
