// MachineService.Logs: a service's log ring, the last lines then (with follow) what comes, as
// common.Data chunks of whole lines. A follow holds a thread of its own that waits on the ring
// a quarter second at a time, so a client that goes frees it within that.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "api/machine_server.h"

namespace cosi::api {
namespace {

using namespace std::chrono_literals;
constexpr std::size_t kChunk = 64 * 1024;

class LogStream final : public grpc::ServerWriteReactor<common::Data> {
 public:
  LogStream(controllers::LogRing& ring, int tail_lines, bool follow, controllers::ServiceLogs& logs)
      : ring_(ring), tail_(tail_lines), follow_(follow), logs_(logs) {
    if (follow_) logs_.follower_started();
    thread_ = std::thread([this] { run(); });
  }

  void OnWriteDone(bool ok) override {
    {
      std::lock_guard lock(mu_);
      writing_ = false;
      if (!ok) gone_ = true;
    }
    cv_.notify_all();
  }
  void OnCancel() override {
    {
      std::lock_guard lock(mu_);
      gone_ = true;
    }
    cv_.notify_all();
  }
  void OnDone() override {
    thread_.join();
    if (follow_) logs_.follower_ended();
    delete this;
  }

 private:
  // Writes the lines in chunks; false once the client has gone.
  bool send(const std::vector<std::string>& lines) {
    std::size_t i = 0;
    while (i < lines.size()) {
      std::string bytes;
      while (i < lines.size() && (bytes.empty() || bytes.size() + lines[i].size() < kChunk)) bytes += lines[i++] + "\n";
      std::unique_lock lock(mu_);
      if (gone_) return false;
      message_.set_bytes(std::move(bytes));
      writing_ = true;
      StartWrite(&message_);
      cv_.wait(lock, [&] { return !writing_; });
      if (gone_) return false;
    }
    return true;
  }

  bool gone() {
    std::lock_guard lock(mu_);
    return gone_;
  }

  void run() {
    auto last = ring_.tail(tail_);
    bool open = send(last.lines);
    uint64_t cursor = last.next;
    while (open && follow_ && !gone()) {
      auto more = ring_.read_from(cursor, std::chrono::steady_clock::now() + 250ms);
      cursor = more.next;
      open = send(more.lines);
    }
    Finish(gone() ? grpc::Status(grpc::StatusCode::CANCELLED, "the client went away") : grpc::Status::OK);
  }

  controllers::LogRing& ring_;
  const int tail_;
  const bool follow_;
  controllers::ServiceLogs& logs_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool writing_ = false;  // guarded by mu_
  bool gone_ = false;     // guarded by mu_
  common::Data message_;
  std::thread thread_;
};

struct Refused final : public grpc::ServerWriteReactor<common::Data> {
  explicit Refused(grpc::Status s) { Finish(std::move(s)); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerWriteReactor<common::Data>* MachineServer::Logs(grpc::CallbackServerContext*, const machine::LogsRequest* req) {
  if (logs_ == nullptr) return new Refused(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "this node keeps no service logs"));
  if ((!req->namespace_().empty() && req->namespace_() != "system") || req->driver() == common::CRI) {
    return new Refused(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                    "only the logs of the services machined runs (namespace \"system\"): there are no containers here"));
  }
  auto* ring = logs_->find(req->id());
  if (ring == nullptr) {
    std::string known;
    for (const auto& s : logs_->services()) known += (known.empty() ? "" : ", ") + s;
    return new Refused(grpc::Status(grpc::StatusCode::NOT_FOUND, "no log of service \"" + req->id() + "\" on this node (it has: " + known + ")"));
  }
  return new LogStream(*ring, req->tail_lines(), req->follow(), *logs_);
}

}  // namespace cosi::api
