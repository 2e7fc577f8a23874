#include "api/front/fan_out.h"

#include <grpcpp/generic/generic_stub.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "api/front/reply_metadata.h"

namespace cosi::api::front {

namespace {

std::string to_string(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!buffer.Dump(&slices).ok()) return out;
  for (const auto& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

class FanOut final : public grpc::ServerGenericBidiReactor {
 public:
  FanOut(grpc::GenericCallbackServerContext* ctx, std::vector<FanOutTarget> targets)
      : method_(ctx->method()), targets_(std::move(targets)), calls_(targets_.size()) {
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "the call ended before its request"));
      return;
    }
    pending_ = targets_.size();
    {
      std::lock_guard lock(mu_);
      for (size_t i = 0; i < targets_.size(); ++i) {
        for (const auto& [key, value] : targets_[i].call.metadata) calls_[i].context.AddMetadata(key, value);
        if (targets_[i].call.deadline != std::chrono::system_clock::time_point::max()) {
          calls_[i].context.set_deadline(targets_[i].call.deadline);
        }
      }
    }
    for (size_t i = 0; i < targets_.size(); ++i) {
      grpc::GenericStub stub(targets_[i].call.channel);
      stub.UnaryCall(&calls_[i].context, method_, grpc::StubOptions(), &request_, &calls_[i].response,
                     [this, i](grpc::Status status) { call_done(i, std::move(status)); });
    }
  }

  void OnCancel() override {
    std::lock_guard lock(mu_);
    for (auto& call : calls_) call.context.TryCancel();
  }

  void OnDone() override { delete this; }

 private:
  struct Call {
    grpc::ClientContext context;
    grpc::ByteBuffer response;
    grpc::Status status;
  };

  void call_done(size_t i, grpc::Status status) {
    {
      std::lock_guard lock(mu_);
      calls_[i].status = std::move(status);
    }
    if (pending_.fetch_sub(1) != 1) return;
    std::string combined;
    for (size_t k = 0; k < calls_.size(); ++k) {
      const std::string& node = targets_[k].node;
      if (!calls_[k].status.ok()) {
        combined += error_reply(node, calls_[k].status);
        continue;
      }
      auto stamped = stamp_hostname(to_string(calls_[k].response), node);
      combined += stamped ? *stamped
                          : error_reply(node, grpc::Status(grpc::StatusCode::INTERNAL, "the node's reply is not a protobuf message"));
    }
    grpc::Slice slice(combined);
    reply_ = grpc::ByteBuffer(&slice, 1);
    StartWriteAndFinish(&reply_, grpc::WriteOptions(), grpc::Status::OK);
  }

  const std::string method_;
  std::vector<FanOutTarget> targets_;
  std::vector<Call> calls_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer reply_;
  std::atomic<size_t> pending_{0};
  std::mutex mu_;
};

}  // namespace

grpc::ServerGenericBidiReactor* start_fan_out(grpc::GenericCallbackServerContext* ctx, std::vector<FanOutTarget> targets) {
  return new FanOut(ctx, std::move(targets));
}

}  // namespace cosi::api::front
