#include "test/conformance/runtime/runtime_env.h"

#include <condition_variable>
#include <mutex>
#include <sstream>

#include "runtime/exec/manual.h"
#include "runtime/exec/thread_pool.h"
#include "runtime/state/memory_state.h"
#include "runtime/state/state_ops.h"

namespace cosi::testing {
namespace {

constexpr std::string_view kOwner = "test";

// Forwards to a MemoryState and signals every write (and, through bump(), every reconcile).
class SignallingState final : public State {
 public:
  Result<ResourcePtr> get(const Pointer& p) override { return inner_.get(p); }
  Result<std::vector<ResourcePtr>> list(const Kind& k, const ListOptions& o = {}) override {
    return inner_.list(k, o);
  }
  Result<ResourcePtr> create(ResourcePtr r, const CreateOptions& o = {}) override {
    return signal(inner_.create(std::move(r), o));
  }
  Result<ResourcePtr> update(ResourcePtr r, const UpdateOptions& o = {}) override {
    return signal(inner_.update(std::move(r), o));
  }
  Status destroy(const Pointer& p, const DestroyOptions& o = {}) override {
    auto s = inner_.destroy(p, o);
    bump();
    return s;
  }
  Result<WatchPtr> watch(const Pointer& p, const WatchOptions& o = {}) override { return inner_.watch(p, o); }
  Result<WatchPtr> watch_kind(const Kind& k, const WatchKindOptions& o = {}) override {
    return inner_.watch_kind(k, o);
  }

  // Counts as progress: settle() re-checks its condition.
  void bump() {
    {
      std::lock_guard lock(mu_);
      ++generation_;
    }
    changed_.notify_all();
  }

  // Waits until done() holds; re-checks after every write or reconcile. False at the deadline.
  bool wait(const std::function<bool()>& done, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mu_);
    while (true) {
      std::uint64_t seen = generation_;
      lock.unlock();
      if (done()) return true;
      lock.lock();
      if (!changed_.wait_until(lock, deadline, [&] { return generation_ != seen; })) return done();
    }
  }

 private:
  Result<ResourcePtr> signal(Result<ResourcePtr> r) {
    bump();
    return r;
  }

  MemoryState inner_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::uint64_t generation_ = 0;
};

class ManualEnv final : public RuntimeEnv {
 public:
  ManualEnv() {
    RuntimeOptions options;
    options.backoff.random = [] { return 0.5; };
    runtime_ = std::make_unique<Runtime>(state_, executor_, clock_, std::move(options));
  }
  ~ManualEnv() override {
    (void)runtime_->stop(Duration::zero());
    runtime_.reset();
    executor_.run_until_idle();
  }
  State& state() override { return state_; }
  Runtime& runtime() override { return *runtime_; }
  Status start() override {
    auto s = runtime_->start();
    executor_.run_until_idle();
    return s;
  }
  bool settle(const std::function<bool()>& done, Duration time) override {
    executor_.run_until_idle();
    if (time > Duration::zero()) clock_.advance(time);
    return done();
  }
  Duration first_backoff() const override { return std::chrono::milliseconds(500); }
  bool deterministic() const override { return true; }

 private:
  SignallingState state_;
  ManualExecutor executor_;
  ManualClock clock_{executor_};
  std::unique_ptr<Runtime> runtime_;
};

class ThreadedEnv final : public RuntimeEnv {
 public:
  ThreadedEnv() : pool_(2) {
    RuntimeOptions options;
    options.backoff.initial = std::chrono::milliseconds(20);
    options.backoff.max = std::chrono::milliseconds(200);
    options.on_reconcile = [this](const std::string&, ReconcileResult::Kind) { state_.bump(); };
    runtime_ = std::make_unique<Runtime>(state_, pool_, pool_, std::move(options));
  }
  ~ThreadedEnv() override {
    (void)runtime_->stop(std::chrono::seconds(10));
    pool_.stop();
    runtime_.reset();
  }
  State& state() override { return state_; }
  Runtime& runtime() override { return *runtime_; }
  Status start() override { return runtime_->start(); }
  bool settle(const std::function<bool()>& done, Duration time) override {
    return state_.wait(done, std::chrono::steady_clock::now() + std::chrono::seconds(10) + time);
  }
  Duration first_backoff() const override { return std::chrono::milliseconds(20); }
  bool deterministic() const override { return false; }

 private:
  SignallingState state_;
  ThreadPool pool_;
  std::unique_ptr<Runtime> runtime_;
};

}  // namespace

// Creates the resource, or replaces the stored one's spec and labels (keeping its finalizers,
// which controllers may hold). Retries when a controller wrote in between.
Result<ResourcePtr> RuntimeEnv::put(MutableResourcePtr resource) {
  while (true) {
    auto current = state().get(resource->metadata().pointer());
    if (!current.ok()) {
      auto created = state().create(resource->clone(), {kOwner});
      if (created.ok() || !created.error().is(ErrorKind::kAlreadyExists)) return created;
      continue;
    }
    MutableResourcePtr next = resource->clone();
    const Metadata& md = (*current)->metadata();
    next->mutable_metadata().set_version(md.version());
    next->mutable_metadata().set_phase(md.phase());
    next->mutable_metadata().mutable_finalizers() = md.finalizers();
    auto updated = state().update(std::move(next), {kOwner, std::nullopt});
    if (updated.ok() || !updated.error().is(ErrorKind::kConflict)) return updated;
  }
}

Status RuntimeEnv::remove(const Pointer& pointer) {
  auto ready = teardown(state(), pointer, kOwner);
  if (!ready.ok()) return ready.error();
  if (*ready) return state().destroy(pointer, {kOwner});
  return {};
}

bool RuntimeEnv::exists(const Pointer& pointer) { return state().get(pointer).ok(); }

ResourcePtr RuntimeEnv::get(const Pointer& pointer) {
  auto r = state().get(pointer);
  return r.ok() ? *r : nullptr;
}

std::size_t RuntimeEnv::count(const Kind& kind) {
  auto list = state().list(kind);
  return list.ok() ? list->size() : 0;
}

double RuntimeEnv::metric(const std::string& line_prefix) {
  std::istringstream text(runtime().metrics().render());
  std::string line;
  while (std::getline(text, line)) {
    if (line.rfind(line_prefix + " ", 0) == 0) return std::stod(line.substr(line_prefix.size() + 1));
  }
  return 0;
}

std::unique_ptr<RuntimeEnv> make_manual_env() { return std::make_unique<ManualEnv>(); }
std::unique_ptr<RuntimeEnv> make_threaded_env() { return std::make_unique<ThreadedEnv>(); }

}  // namespace cosi::testing
