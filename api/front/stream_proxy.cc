#include "api/front/stream_proxy.h"

#include <atomic>
#include <mutex>

namespace cosi::api::front {

namespace {

class Rejection final : public grpc::ServerGenericBidiReactor {
 public:
  explicit Rejection(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

// The relay. Two holds keep the backend call alive while we may still start operations on it
// from the caller's side: the write hold until no more caller messages will be written, the
// read hold until no more backend messages will be read. Every decision that races between
// the two sides is taken under mu_.
class StreamProxy final : public grpc::ServerGenericBidiReactor {
 public:
  StreamProxy(grpc::GenericCallbackServerContext* ctx, BackendCall call)
      : ctx_(ctx), stub_(std::move(call.channel)), backend_(this), forwarded_to_(std::move(call.forwarded_to)) {
    for (const auto& [key, value] : call.metadata) client_ctx_.AddMetadata(key, value);
    if (call.deadline != std::chrono::system_clock::time_point::max()) client_ctx_.set_deadline(call.deadline);
    stub_.PrepareBidiStreamingCall(&client_ctx_, ctx->method(), grpc::StubOptions(), &backend_);
    backend_.AddMultipleHolds(2);
    backend_.StartRead(&from_backend_);
    backend_.StartCall();
    StartRead(&from_caller_);
  }

  // Caller side.
  void OnReadDone(bool ok) override {
    std::unique_lock lock(mu_);
    if (!write_hold_) return;  // the backend is gone; the caller's messages go nowhere
    if (ok) {
      writing_ = true;
      lock.unlock();
      backend_.StartWrite(&from_caller_);
      return;
    }
    write_hold_ = false;
    lock.unlock();
    backend_.StartWritesDone();
    backend_.RemoveHold();
  }

  void OnWriteDone(bool ok) override {
    if (ok) {
      backend_.StartRead(&from_backend_);
      return;
    }
    client_ctx_.TryCancel();  // the caller is gone
    release_read_hold();
  }

  void OnCancel() override { client_ctx_.TryCancel(); }

  void OnDone() override { unref(); }

 private:
  // Backend side.
  class Backend final : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
   public:
    explicit Backend(StreamProxy* p) : p_(p) {}
    void OnWriteDone(bool ok) override { p_->backend_write_done(ok); }
    void OnReadDone(bool ok) override { p_->backend_read_done(ok); }
    void OnDone(const grpc::Status& s) override { p_->backend_done(s); }

   private:
    StreamProxy* p_;
  };

  void backend_write_done(bool ok) {
    std::unique_lock lock(mu_);
    writing_ = false;
    if (!ok || backend_closed_) {
      write_hold_ = false;
      lock.unlock();
      backend_.RemoveHold();
      return;
    }
    lock.unlock();
    StartRead(&from_caller_);
  }

  void backend_read_done(bool ok) {
    if (ok) {
      StartWrite(&from_backend_);
      return;
    }
    std::unique_lock lock(mu_);
    backend_closed_ = true;
    const bool release_write = write_hold_ && !writing_;
    if (release_write) write_hold_ = false;
    lock.unlock();
    if (release_write) backend_.RemoveHold();
    release_read_hold();
  }

  void release_read_hold() {
    std::unique_lock lock(mu_);
    if (!read_hold_) return;
    read_hold_ = false;
    lock.unlock();
    backend_.RemoveHold();
  }

  void backend_done(const grpc::Status& status) {
    const auto& trailers = client_ctx_.GetServerTrailingMetadata();
    for (const auto& [key, value] : trailers) {
      std::string k(key.data(), key.size());
      if (k.starts_with("grpc-")) continue;
      ctx_->AddTrailingMetadata(k, std::string(value.data(), value.size()));
    }
    // No trailers at all: the status was made here, by a connection that failed.
    if (!forwarded_to_.empty() && trailers.empty() &&
        (status.error_code() == grpc::StatusCode::UNAVAILABLE || status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)) {
      Finish(grpc::Status(status.error_code(),
                          "node " + forwarded_to_ + " is unreachable from this node: " + status.error_message()));
    } else {
      Finish(status);
    }
    unref();
  }

  void unref() {
    if (refs_.fetch_sub(1) == 1) delete this;
  }

  grpc::GenericCallbackServerContext* ctx_;
  grpc::ClientContext client_ctx_;
  grpc::GenericStub stub_;
  Backend backend_;
  grpc::ByteBuffer from_caller_;
  grpc::ByteBuffer from_backend_;
  const std::string forwarded_to_;
  std::atomic<int> refs_{2};  // the caller's call and the backend's

  std::mutex mu_;
  bool write_hold_ = true;
  bool read_hold_ = true;
  bool writing_ = false;         // a caller message is on its way to the backend
  bool backend_closed_ = false;  // the backend sends no more
};

}  // namespace

grpc::ServerGenericBidiReactor* start_stream_proxy(grpc::GenericCallbackServerContext* ctx, BackendCall backend) {
  return new StreamProxy(ctx, std::move(backend));
}

grpc::ServerGenericBidiReactor* reject_call(grpc::Status status) { return new Rejection(std::move(status)); }

}  // namespace cosi::api::front
