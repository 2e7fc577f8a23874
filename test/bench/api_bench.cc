// API benchmarks (`meson test --benchmark`, release build). Usage: api-bench list10k|watch100k
//
// list10k: List of 10,000 Members over gRPC on loopback, one resource per message as talosctl
// requires, against a bare gRPC server in the same process streaming the same 10,000
// Resource messages built beforehand (the floor).
//
// watch100k: 100,000 updates delivered one event per message to one remote watcher (the writer
// kept at most 2,000 updates ahead of it), against the bare server streaming the same number of
// messages built beforehand; in slices of 4,000, each side's taken in turn.
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "api/state_server.h"
#include "api/grpc_process.h"
#include "resources/catalog.h"
#include "resources/cluster/cluster_resources.h"
#include "runtime/exec/thread_pool.h"
#include "runtime/proto/resource_codec.h"
#include "runtime/resource/meta/namespace.h"
#include "runtime/state/memory_state.h"
#include "runtime/state/state_ops.h"
#include "api/state_wire.h"
#include "test/bench/bench_report.h"

namespace cosi::bench {
namespace {

namespace pb = ::cosi::resource;
const Kind kMembers{resources::kClusterNamespace, resources::kMemberType};

resources::MemberSpec member_spec(int i, int generation = 0) {
  resources::MemberSpec s;
  s.set_node_id("nodeid-" + std::to_string(i) + "-7x1SuC8Ege5BGXdAfTEff5iQnlWZLfv9h1L");
  std::string ip(4, '\0');
  ip[0] = 10;
  ip[2] = static_cast<char>(i / 256);
  ip[3] = static_cast<char>(i % 256);
  s.add_addresses()->set_ip(ip);
  s.set_hostname("node-" + std::to_string(i) + "-gen-" + std::to_string(generation));
  s.set_machine_type(::talos::resource::definitions::enums::TYPE_WORKER);
  s.set_operating_system("cosi (v0.1.0)");
  return s;
}

// The floor: the same messages, built before the call, written one per message. A list is
// known whole, so its messages leave in batches as ours do (all but the first and the last
// buffer-hinted); watch messages are written one by one, as events that arrive.
class Bare final : public pb::State::CallbackService {
 public:
  std::vector<pb::ListResponse> list;
  std::vector<pb::WatchResponse> watch;

  grpc::ServerWriteReactor<pb::ListResponse>* List(grpc::CallbackServerContext*, const pb::ListRequest*) override {
    return new Stream<pb::ListResponse>(list, /*batched=*/true);
  }
  grpc::ServerWriteReactor<pb::WatchResponse>* Watch(grpc::CallbackServerContext*, const pb::WatchRequest*) override {
    return new Stream<pb::WatchResponse>(watch, /*batched=*/false);
  }

 private:
  template <class M>
  class Stream final : public grpc::ServerWriteReactor<M> {
   public:
    Stream(const std::vector<M>& items, bool batched) : items_(items), batched_(batched) { next(); }
    void OnWriteDone(bool ok) override {
      if (!ok) {
        this->Finish(grpc::Status::CANCELLED);
        return;
      }
      next();
    }
    void OnDone() override { delete this; }

   private:
    void next() {
      if (i_ == items_.size()) {
        this->Finish(grpc::Status::OK);
        return;
      }
      grpc::WriteOptions options;
      if (batched_ && i_ > 0 && i_ + 1 < items_.size()) options.set_buffer_hint();
      this->StartWrite(&items_[i_++], options);
    }
    const std::vector<M>& items_;
    const bool batched_;
    std::size_t i_ = 0;
  };
};

struct Servers {
  Servers() : pool(2) {
    for (const auto& d : resources::definitions()) (void)store.create(make_definition_resource(d), {kMetaOwner});
    for (const auto& [n, desc] : resources::namespaces()) (void)store.create(make_namespace(n, desc), {kMetaOwner});
    resources::register_types(types);
    ours = std::make_unique<api::StateServer>(store, types, pool, api::StateServerOptions{.watch_buffer = 200000});
    ours_server = start(ours.get(), &ours_port);
    bare_server = start(&bare, &bare_port);
    ours_stub = pb::State::NewStub(grpc::CreateChannel("127.0.0.1:" + std::to_string(ours_port), grpc::InsecureChannelCredentials()));
    bare_stub = pb::State::NewStub(grpc::CreateChannel("127.0.0.1:" + std::to_string(bare_port), grpc::InsecureChannelCredentials()));
  }
  ~Servers() {
    ours_server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    bare_server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    pool.stop();
  }
  static std::unique_ptr<grpc::Server> start(grpc::Service* s, int* port) {
    grpc::ServerBuilder b;
    b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), port);
    b.RegisterService(s);
    return b.BuildAndStart();
  }

  MemoryState store;
  ResourceTypes types;
  ThreadPool pool;
  std::unique_ptr<api::StateServer> ours;
  Bare bare;
  int ours_port = 0, bare_port = 0;
  std::unique_ptr<grpc::Server> ours_server, bare_server;
  std::unique_ptr<pb::State::Stub> ours_stub, bare_stub;
};

std::size_t read_list(pb::State::Stub& stub) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  pb::ListRequest req;
  req.set_namespace_(kMembers.ns.str());
  req.set_type(kMembers.type.str());
  auto reader = stub.List(&ctx, req);
  pb::ListResponse resp;
  std::size_t n = 0;
  while (reader->Read(&resp)) ++n;
  (void)reader->Finish();
  return n;
}

int bench_list() {
  constexpr int kMembersCount = 10000;
  Servers s;
  for (int i = 0; i < kMembersCount; ++i) {
    (void)s.store.create(make_resource(Metadata(kMembers.ns, kMembers.type, "node-" + std::to_string(i)), member_spec(i)),
                         {"bench"});
  }
  for (const auto& r : *s.store.list(kMembers)) {
    (void)encode_resource(*r, s.bare.list.emplace_back().mutable_resource());
  }
  // A round is 10 lists from each server, taken in turn.
  constexpr int kSlices = 10;
  std::size_t a = 0, b = 0;
  auto r = interleaved_slices(
               7, kSlices, [&](int) { return seconds([&] { a = read_list(*s.ours_stub); }); },
               [&](int) { return seconds([&] { b = read_list(*s.bare_stub); }); })
               .scaled(1e3 / kSlices);
  if (a != kMembersCount || b != kMembersCount) return std::printf("short list: %zu / %zu\n", a, b), 1;
  std::printf("list of %d members: ours %.1f ms, bare server %.1f ms (medians of 7 rounds of %d interleaved lists)\n",
              kMembersCount, r.ours_median(), r.baseline_median(), kSlices);
  return report("api.list10k", r, Target::ratio(1.2));
}

int bench_watch() {
  const int kUpdates = std::getenv("UPDATES") ? std::atoi(std::getenv("UPDATES")) : 100000;
  constexpr int kResources = 1000;
  Servers s;
  for (int i = 0; i < kResources; ++i) {
    (void)s.store.create(make_resource(Metadata(kMembers.ns, kMembers.type, "node-" + std::to_string(i)), member_spec(i)),
                         {"bench"});
  }
  // The writes, built beforehand on both sides.
  std::vector<ResourcePtr> writes;
  writes.reserve(kUpdates);
  for (int u = 0; u < kUpdates; ++u) {
    int i = u % kResources;
    Metadata md(kMembers.ns, kMembers.type, "node-" + std::to_string(i));
    md.set_version(Version(static_cast<std::uint64_t>(1 + u / kResources)));
    writes.push_back(make_resource(std::move(md), member_spec(i, 1 + u / kResources)));
  }
  // A round is kUpdates in kSlices slices of kPerSlice, ours and the bare server's taken in turn:
  // rounds of a whole second each side caught the machine in different moods (spread 1.55
  // with a steady median).
  constexpr int kSlices = 25;
  const int kPerSlice = kUpdates / kSlices;
  for (int u = 0; u < kPerSlice; ++u) {
    pb::WatchResponse r;
    (void)api::event_to_wire(Event{EventType::kUpdated, writes[u], writes[u], Bookmark(1, 1), nullptr}, r.add_event());
    s.bare.watch.push_back(std::move(r));
  }

  // Slice `slice` writes writes[slice * kPerSlice, ...) through the store while a remote watcher
  // reads them; slice 0 first puts every resource back at version 1 (untimed), as the writes
  // expect.
  auto run_ours = [&](int slice) {
    if (slice == 0) {
      for (int i = 0; i < kResources; ++i) {
        (void)s.store.destroy(kMembers.at("node-" + std::to_string(i)), {"bench"});
        (void)s.store.create(make_resource(Metadata(kMembers.ns, kMembers.type, "node-" + std::to_string(i)), member_spec(i)),
                             {"bench"});
      }
    }
    grpc::ClientContext ctx;
    pb::WatchRequest req;
    req.set_namespace_(kMembers.ns.str());
    req.set_type(kMembers.type.str());
    req.set_api_version(1);
    auto reader = s.ours_stub->Watch(&ctx, req);
    pb::WatchResponse resp;
    reader->Read(&resp);  // readiness
    auto start = std::chrono::steady_clock::now();
    // The writer stays at most kWindow updates ahead of what the watcher has received. Unpaced,
    // it ran all its updates ahead in some rounds and a few hundred in others, two different
    // regimes (one buffer drained at the end, or a pipeline) whose times differed 2x within a
    // run; a watcher is a pipeline, and that is what this measures.
    constexpr std::size_t kWindow = 2000;
    std::atomic<std::size_t> received{0};
    std::atomic<bool> writer_waits{false};
    std::mutex pace_mu;
    std::condition_variable pace_cv;
    const std::size_t first = static_cast<std::size_t>(slice) * kPerSlice;
    std::thread writer([&] {
      for (std::size_t k = 0; k < static_cast<std::size_t>(kPerSlice); ++k) {
        if (k >= received.load(std::memory_order_acquire) + kWindow) {
          std::unique_lock lock(pace_mu);
          writer_waits = true;
          pace_cv.wait(lock, [&] { return k < received.load(std::memory_order_acquire) + kWindow / 2; });
          writer_waits = false;
        }
        (void)s.store.update(writes[first + k], {"bench"});
      }
    });
    std::size_t n = 0;
    while (n < static_cast<std::size_t>(kPerSlice) && reader->Read(&resp)) {
      n += static_cast<std::size_t>(resp.event_size());
      received.store(n, std::memory_order_release);
      if (writer_waits.load(std::memory_order_acquire)) {
        std::lock_guard lock(pace_mu);
        pace_cv.notify_one();
      }
    }
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    writer.join();
    ctx.TryCancel();
    (void)reader->Finish();
    if (n != static_cast<std::size_t>(kPerSlice)) {
      std::printf("the watcher got %zu of %d events\n", n, kPerSlice);
      std::exit(1);
    }
    if (std::getenv("VERBOSE")) std::printf("slice %d: %.1f ms\n", slice, t * 1e3);
    return t;
  };
  auto run_bare = [&](int) {
    grpc::ClientContext ctx;
    pb::WatchRequest req;
    auto start = std::chrono::steady_clock::now();
    auto reader = s.bare_stub->Watch(&ctx, req);
    pb::WatchResponse resp;
    std::size_t n = 0;
    while (reader->Read(&resp)) n += static_cast<std::size_t>(resp.event_size());
    (void)reader->Finish();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto r = interleaved_slices(5, kSlices, run_ours, run_bare).scaled(1e3);
  std::printf("%d updates to one watcher: ours %.1f ms, bare server %.1f ms (medians of 5 rounds of %d interleaved slices)\n", kUpdates,
              r.ours_median(), r.baseline_median(), kSlices);
  return report("api.watch100k", r, Target::ratio(2));
}

}  // namespace
}  // namespace cosi::bench

int main(int argc, char** argv) {
  cosi::api::configure_grpc_process();  // as machined and cosictl run
  std::string name = argc > 1 ? argv[1] : "";
  if (name == "list10k") return cosi::bench::bench_list();
  if (name == "watch100k") return cosi::bench::bench_watch();
  std::fprintf(stderr, "usage: api-bench list10k|watch100k\n");
  return 2;
}
