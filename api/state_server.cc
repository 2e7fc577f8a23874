#include "api/state_server.h"

#include <cctype>
#include <mutex>

#include "api/auth/roles.h"
#include "api/state_wire.h"
#include "api/status.h"
#include "api/wire_bytes.h"
#include "runtime/proto/resource_codec.h"
#include "runtime/resource/meta/namespace.h"
#include "runtime/resource/meta/resource_definition.h"
#include "runtime/state/state_ops.h"

namespace cosi::api {
namespace {

namespace pb = ::cosi::resource;

std::string lowercase(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

grpc::ServerUnaryReactor* finish(grpc::CallbackServerContext* ctx, const grpc::Status& status) {
  auto* reactor = ctx->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

grpc::ServerUnaryReactor* finish(grpc::CallbackServerContext* ctx, const Status& status) {
  return finish(ctx, status.ok() ? grpc::Status::OK : fail(ctx, status.error()));
}

// The roles the front attached to the call (absent when nothing vouched for the caller).
bool may_read_sensitive(const grpc::ServerContextBase* ctx) {
  const auto& md = ctx->client_metadata();
  auto it = md.find(std::string(auth::kCallerRolesMetadata));
  if (it == md.end()) return false;
  return auth::may_read_sensitive(auth::parse_roles(std::string_view(it->second.data(), it->second.size())));
}

Error write_denied() { return Error(ErrorKind::kPermissionDenied, "write access is not allowed"); }

Deadline deadline_of(grpc::CallbackServerContext* ctx) {
  auto left = ctx->deadline() - std::chrono::system_clock::now();
  // No client deadline: still bounded.
  if (left > std::chrono::minutes(5)) left = std::chrono::minutes(5);
  return std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(left);
}

grpc::ByteBuffer to_buffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

template <class M>
bool from_buffer(const grpc::ByteBuffer* buffer, M* message) {
  grpc::ByteBuffer copy(*buffer);
  return grpc::SerializationTraits<M>::Deserialize(&copy, message).ok();
}

// Streams a list, one resource per message, each from the snapshot's cached bytes.
class ListStream final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  explicit ListStream(std::vector<ResourcePtr> resources) : resources_(std::move(resources)) { next(); }
  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "client went away"));
      return;
    }
    next();
  }
  void OnDone() override { delete this; }

 private:
  void next() {
    if (index_ == resources_.size()) {
      Finish(grpc::Status::OK);
      return;
    }
    auto bytes = list_response_bytes(*resources_[index_++]);
    if (!bytes.ok()) {
      Finish(to_status(bytes.error()));
      return;
    }
    response_ = to_buffer(*bytes);
    // The messages between the first (it carries the initial metadata, and a hinted first
    // write is held back for good: grpc/grpc#34231) and the last leave in batches.
    grpc::WriteOptions options;
    if (index_ > 1 && index_ < resources_.size()) options.set_buffer_hint();
    StartWrite(&response_, options);
  }

  std::vector<ResourcePtr> resources_;
  std::size_t index_ = 0;
  grpc::ByteBuffer response_;
};

// A stream that ends at once with an error.
class FailedStream final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  explicit FailedStream(grpc::Status s) { Finish(std::move(s)); }
  void OnDone() override { delete this; }
};

}  // namespace

struct StateServer::Impl : std::enable_shared_from_this<StateServer::Impl> {
  Impl(State& s, const ResourceTypes& t, Executor& e, StateServerOptions o)
      : state(s), types(t), executor(e), options(o) {}

  State& state;
  const ResourceTypes& types;
  Executor& executor;
  const StateServerOptions options;

  // Network mode serves only defined types in existing namespaces, and Sensitive types only
  // to callers the front vouched for as os:admin.
  Status check_served(const grpc::ServerContextBase* ctx, const std::string& ns, const std::string& type) {
    if (options.writable) return {};
    auto definition = state.get(Pointer{kMetaNamespace, kResourceDefinitionType, lowercase(type)});
    if (!definition.ok()) {
      return Error(ErrorKind::kPermissionDenied, "resource type \"" + type + "\" is not supported");
    }
    if (auto typed = resource_cast<ResourceDefinitionSpec>(*definition);
        typed != nullptr && typed->spec().sensitivity == Sensitivity::kSensitive && !may_read_sensitive(ctx)) {
      return Error(ErrorKind::kPermissionDenied,
                   "resource type \"" + type + "\" is Sensitive: reading it needs role os:admin");
    }
    if (!state.get(Pointer{kMetaNamespace, kNamespaceType, ns}).ok()) {
      return Error(ErrorKind::kPermissionDenied, "namespace \"" + ns + "\" is not supported");
    }
    return {};
  }

  Result<MutableResourcePtr> decode(const cosi::resource::Resource& wire) { return decode_resource(wire, types); }
};

// One client's watch: a store watch pumped into the stream. The store never waits for us;
// we write when the client has taken the last message.
class WatchStream final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  WatchStream(std::shared_ptr<StateServer::Impl> impl, grpc::CallbackServerContext* ctx, const pb::WatchRequest* req)
      : impl_(std::move(impl)), link_(std::make_shared<Link>()) {
    link_->stream = this;
    api_version_ = req->api_version();
    aggregated_ = req->options().aggregated();
    auto watch = open(ctx, *req);
    if (!watch.ok()) {
      Finish(fail(ctx, watch.error()));
      return;
    }
    watch_ = std::move(*watch);
    {
      // The first message is empty: the client knows the watch is in place.
      std::lock_guard lock(link_->mu);
      link_->writing = true;
      response_ = to_buffer("");
      StartWrite(&response_);
    }
    start_listening();
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      std::lock_guard lock(link_->mu);
      if (link_->finished) return;
      link_->finished = true;
      link_->stream = nullptr;
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "client went away"));
      return;
    }
    std::lock_guard lock(link_->mu);
    link_->writing = false;
    pump_locked();
  }

  void OnCancel() override {
    std::lock_guard lock(link_->mu);
    if (link_->finished) return;
    link_->finished = true;
    link_->stream = nullptr;
    Finish(grpc::Status(grpc::StatusCode::CANCELLED, "watch cancelled"));
  }

  void OnDone() override {
    stop();
    delete this;
  }

 private:
  // Shared with the store's notify callback, which may fire on any writer's thread.
  struct Link {
    std::mutex mu;
    WatchStream* stream = nullptr;  // null once the call is done
    bool writing = false;
    bool scheduled = false;  // a pump is posted to the executor
    bool finished = false;
  };

  Result<WatchPtr> open(grpc::CallbackServerContext* ctx, const pb::WatchRequest& req) {
    if (auto s = impl_->check_served(ctx, req.namespace_(), req.type()); !s.ok()) return s.error();
    const auto& o = req.options();
    auto labels = label_queries_from_wire(o.label_query());
    if (!labels.ok()) return labels.error();
    auto ids = id_query_from_wire(o.id_query());
    if (!ids.ok()) return ids.error();
    std::optional<Bookmark> from;
    if (o.has_start_from_bookmark()) {
      from = Bookmark::from_bytes(o.start_from_bookmark());
      if (!from) return Error(ErrorKind::kInvalidBookmark, "the bookmark was not made by this server");
    }
    const Kind kind{req.namespace_(), req.type()};
    if (req.has_id()) {
      if (o.bootstrap_contents() || !labels->empty()) {
        return Error(ErrorKind::kUnimplemented,
                     "bootstrap contents and label queries apply to a watch of a kind, not of one resource");
      }
      return impl_->state.watch(kind.at(req.id()), {.tail_events = o.tail_events(),
                                                    .start_from_bookmark = from,
                                                    .buffer = impl_->options.watch_buffer});
    }
    return impl_->state.watch_kind(kind, {.bootstrap_contents = o.bootstrap_contents(),
                                          .tail_events = o.tail_events(),
                                          .start_from_bookmark = from,
                                          .label_queries = std::move(*labels),
                                          .id_query = std::move(*ids),
                                          .buffer = impl_->options.watch_buffer});
  }

  void start_listening() {
    std::weak_ptr<Link> weak = link_;
    Executor* executor = &impl_->executor;
    watch_->set_notify([weak, executor] {
      auto link = weak.lock();
      if (!link) return;
      {
        // A write in flight will look for more when it is done; a pump already on its way
        // will find these events too. Either way the writer's thread has nothing to do.
        std::lock_guard lock(link->mu);
        if (link->stream == nullptr || link->writing || link->scheduled) return;
        link->scheduled = true;
      }
      // Encoding happens on the executor, never on the writer's thread.
      executor->post([link] {
        // Holding the lock keeps the stream alive: OnDone takes it before deleting.
        std::lock_guard lock(link->mu);
        link->scheduled = false;
        if (link->stream != nullptr) link->stream->pump_locked();
      });
    });
  }

  // Takes what the store has for us and writes one message, unless a write is in flight.
  // The caller holds link_->mu.
  void pump_locked() {
    if (link_->stream == nullptr || link_->writing || link_->finished) return;
    if (taken_ == pending_.size()) {
      pending_.clear();
      taken_ = 0;
      watch_->poll(pending_, impl_->options.watch_batch);
      if (api_version_ < 1) {
        std::erase_if(pending_, [](const Event& e) {
          return e.type == EventType::kBootstrapped || e.type == EventType::kErrored;
        });
      }
    }
    if (taken_ == pending_.size()) return;
    const std::size_t take = aggregated_ ? pending_.size() - taken_ : 1;
    auto bytes = watch_response_bytes(pending_.data() + taken_, take);
    if (!bytes.ok()) {
      link_->finished = true;
      Finish(to_status(bytes.error()));
      return;
    }
    taken_ += take;
    response_ = to_buffer(*bytes);
    link_->writing = true;
    // Events already taken from the store follow at once: let this one wait for them in the
    // transport's buffer (never the first message, which is written unhinted above).
    grpc::WriteOptions options;
    if (taken_ < pending_.size()) options.set_buffer_hint();
    // Under the lock, so that no write can follow a Finish from OnCancel. gRPC runs the
    // reaction to a Start* call after it returns, never inside it.
    StartWrite(&response_, options);
  }

  void stop() {
    {
      std::lock_guard lock(link_->mu);
      link_->stream = nullptr;
      link_->finished = true;
    }
    if (watch_) watch_->cancel();
  }

  std::shared_ptr<StateServer::Impl> impl_;
  std::shared_ptr<Link> link_;
  WatchPtr watch_;
  int api_version_ = 0;
  bool aggregated_ = false;
  std::vector<Event> pending_;  // guarded by link_->mu
  std::size_t taken_ = 0;       // of pending_, already sent
  grpc::ByteBuffer response_;
};

StateServer::StateServer(State& state, const ResourceTypes& types, Executor& executor, StateServerOptions options)
    : impl_(std::make_shared<Impl>(state, types, executor, options)) {}

StateServer::~StateServer() = default;

grpc::ServerUnaryReactor* StateServer::Get(grpc::CallbackServerContext* ctx, const pb::GetRequest* req,
                                           pb::GetResponse* resp) {
  if (auto s = impl_->check_served(ctx, req->namespace_(), req->type()); !s.ok()) return finish(ctx, s);
  auto r = impl_->state.get(Pointer{req->namespace_(), req->type(), req->id()});
  if (!r.ok()) return finish(ctx, Status(r.error()));
  return finish(ctx, encode_resource(**r, resp->mutable_resource()));
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* StateServer::List(grpc::CallbackServerContext* ctx,
                                                               const grpc::ByteBuffer* request) {
  pb::ListRequest req;
  if (!from_buffer(request, &req)) {
    return new FailedStream(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "not a ListRequest"));
  }
  Status served = impl_->check_served(ctx, req.namespace_(), req.type());
  Result<std::vector<LabelQuery>> labels = served.ok() ? label_queries_from_wire(req.options().label_query())
                                                       : Result<std::vector<LabelQuery>>(served.error());
  Result<std::optional<IDQuery>> ids = labels.ok() ? id_query_from_wire(req.options().id_query())
                                                   : Result<std::optional<IDQuery>>(labels.error());
  Result<std::vector<ResourcePtr>> list = ids.ok()
      ? impl_->state.list(Kind{req.namespace_(), req.type()}, {*labels, *ids})
      : Result<std::vector<ResourcePtr>>(ids.error());
  if (!list.ok()) return new FailedStream(fail(ctx, list.error()));
  return new ListStream(std::move(*list));
}

grpc::ServerUnaryReactor* StateServer::Create(grpc::CallbackServerContext* ctx, const pb::CreateRequest* req,
                                              pb::CreateResponse* resp) {
  if (!impl_->options.writable) return finish(ctx, Status(write_denied()));
  auto r = impl_->decode(req->resource());
  if (!r.ok()) return finish(ctx, Status(r.error()));
  auto created = impl_->state.create(std::move(*r), {req->options().owner()});
  if (!created.ok()) return finish(ctx, Status(created.error()));
  return finish(ctx, encode_resource(**created, resp->mutable_resource()));
}

grpc::ServerUnaryReactor* StateServer::Update(grpc::CallbackServerContext* ctx, const pb::UpdateRequest* req,
                                              pb::UpdateResponse* resp) {
  if (!impl_->options.writable) return finish(ctx, Status(write_denied()));
  std::optional<Phase> expected;  // absent on the wire: any phase
  if (req->options().has_expected_phase()) {
    expected = parse_phase(req->options().expected_phase());
    if (!expected) {
      return finish(ctx, Status(Error(ErrorKind::kInvalidArgument,
                                      "expected_phase \"" + req->options().expected_phase() + "\" is not a phase")));
    }
  }
  auto r = impl_->decode(req->new_resource());
  if (!r.ok()) return finish(ctx, Status(r.error()));
  auto updated = impl_->state.update(std::move(*r), {req->options().owner(), expected});
  if (!updated.ok()) return finish(ctx, Status(updated.error()));
  return finish(ctx, encode_resource(**updated, resp->mutable_resource()));
}

grpc::ServerUnaryReactor* StateServer::Destroy(grpc::CallbackServerContext* ctx, const pb::DestroyRequest* req,
                                               pb::DestroyResponse*) {
  if (!impl_->options.writable) return finish(ctx, Status(write_denied()));
  return finish(ctx, impl_->state.destroy(Pointer{req->namespace_(), req->type(), req->id()}, {req->options().owner()}));
}

grpc::ServerUnaryReactor* StateServer::Teardown(grpc::CallbackServerContext* ctx, const pb::TeardownRequest* req,
                                                pb::TeardownResponse* resp) {
  if (!impl_->options.writable) return finish(ctx, Status(write_denied()));
  auto ready = teardown(impl_->state, Pointer{req->namespace_(), req->type(), req->id()}, req->options().owner());
  if (!ready.ok()) return finish(ctx, Status(ready.error()));
  resp->set_destroy_ready(*ready);
  return finish(ctx, Status());
}

grpc::ServerUnaryReactor* StateServer::TeardownAndDestroy(grpc::CallbackServerContext* ctx,
                                                          const pb::TeardownAndDestroyRequest* req,
                                                          pb::TeardownAndDestroyResponse*) {
  auto* reactor = ctx->DefaultReactor();
  if (!impl_->options.writable) {
    reactor->Finish(fail(ctx, write_denied()));
    return reactor;
  }
  // Waits for finalizers: not on gRPC's thread.
  const Pointer p{req->namespace_(), req->type(), req->id()};
  const Atom owner = req->options().owner();
  const Deadline deadline = deadline_of(ctx);
  impl_->executor.post([impl = impl_, ctx, reactor, p, owner, deadline] {
    Status s = teardown_and_destroy(impl->state, p, owner, deadline);
    reactor->Finish(s.ok() ? grpc::Status::OK : fail(ctx, s.error()));
  });
  return reactor;
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* StateServer::Watch(grpc::CallbackServerContext* ctx,
                                                                const grpc::ByteBuffer* request) {
  pb::WatchRequest req;
  if (!from_buffer(request, &req)) {
    return new FailedStream(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "not a WatchRequest"));
  }
  return new WatchStream(impl_, ctx, &req);
}

}  // namespace cosi::api
