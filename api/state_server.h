// StateServer: cosi.resource.State as a view over a store. Reads are served from the store's
// snapshots; a watch is a store watch pumped to the client, so a slow or stuck client only
// makes its own watch coalesce — writers and other clients never wait for it.
//
// Two modes, one implementation:
//   network (writable = false)   what talosctl sees: every write is PERMISSION_DENIED before any
//                                lookup; only types with a ResourceDefinition and namespaces
//                                with a Namespace resource are served
//   trusted (writable = true)    the read-write service on machined's unix socket, for
//                                controllers out of process (GrpcState is its client)
//
//   StateServer service(state, types, pool, {.writable = false});
//   grpc::ServerBuilder b; b.RegisterService(&service); ...
#pragma once

#include <memory>

#include "runtime/exec/executor.h"
#include "runtime/proto/resource_types.h"
#include "runtime/state/state.h"
#include "state.grpc.pb.h"

namespace cosi::api {

struct StateServerOptions {
  bool writable = false;
  std::size_t watch_batch = 256;  // events taken from the store per aggregated message
  std::size_t watch_buffer = 0;   // events a client's watch holds before coalescing; 0: the store's default
};

// List and Watch are raw methods: responses are assembled from bytes cached on each snapshot
// (wire_bytes.h) instead of message objects built per read.
using StateServiceBase = cosi::resource::State::WithRawCallbackMethod_List<
    cosi::resource::State::WithRawCallbackMethod_Watch<cosi::resource::State::CallbackService>>;

class StateServer final : public StateServiceBase {
 public:
  // `executor` runs what must not block gRPC's threads (pumping watches woken by writers,
  // TeardownAndDestroy waiting for finalizers).
  StateServer(State& state, const ResourceTypes& types, Executor& executor, StateServerOptions options = {});
  ~StateServer() override;

  grpc::ServerUnaryReactor* Get(grpc::CallbackServerContext* ctx, const cosi::resource::GetRequest* req,
                                cosi::resource::GetResponse* resp) override;
  grpc::ServerWriteReactor<grpc::ByteBuffer>* List(grpc::CallbackServerContext* ctx,
                                                   const grpc::ByteBuffer* request) override;
  grpc::ServerUnaryReactor* Create(grpc::CallbackServerContext* ctx, const cosi::resource::CreateRequest* req,
                                   cosi::resource::CreateResponse* resp) override;
  grpc::ServerUnaryReactor* Update(grpc::CallbackServerContext* ctx, const cosi::resource::UpdateRequest* req,
                                   cosi::resource::UpdateResponse* resp) override;
  grpc::ServerUnaryReactor* Destroy(grpc::CallbackServerContext* ctx, const cosi::resource::DestroyRequest* req,
                                    cosi::resource::DestroyResponse* resp) override;
  grpc::ServerUnaryReactor* Teardown(grpc::CallbackServerContext* ctx, const cosi::resource::TeardownRequest* req,
                                     cosi::resource::TeardownResponse* resp) override;
  grpc::ServerUnaryReactor* TeardownAndDestroy(grpc::CallbackServerContext* ctx,
                                               const cosi::resource::TeardownAndDestroyRequest* req,
                                               cosi::resource::TeardownAndDestroyResponse* resp) override;
  grpc::ServerWriteReactor<grpc::ByteBuffer>* Watch(grpc::CallbackServerContext* ctx,
                                                    const grpc::ByteBuffer* request) override;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace cosi::api
