// ReconcileResult: what a reconcile tells the runtime, one of four and nothing in between
// (no "requeue with an error", no "error but also done"):
//
//   return ReconcileResult::done();                          // success; backoff resets
//   return ReconcileResult::requeue_after(std::chrono::seconds(30));  // success, look again later
//   return ReconcileResult::retry(error);        // failed; try again with per-key backoff
//   return ReconcileResult::terminal(error);     // failed; do not retry until an input changes
//
// An exception thrown from reconcile is treated as a crash: logged, counted, retried with
// backoff.
#pragma once

#include <optional>
#include <string_view>

#include "runtime/base/error.h"
#include "runtime/exec/clock.h"

namespace cosi {

class ReconcileResult {
 public:
  enum class Kind { kDone, kRequeueAfter, kRetry, kTerminal };

  static ReconcileResult done() { return ReconcileResult(Kind::kDone); }
  static ReconcileResult requeue_after(Duration after) {
    ReconcileResult r(Kind::kRequeueAfter);
    r.after_ = after;
    return r;
  }
  static ReconcileResult retry(Error error) {
    ReconcileResult r(Kind::kRetry);
    r.error_ = std::move(error);
    return r;
  }
  static ReconcileResult terminal(Error error) {
    ReconcileResult r(Kind::kTerminal);
    r.error_ = std::move(error);
    return r;
  }

  Kind kind() const { return kind_; }
  bool ok() const { return kind_ == Kind::kDone || kind_ == Kind::kRequeueAfter; }
  Duration after() const { return after_; }
  const Error& error() const { return *error_; }

 private:
  explicit ReconcileResult(Kind kind) : kind_(kind) {}

  Kind kind_;
  Duration after_{};
  std::optional<Error> error_;
};

std::string_view to_string(ReconcileResult::Kind kind);

}  // namespace cosi
