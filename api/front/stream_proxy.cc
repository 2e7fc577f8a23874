#include "api/front/stream_proxy.h"

#include <atomic>
#include <deque>
#include <mutex>
#include <optional>

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
//
// Backend messages are read ahead into a short queue while the previous one is on its way to
// the caller, so a long stream (a List of thousands of resources) moves at the pace of the
// slower side rather than of both sides' latencies added per message; writes the queue will
// follow at once carry the buffer hint, so they leave in batches.
class StreamProxy final : public grpc::ServerGenericBidiReactor {
 public:
  StreamProxy(grpc::GenericCallbackServerContext* ctx, BackendCall call)
      : ctx_(ctx), stub_(std::move(call.channel)), backend_(this), forwarded_to_(std::move(call.forwarded_to)) {
    for (const auto& [key, value] : call.metadata) client_ctx_.AddMetadata(key, value);
    if (call.deadline != std::chrono::system_clock::time_point::max()) client_ctx_.set_deadline(call.deadline);
    stub_.PrepareBidiStreamingCall(&client_ctx_, ctx->method(), grpc::StubOptions(), &backend_);
    backend_.AddMultipleHolds(2);
    reading_ = true;
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
    std::unique_lock lock(mu_);
    replying_ = false;
    if (!ok) {  // the caller is gone
      caller_gone_ = true;
      queue_.clear();
      lock.unlock();
      client_ctx_.TryCancel();
      if (!reading_) release_read_hold();
      finish_if_drained();
      return;
    }
    lock.unlock();
    pump();
  }

  void OnCancel() override { client_ctx_.TryCancel(); }

  void OnDone() override { unref(); }

 private:
  static constexpr size_t kReadAhead = 64;

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
    // The backend may close the moment the lock is let go, and its status be finished to the
    // caller: a read started on a call already done would touch a call gRPC has freed. Until
    // StartRead returns, finish_if_drained leaves the call open.
    ++starting_read_;
    lock.unlock();
    StartRead(&from_caller_);
    lock.lock();
    --starting_read_;
    lock.unlock();
    finish_if_drained();
  }

  void backend_read_done(bool ok) {
    std::unique_lock lock(mu_);
    reading_ = false;
    if (ok && !caller_gone_) {
      queue_.push_back(std::move(from_backend_));
      from_backend_.Clear();
      lock.unlock();
      pump();
      return;
    }
    backend_closed_ = true;
    const bool release_write = write_hold_ && !writing_;
    if (release_write) write_hold_ = false;
    lock.unlock();
    if (release_write) backend_.RemoveHold();
    release_read_hold();
  }

  // Starts what can start: the next reply to the caller, the next read from the backend.
  void pump() {
    std::unique_lock lock(mu_);
    const grpc::ByteBuffer* reply = nullptr;
    grpc::WriteOptions options;
    if (!replying_ && !queue_.empty()) {
      to_caller_ = std::move(queue_.front());
      queue_.pop_front();
      replying_ = true;
      reply = &to_caller_;
      // Never on the first message: it carries the initial metadata, and a hinted first write
      // is held back for good (grpc/grpc#34231).
      if (!queue_.empty() && replied_any_) options.set_buffer_hint();
      replied_any_ = true;
    }
    const bool read = !reading_ && !backend_closed_ && !caller_gone_ && queue_.size() < kReadAhead;
    if (read) reading_ = true;
    lock.unlock();
    if (reply != nullptr) StartWrite(reply, options);
    if (read) backend_.StartRead(&from_backend_);
    if (reply == nullptr) finish_if_drained();
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
    grpc::Status final_status = status;
    // No trailers at all: the status was made here, by a connection that failed.
    if (!forwarded_to_.empty() && trailers.empty() &&
        (status.error_code() == grpc::StatusCode::UNAVAILABLE || status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)) {
      final_status = grpc::Status(status.error_code(),
                                  "node " + forwarded_to_ + " is unreachable from this node: " + status.error_message());
    }
    {
      std::lock_guard lock(mu_);
      status_ = std::move(final_status);
    }
    finish_if_drained();
    unref();
  }

  // The caller gets the backend's status once every message read before it has been written.
  void finish_if_drained() {
    std::unique_lock lock(mu_);
    if (!status_ || finished_ || replying_ || starting_read_ > 0 || !queue_.empty()) return;
    finished_ = true;
    grpc::Status status = *status_;
    lock.unlock();
    Finish(status);
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
  grpc::ByteBuffer to_caller_;
  const std::string forwarded_to_;
  std::atomic<int> refs_{2};  // the caller's call and the backend's

  std::mutex mu_;
  bool write_hold_ = true;
  bool read_hold_ = true;
  bool writing_ = false;         // a caller message is on its way to the backend
  bool backend_closed_ = false;  // the backend sends no more
  bool reading_ = false;         // a backend read is outstanding
  bool replying_ = false;        // a backend message is on its way to the caller
  bool caller_gone_ = false;     // a reply failed: the caller is gone
  bool finished_ = false;
  bool replied_any_ = false;     // the first reply (with the initial metadata) has been started
  int starting_read_ = 0;       // a caller read is being started outside the lock
  std::deque<grpc::ByteBuffer> queue_;  // read from the backend, not yet written to the caller
  std::optional<grpc::Status> status_;  // the backend's, once it is done
};

}  // namespace

grpc::ServerGenericBidiReactor* start_stream_proxy(grpc::GenericCallbackServerContext* ctx, BackendCall backend) {
  return new StreamProxy(ctx, std::move(backend));
}

grpc::ServerGenericBidiReactor* reject_call(grpc::Status status) { return new Rejection(std::move(status)); }

}  // namespace cosi::api::front
