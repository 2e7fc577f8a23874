#include "runtime/testing/harness.h"

#include "runtime/state/state_ops.h"

namespace cosi::testing {

Harness::Harness() {
  RuntimeOptions options;
  options.logger = Logger([this](const LogRecord& r) {
    std::lock_guard lock(logs_mu_);
    logs_.push_back(r);
  });
  options.backoff.random = [] { return 0.5; };  // no jitter: delays are exact
  runtime_ = std::make_unique<Runtime>(faulty_, executor_, clock_, std::move(options));
}

Harness::~Harness() {
  (void)runtime_->stop(Duration::zero());
  runtime_.reset();
  executor_.run_until_idle();  // let queued tasks see the stop and release the runtime
}

Status Harness::start() {
  auto s = runtime_->start();
  run_until_idle();
  return s;
}

Result<ResourcePtr> Harness::put(MutableResourcePtr resource, Atom owner) {
  auto current = store_.get(resource->metadata().pointer());
  Result<ResourcePtr> result = Error(ErrorKind::kInternal, "unset");
  if (current.ok()) {
    resource->mutable_metadata().set_version((*current)->metadata().version());
    resource->mutable_metadata().mutable_finalizers() = (*current)->metadata().finalizers();
    result = store_.update(std::move(resource), {owner, std::nullopt});
  } else {
    result = store_.create(std::move(resource), {owner});
  }
  run_until_idle();
  return result;
}

Status Harness::remove(const Pointer& pointer, Atom owner) {
  auto ready = teardown(store_, pointer, owner);
  run_until_idle();
  if (!ready.ok()) return ready.error();
  auto s = store_.destroy(pointer, {owner});
  run_until_idle();
  return s;
}

Status Harness::expect(const Pointer& pointer,
                       const std::function<bool(const ResourcePtr&)>& predicate) {
  auto r = store_.get(pointer);
  if (!r.ok()) return Error(ErrorKind::kNotFound, "expected " + pointer.to_string() + " to exist: " + r.error().message());
  if (predicate && !predicate(*r)) {
    return Error(ErrorKind::kInvalidArgument,
                 "resource " + pointer.to_string() + " (version " + (*r)->metadata().version().to_string() +
                     ") does not satisfy the expectation");
  }
  return {};
}

Status Harness::expect_absent(const Pointer& pointer) {
  auto r = store_.get(pointer);
  if (r.ok()) {
    return Error(ErrorKind::kAlreadyExists, "expected " + pointer.to_string() + " to be absent; it is at version " +
                                                (*r)->metadata().version().to_string());
  }
  return {};
}

Status Harness::expect_count(const Kind& kind, std::size_t count) {
  auto list = store_.list(kind);
  if (!list.ok()) return list.error();
  if (list->size() != count) {
    return Error(ErrorKind::kInvalidArgument, "expected " + std::to_string(count) + " of " + kind.to_string() +
                                                  ", found " + std::to_string(list->size()));
  }
  return {};
}

std::vector<LogRecord> Harness::logs() const {
  std::lock_guard lock(logs_mu_);
  return logs_;
}

}  // namespace cosi::testing
