#include "runtime/controller/reconcile_result.h"

namespace cosi {

std::string_view to_string(ReconcileResult::Kind kind) {
  switch (kind) {
    case ReconcileResult::Kind::kDone: return "done";
    case ReconcileResult::Kind::kRequeueAfter: return "requeue_after";
    case ReconcileResult::Kind::kRetry: return "retry";
    case ReconcileResult::Kind::kTerminal: return "terminal";
  }
  return "unknown";
}

}  // namespace cosi
