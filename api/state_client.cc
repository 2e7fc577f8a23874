#include "api/state_client.h"

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "api/state_wire.h"
#include "api/status.h"
#include "runtime/proto/resource_codec.h"
#include "state.grpc.pb.h"

namespace cosi::api {
namespace {

namespace pb = ::cosi::resource;

Error call_error(const grpc::Status& status, const grpc::ClientContext& ctx) {
  return from_status(status, ctx.GetServerTrailingMetadata());
}

using CallMetadata = std::vector<std::pair<std::string, std::string>>;

// A watch whose events a reader thread takes off the stream.
class GrpcWatch final : public cosi::Watch {
 public:
  GrpcWatch(pb::State::Stub& stub, pb::WatchRequest request, const ResourceTypes& types, const CallMetadata& metadata)
      : types_(types) {
    for (const auto& [key, value] : metadata) context_.AddMetadata(key, value);
    reader_ = stub.Watch(&context_, request);
  }

  ~GrpcWatch() override { cancel(); }

  // Waits for the server's first (empty) message: the watch is in place.
  Status opened(std::chrono::steady_clock::time_point deadline) {
    pb::WatchResponse first;
    // The stream has no deadline of its own (it lives as long as the watch); bound the wait.
    std::thread timer;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    timer = std::thread([&] {
      std::unique_lock lock(mu);
      if (!cv.wait_until(lock, deadline, [&] { return done; })) context_.TryCancel();
    });
    bool ok = reader_->Read(&first);
    {
      std::lock_guard lock(mu);
      done = true;
    }
    cv.notify_all();
    timer.join();
    if (!ok) {
      grpc::Status s = reader_->Finish();
      finished_ = true;
      if (s.error_code() == grpc::StatusCode::CANCELLED) {
        return Error(ErrorKind::kDeadlineExceeded, "the server did not open the watch in time");
      }
      return call_error(s, context_);
    }
    thread_ = std::thread([this] { read_loop(); });
    return {};
  }

  std::size_t poll(std::vector<Event>& out, std::size_t max) override {
    std::lock_guard lock(mu_);
    std::size_t taken = 0;
    while (taken < max && !events_.empty()) {
      out.push_back(std::move(events_.front()));
      events_.pop_front();
      ++taken;
    }
    return taken;
  }

  bool wait(std::chrono::steady_clock::time_point deadline) override {
    std::unique_lock lock(mu_);
    ready_.wait_until(lock, deadline, [&] { return cancelled_ || !events_.empty(); });
    return !cancelled_ && !events_.empty();
  }

  void set_notify(std::function<void()> notify) override {
    bool pending;
    {
      std::lock_guard lock(mu_);
      notify_ = std::move(notify);
      pending = !events_.empty();
    }
    if (pending) notify_();
  }

  void cancel() override {
    {
      std::lock_guard lock(mu_);
      if (cancelled_) return;
      cancelled_ = true;
      events_.clear();
    }
    context_.TryCancel();
    if (thread_.joinable()) thread_.join();
    if (!finished_) {
      (void)reader_->Finish();
      finished_ = true;
    }
    ready_.notify_all();
  }

 private:
  void read_loop() {
    pb::WatchResponse response;
    while (reader_->Read(&response)) {
      std::vector<Event> batch;
      for (const auto& wire : response.event()) {
        auto e = event_from_wire(wire, types_);
        if (!e.ok()) {
          push({errored(e.error())});
          return;
        }
        batch.push_back(std::move(*e));
      }
      push(std::move(batch));
    }
    grpc::Status s = reader_->Finish();
    finished_ = true;
    std::lock_guard lock(mu_);
    if (!cancelled_) {
      events_.push_back(errored(s.ok() ? Error(ErrorKind::kUnavailable, "the server ended the watch")
                                       : call_error(s, context_)));
      ready_.notify_all();
    }
  }

  static Event errored(const Error& e) {
    return Event{EventType::kErrored, nullptr, nullptr, std::nullopt, std::make_shared<const Error>(e)};
  }

  void push(std::vector<Event> batch) {
    std::function<void()> notify;
    {
      std::lock_guard lock(mu_);
      if (cancelled_ || batch.empty()) return;
      const bool was_empty = events_.empty();
      for (auto& e : batch) events_.push_back(std::move(e));
      if (was_empty) notify = notify_;
    }
    ready_.notify_all();
    if (notify) notify();
  }

  const ResourceTypes& types_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<pb::WatchResponse>> reader_;
  std::thread thread_;
  bool finished_ = false;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Event> events_;  // guarded by mu_
  bool cancelled_ = false;    // guarded by mu_
  std::function<void()> notify_;  // guarded by mu_
};

}  // namespace

struct GrpcState::Impl {
  std::unique_ptr<pb::State::Stub> stub;
  const ResourceTypes& types;
  GrpcStateOptions options;

  // The deadline and the metadata every unary call carries.
  void prepare(grpc::ClientContext& ctx) const {
    ctx.set_deadline(std::chrono::system_clock::now() + options.deadline);
    for (const auto& [key, value] : options.metadata) ctx.AddMetadata(key, value);
  }

  Result<ResourcePtr> decode(const cosi::resource::Resource& wire) const {
    auto r = decode_resource(wire, types);
    if (!r.ok()) return r.error();
    return ResourcePtr(std::move(*r));
  }

  Result<WatchPtr> open(pb::WatchRequest request) {
    request.set_api_version(1);
    auto watch = std::make_unique<GrpcWatch>(*stub, std::move(request), types, options.metadata);
    if (auto s = watch->opened(std::chrono::steady_clock::now() + options.deadline); !s.ok()) return s.error();
    return WatchPtr(std::move(watch));
  }
};

GrpcState::GrpcState(std::shared_ptr<grpc::Channel> channel, const ResourceTypes& types, GrpcStateOptions options)
    : impl_(new Impl{pb::State::NewStub(channel), types, options}) {}

GrpcState::~GrpcState() = default;

Result<ResourcePtr> GrpcState::get(const Pointer& p) {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::GetRequest req;
  req.set_namespace_(p.ns.str());
  req.set_type(p.type.str());
  req.set_id(p.id);
  pb::GetResponse resp;
  grpc::Status s = impl_->stub->Get(&ctx, req, &resp);
  if (!s.ok()) return call_error(s, ctx);
  return impl_->decode(resp.resource());
}

Result<std::vector<ResourcePtr>> GrpcState::list(const Kind& kind, const ListOptions& options) {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::ListRequest req;
  req.set_namespace_(kind.ns.str());
  req.set_type(kind.type.str());
  label_queries_to_wire(options.label_queries, req.mutable_options()->mutable_label_query());
  if (options.id_query) req.mutable_options()->mutable_id_query()->set_regexp(options.id_query->pattern());
  auto reader = impl_->stub->List(&ctx, req);
  std::vector<ResourcePtr> out;
  pb::ListResponse resp;
  while (reader->Read(&resp)) {
    auto r = impl_->decode(resp.resource());
    if (!r.ok()) {
      ctx.TryCancel();
      (void)reader->Finish();
      return r.error();
    }
    out.push_back(std::move(*r));
  }
  grpc::Status s = reader->Finish();
  if (!s.ok()) return call_error(s, ctx);
  return out;
}

Result<ResourcePtr> GrpcState::create(ResourcePtr resource, const CreateOptions& options) {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::CreateRequest req;
  if (auto st = encode_resource(*resource, req.mutable_resource()); !st.ok()) return st.error();
  req.mutable_options()->set_owner(options.owner.str());
  pb::CreateResponse resp;
  grpc::Status s = impl_->stub->Create(&ctx, req, &resp);
  if (!s.ok()) return call_error(s, ctx);
  return impl_->decode(resp.resource());
}

Result<ResourcePtr> GrpcState::update(ResourcePtr resource, const UpdateOptions& options) {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::UpdateRequest req;
  if (auto st = encode_resource(*resource, req.mutable_new_resource()); !st.ok()) return st.error();
  req.mutable_options()->set_owner(options.owner.str());
  if (options.expected_phase) req.mutable_options()->set_expected_phase(std::string(to_string(*options.expected_phase)));
  pb::UpdateResponse resp;
  grpc::Status s = impl_->stub->Update(&ctx, req, &resp);
  if (!s.ok()) return call_error(s, ctx);
  return impl_->decode(resp.resource());
}

Status GrpcState::destroy(const Pointer& p, const DestroyOptions& options) {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::DestroyRequest req;
  req.set_namespace_(p.ns.str());
  req.set_type(p.type.str());
  req.set_id(p.id);
  req.mutable_options()->set_owner(options.owner.str());
  pb::DestroyResponse resp;
  grpc::Status s = impl_->stub->Destroy(&ctx, req, &resp);
  if (!s.ok()) return call_error(s, ctx);
  return {};
}

Result<WatchPtr> GrpcState::watch(const Pointer& p, const WatchOptions& options) {
  pb::WatchRequest req;
  req.set_namespace_(p.ns.str());
  req.set_type(p.type.str());
  req.set_id(p.id);
  req.mutable_options()->set_tail_events(options.tail_events);
  if (options.start_from_bookmark) req.mutable_options()->set_start_from_bookmark(options.start_from_bookmark->bytes());
  return impl_->open(std::move(req));
}

Result<WatchPtr> GrpcState::watch_kind(const Kind& kind, const WatchKindOptions& options) {
  pb::WatchRequest req;
  req.set_namespace_(kind.ns.str());
  req.set_type(kind.type.str());
  auto* o = req.mutable_options();
  o->set_bootstrap_contents(options.bootstrap_contents);
  o->set_tail_events(options.tail_events);
  if (options.start_from_bookmark) o->set_start_from_bookmark(options.start_from_bookmark->bytes());
  label_queries_to_wire(options.label_queries, o->mutable_label_query());
  if (options.id_query) o->mutable_id_query()->set_regexp(options.id_query->pattern());
  o->set_aggregated(true);
  return impl_->open(std::move(req));
}

}  // namespace cosi::api
