#include "runtime/base/error.h"

#include <ostream>

namespace cosi {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNotFound: return "not found";
    case ErrorKind::kAlreadyExists: return "already exists";
    case ErrorKind::kConflict: return "conflict";
    case ErrorKind::kOwnerConflict: return "owner conflict";
    case ErrorKind::kPhaseConflict: return "phase conflict";
    case ErrorKind::kPendingFinalizers: return "pending finalizers";
    case ErrorKind::kInvalidBookmark: return "invalid bookmark";
    case ErrorKind::kInvalidArgument: return "invalid argument";
    case ErrorKind::kPermissionDenied: return "permission denied";
    case ErrorKind::kUnavailable: return "unavailable";
    case ErrorKind::kUnimplemented: return "unimplemented";
    case ErrorKind::kDeadlineExceeded: return "deadline exceeded";
    case ErrorKind::kCancelled: return "cancelled";
    case ErrorKind::kUnauthenticated: return "unauthenticated";
    case ErrorKind::kFailedPrecondition: return "failed precondition";
    case ErrorKind::kInternal: return "internal";
  }
  return "unknown";
}

std::string Error::to_string() const {
  std::string out(cosi::to_string(kind_));
  out += ": ";
  out += message_;
  return out;
}

std::ostream& operator<<(std::ostream& os, const Error& error) { return os << error.to_string(); }

}  // namespace cosi
