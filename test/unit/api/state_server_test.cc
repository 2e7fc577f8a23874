// The network view of cosi.resource.State, checked with raw stubs against what talosctl relies
// on (shared/PROTOCOL.md §1): refusals before lookups, readiness message, tombstones with a
// spec, api_version gating, option checks, status codes, and stuck clients.
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>

#include "api/state_server.h"
#include "resources/catalog.h"
#include "resources/cluster/cluster_resources.h"
#include "runtime/exec/thread_pool.h"
#include "runtime/resource/meta/namespace.h"
#include "runtime/state/memory_state.h"
#include "runtime/state/state_ops.h"
#include "state.grpc.pb.h"

namespace cosi::api {
namespace {

namespace pb = ::cosi::resource;
const Kind kMembers{resources::kClusterNamespace, resources::kMemberType};

struct Fixture {
  Fixture() : pool(2) {
    for (const auto& d : resources::definitions()) REQUIRE(store.create(make_definition_resource(d), {kMetaOwner}).ok());
    for (const auto& [n, desc] : resources::namespaces()) REQUIRE(store.create(make_namespace(n, desc), {kMetaOwner}).ok());
    resources::register_types(types);
    static std::atomic<int> counter{0};
    socket = std::filesystem::temp_directory_path() / ("cosi-api-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    service = std::make_unique<StateServer>(store, types, pool, StateServerOptions{.writable = false, .watch_batch = 8});
    grpc::ServerBuilder b;
    b.AddListeningPort("unix:" + socket.string(), grpc::InsecureServerCredentials());
    b.RegisterService(service.get());
    server = b.BuildAndStart();
    stub = pb::State::NewStub(grpc::CreateChannel("unix:" + socket.string(), grpc::InsecureChannelCredentials()));
  }
  ~Fixture() {
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    pool.stop();
    std::filesystem::remove(socket);
  }

  void put_member(const std::string& id, const std::string& hostname) {
    resources::MemberSpec spec;
    spec.set_hostname(hostname);
    REQUIRE(modify(store, make_resource(Metadata(kMembers.ns, kMembers.type, id), spec),
                   [&](Resource& r) {
                     static_cast<TypedResource<resources::MemberSpec>&>(r).mutable_spec().set_hostname(hostname);
                     return Status();
                   },
                   {"test"})
                .ok());
  }

  std::unique_ptr<grpc::ClientContext> ctx(int seconds = 10) {
    auto c = std::make_unique<grpc::ClientContext>();
    c->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
    return c;
  }

  MemoryState store;
  ResourceTypes types;
  ThreadPool pool;
  std::filesystem::path socket;
  std::unique_ptr<StateServer> service;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<pb::State::Stub> stub;
};

pb::WatchRequest watch_request(const Kind& kind, int api_version = 1) {
  pb::WatchRequest req;
  req.set_namespace_(kind.ns.str());
  req.set_type(kind.type.str());
  req.set_api_version(api_version);
  return req;
}

TEST_CASE("writes are refused before any lookup", "[api]") {
  Fixture f;
  pb::UpdateRequest update;
  update.mutable_new_resource()->mutable_metadata()->set_namespace_("cluster");
  update.mutable_new_resource()->mutable_metadata()->set_type(kMembers.type.str());
  update.mutable_new_resource()->mutable_metadata()->set_id("does-not-exist");
  pb::UpdateResponse ur;
  auto c1 = f.ctx();
  auto s = f.stub->Update(c1.get(), update, &ur);
  CHECK(s.error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK(s.error_message() == "write access is not allowed");

  pb::DestroyRequest destroy;
  destroy.set_namespace_("cluster");
  destroy.set_type("Nonsense.test.dev");
  destroy.set_id("x");
  pb::DestroyResponse dr;
  auto c2 = f.ctx();
  CHECK(f.stub->Destroy(c2.get(), destroy, &dr).error_code() == grpc::StatusCode::PERMISSION_DENIED);
  pb::CreateRequest create;
  pb::CreateResponse cr;
  auto c3 = f.ctx();
  CHECK(f.stub->Create(c3.get(), create, &cr).error_code() == grpc::StatusCode::PERMISSION_DENIED);
}

TEST_CASE("only defined types in existing namespaces are served", "[api]") {
  Fixture f;
  pb::GetRequest get;
  get.set_namespace_("cluster");
  get.set_type("Secrets.test.cosi.dev");
  get.set_id("x");
  pb::GetResponse gr;
  auto c1 = f.ctx();
  auto s = f.stub->Get(c1.get(), get, &gr);
  CHECK(s.error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK(s.error_message() == "resource type \"Secrets.test.cosi.dev\" is not supported");

  get.set_namespace_("nowhere");
  get.set_type(kMembers.type.str());
  auto c2 = f.ctx();
  CHECK(f.stub->Get(c2.get(), get, &gr).error_code() == grpc::StatusCode::PERMISSION_DENIED);

  get.set_namespace_("cluster");
  auto c3 = f.ctx();
  CHECK(f.stub->Get(c3.get(), get, &gr).error_code() == grpc::StatusCode::NOT_FOUND);

  f.put_member("x", "host-x");
  auto c4 = f.ctx();
  REQUIRE(f.stub->Get(c4.get(), get, &gr).ok());
  CHECK(gr.resource().spec().yaml_spec().find("hostname: host-x") != std::string::npos);
  CHECK(gr.resource().metadata().version() == "1");
}

TEST_CASE("a watch opens with an empty message; events carry specs, tombstones too", "[api]") {
  Fixture f;
  f.put_member("a", "host-a");
  auto c = f.ctx();
  auto req = watch_request(kMembers);
  req.mutable_options()->set_bootstrap_contents(true);
  auto reader = f.stub->Watch(c.get(), req);
  pb::WatchResponse resp;
  REQUIRE(reader->Read(&resp));
  CHECK(resp.event_size() == 0);  // readiness
  REQUIRE(reader->Read(&resp));
  REQUIRE(resp.event_size() == 1);
  CHECK(resp.event(0).event_type() == pb::CREATED);
  REQUIRE(reader->Read(&resp));
  REQUIRE(resp.event_size() == 1);
  const auto& boot = resp.event(0);
  CHECK(boot.event_type() == pb::BOOTSTRAPPED);
  CHECK(boot.has_bookmark());
  CHECK(boot.resource().has_spec());
  CHECK(boot.resource().metadata().version() == "undefined");
  CHECK(boot.resource().metadata().phase() == "running");
  CHECK(boot.resource().metadata().id().empty());
  c->TryCancel();
}

TEST_CASE("watching one missing resource opens with a Destroyed tombstone", "[api]") {
  Fixture f;
  auto c = f.ctx();
  auto req = watch_request(kMembers);
  req.set_id("ghost");
  auto reader = f.stub->Watch(c.get(), req);
  pb::WatchResponse resp;
  REQUIRE(reader->Read(&resp));
  REQUIRE(reader->Read(&resp));
  REQUIRE(resp.event_size() == 1);
  CHECK(resp.event(0).event_type() == pb::DESTROYED);
  CHECK(resp.event(0).resource().has_spec());
  CHECK(resp.event(0).resource().metadata().id() == "ghost");
  c->TryCancel();
}

TEST_CASE("api_version 0 clients never see Bootstrapped", "[api]") {
  Fixture f;
  f.put_member("a", "host-a");
  auto c = f.ctx();
  auto req = watch_request(kMembers, 0);
  req.mutable_options()->set_bootstrap_contents(true);
  auto reader = f.stub->Watch(c.get(), req);
  pb::WatchResponse resp;
  REQUIRE(reader->Read(&resp));  // readiness
  REQUIRE(reader->Read(&resp));
  CHECK(resp.event(0).event_type() == pb::CREATED);
  f.put_member("b", "host-b");
  REQUIRE(reader->Read(&resp));
  CHECK(resp.event(0).event_type() == pb::CREATED);  // not BOOTSTRAPPED
  CHECK(resp.event(0).resource().metadata().id() == "b");
  c->TryCancel();
}

grpc::Status watch_status(Fixture& f, const pb::WatchRequest& req) {
  auto c = f.ctx();
  auto reader = f.stub->Watch(c.get(), req);
  pb::WatchResponse resp;
  while (reader->Read(&resp)) {
  }
  return reader->Finish();
}

TEST_CASE("watch options that cannot work are refused with the right code", "[api]") {
  Fixture f;
  auto id_bootstrap = watch_request(kMembers);
  id_bootstrap.set_id("a");
  id_bootstrap.mutable_options()->set_bootstrap_contents(true);
  CHECK(watch_status(f, id_bootstrap).error_code() == grpc::StatusCode::UNIMPLEMENTED);

  auto tail_and_bookmark = watch_request(kMembers);
  tail_and_bookmark.mutable_options()->set_tail_events(1);
  tail_and_bookmark.mutable_options()->set_start_from_bookmark(Bookmark(1, 0).bytes());
  CHECK(watch_status(f, tail_and_bookmark).error_code() == grpc::StatusCode::INVALID_ARGUMENT);

  auto bad_op = watch_request(kMembers);
  auto* term = bad_op.mutable_options()->add_label_query()->add_terms();
  term->set_key("k");
  term->set_op(static_cast<pb::LabelTerm::Operation>(42));
  CHECK(watch_status(f, bad_op).error_code() == grpc::StatusCode::UNIMPLEMENTED);

  auto bad_regexp = watch_request(kMembers);
  bad_regexp.mutable_options()->mutable_id_query()->set_regexp("(");
  CHECK(watch_status(f, bad_regexp).error_code() == grpc::StatusCode::INVALID_ARGUMENT);

  auto foreign = watch_request(kMembers);
  foreign.mutable_options()->set_start_from_bookmark(Bookmark(12345, 0).bytes());
  CHECK(watch_status(f, foreign).error_code() == grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_CASE("aggregated watches deliver batches", "[api]") {
  Fixture f;
  for (int i = 0; i < 5; ++i) f.put_member("m" + std::to_string(i), "h");
  auto c = f.ctx();
  auto req = watch_request(kMembers);
  req.mutable_options()->set_bootstrap_contents(true);
  req.mutable_options()->set_aggregated(true);
  auto reader = f.stub->Watch(c.get(), req);
  pb::WatchResponse resp;
  REQUIRE(reader->Read(&resp));
  int events = 0;
  while (events < 6 && reader->Read(&resp)) events += resp.event_size();
  CHECK(events == 6);  // five Created and the Bootstrapped marker, in fewer messages
  c->TryCancel();
}

TEST_CASE("a stuck watch client blocks neither writers nor other clients", "[api]") {
  Fixture f;
  auto stuck_ctx = f.ctx(60);
  auto stuck = f.stub->Watch(stuck_ctx.get(), watch_request(kMembers));
  pb::WatchResponse first;
  REQUIRE(stuck->Read(&first));  // and then never reads again

  auto live_ctx = f.ctx(60);
  auto live = f.stub->Watch(live_ctx.get(), watch_request(kMembers));
  REQUIRE(live->Read(&first));

  // Enough writes to fill every buffer between the server and the stuck client many times.
  constexpr int kWrites = 20000;
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < kWrites; ++i) f.put_member("m" + std::to_string(i % 50), "host-" + std::to_string(i));
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(took < std::chrono::seconds(20));

  // The live client sees where things ended: each member's last hostname.
  std::map<std::string, std::string> seen;
  pb::WatchResponse resp;
  while (seen.size() < 50 || seen["m49"] != "host-" + std::to_string(kWrites - 1)) {
    REQUIRE(live->Read(&resp));
    for (const auto& e : resp.event()) {
      const std::string& yaml = e.resource().spec().yaml_spec();
      auto at = yaml.find("hostname: ");
      seen[e.resource().metadata().id()] = yaml.substr(at + 10, yaml.find('\n', at) - at - 10);
    }
  }
  CHECK(seen["m0"] == "host-" + std::to_string(kWrites - 50));
  stuck_ctx->TryCancel();
  live_ctx->TryCancel();
}

}  // namespace
}  // namespace cosi::api

#include "api/wire_bytes.h"
#include "runtime/proto/resource_codec.h"

namespace cosi::api {
namespace {

TEST_CASE("hand-framed resource bytes are what the generated code writes", "[api]") {
  resources::MemberSpec spec;
  spec.set_hostname("h");
  spec.set_machine_type(::talos::resource::definitions::enums::TYPE_WORKER);
  Metadata md(kMembers.ns, kMembers.type, "m");
  md.set_version(Version(3));
  md.set_owner("o");
  md.set_phase(Phase::kTearingDown);
  md.set_created(Timestamp(std::chrono::seconds(1700000000) + std::chrono::nanoseconds(5)));
  md.set_updated(Timestamp(std::chrono::seconds(1700000001)));
  md.mutable_labels().set("a", "1");
  md.mutable_labels().set("b", "");
  md.mutable_annotations().set("note", "x");
  md.mutable_finalizers().add("f1");
  auto r = make_resource(md, spec);

  auto bytes = resource_bytes(*r);
  REQUIRE(bytes.ok());
  pb::Resource parsed;
  REQUIRE(parsed.ParseFromArray(bytes->data(), static_cast<int>(bytes->size())));
  pb::Resource expected;
  REQUIRE(encode_resource(*r, &expected).ok());
  CHECK(parsed.DebugString() == expected.DebugString());
  CHECK(resource_bytes(*r)->data() == bytes->data());  // cached
}

}  // namespace
}  // namespace cosi::api
