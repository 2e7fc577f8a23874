#include "api/status.h"

namespace cosi::api {

grpc::StatusCode status_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNotFound: return grpc::StatusCode::NOT_FOUND;
    case ErrorKind::kAlreadyExists: return grpc::StatusCode::ALREADY_EXISTS;
    case ErrorKind::kConflict: return grpc::StatusCode::FAILED_PRECONDITION;
    case ErrorKind::kOwnerConflict: return grpc::StatusCode::PERMISSION_DENIED;
    case ErrorKind::kPhaseConflict: return grpc::StatusCode::INVALID_ARGUMENT;
    case ErrorKind::kPendingFinalizers: return grpc::StatusCode::FAILED_PRECONDITION;
    case ErrorKind::kInvalidBookmark: return grpc::StatusCode::FAILED_PRECONDITION;
    case ErrorKind::kInvalidArgument: return grpc::StatusCode::INVALID_ARGUMENT;
    case ErrorKind::kPermissionDenied: return grpc::StatusCode::PERMISSION_DENIED;
    case ErrorKind::kUnavailable: return grpc::StatusCode::UNAVAILABLE;
    case ErrorKind::kUnimplemented: return grpc::StatusCode::UNIMPLEMENTED;
    case ErrorKind::kDeadlineExceeded: return grpc::StatusCode::DEADLINE_EXCEEDED;
    case ErrorKind::kCancelled: return grpc::StatusCode::CANCELLED;
    case ErrorKind::kUnauthenticated: return grpc::StatusCode::UNAUTHENTICATED;
    case ErrorKind::kFailedPrecondition: return grpc::StatusCode::FAILED_PRECONDITION;
    case ErrorKind::kInternal: return grpc::StatusCode::INTERNAL;
  }
  return grpc::StatusCode::UNKNOWN;
}

grpc::Status to_status(const Error& error) { return grpc::Status(status_code(error.kind()), error.message()); }

grpc::Status fail(grpc::ServerContextBase* context, const Error& error) {
  if (context != nullptr) context->AddTrailingMetadata(kErrorKindKey, std::string(to_string(error.kind())));
  return to_status(error);
}

Error from_status(const grpc::Status& status, const std::multimap<grpc::string_ref, grpc::string_ref>& trailers) {
  if (auto it = trailers.find(kErrorKindKey); it != trailers.end()) {
    std::string_view named(it->second.data(), it->second.size());
    for (int k = 0; k <= static_cast<int>(ErrorKind::kInternal); ++k) {
      if (to_string(static_cast<ErrorKind>(k)) == named) return Error(static_cast<ErrorKind>(k), status.error_message());
    }
  }
  ErrorKind kind = ErrorKind::kInternal;
  switch (status.error_code()) {
    case grpc::StatusCode::NOT_FOUND: kind = ErrorKind::kNotFound; break;
    case grpc::StatusCode::ALREADY_EXISTS: kind = ErrorKind::kAlreadyExists; break;
    case grpc::StatusCode::FAILED_PRECONDITION: kind = ErrorKind::kConflict; break;
    case grpc::StatusCode::PERMISSION_DENIED: kind = ErrorKind::kPermissionDenied; break;
    case grpc::StatusCode::INVALID_ARGUMENT: kind = ErrorKind::kInvalidArgument; break;
    case grpc::StatusCode::UNAVAILABLE: kind = ErrorKind::kUnavailable; break;
    case grpc::StatusCode::UNIMPLEMENTED: kind = ErrorKind::kUnimplemented; break;
    case grpc::StatusCode::DEADLINE_EXCEEDED: kind = ErrorKind::kDeadlineExceeded; break;
    case grpc::StatusCode::CANCELLED: kind = ErrorKind::kCancelled; break;
    case grpc::StatusCode::UNAUTHENTICATED: kind = ErrorKind::kUnauthenticated; break;
    default: break;
  }
  return Error(kind, status.error_message());
}

}  // namespace cosi::api
