// Runs the State conformance suite over a real connection: a MemoryState served by the
// trusted (read-write) StateServer on a unix socket, reached through GrpcState.
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "api/state_client.h"
#include "api/state_server.h"
#include "runtime/exec/thread_pool.h"
#include "runtime/state/memory_state.h"
#include "test/conformance/state/state_under_test.h"
#include "test/support/test_resources.h"

namespace cosi::testing {
namespace {

constexpr std::size_t kHistory = 64;

// Everything one connection needs, torn down in order.
struct Served {
  Served() : store(MemoryStateOptions{.history = kHistory}), pool(2) {
    types.add<TestSpec>(kTestKind.type);
    static std::atomic<int> counter{0};
    socket = std::filesystem::temp_directory_path() /
             ("cosi-conformance-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".sock");
    std::filesystem::remove(socket);
    service = std::make_unique<api::StateServer>(store, types, pool, api::StateServerOptions{.writable = true});
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + socket.string(), grpc::InsecureServerCredentials());
    builder.RegisterService(service.get());
    server = builder.BuildAndStart();
    client = std::make_unique<api::GrpcState>(
        grpc::CreateChannel("unix:" + socket.string(), grpc::InsecureChannelCredentials()), types);
  }
  ~Served() {
    client.reset();
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
    server->Wait();
    pool.stop();
    std::filesystem::remove(socket);
  }

  MemoryState store;
  ResourceTypes types;
  ThreadPool pool;
  std::filesystem::path socket;
  std::unique_ptr<api::StateServer> service;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<api::GrpcState> client;
};

std::shared_ptr<State> serve() {
  auto served = std::make_shared<Served>();
  return std::shared_ptr<State>(served, served->client.get());
}

}  // namespace

StateUnderTest make_state_under_test() { return {serve(), kHistory, serve}; }

}  // namespace cosi::testing
