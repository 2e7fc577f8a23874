// Errors to gRPC status codes and back, in one place (shared/PROTOCOL.md §1):
//
//   NotFound → NOT_FOUND           AlreadyExists → ALREADY_EXISTS
//   OwnerConflict → PERMISSION_DENIED                Conflict (version) → FAILED_PRECONDITION
//   PhaseConflict → INVALID_ARGUMENT                 PendingFinalizers → FAILED_PRECONDITION
//   InvalidBookmark → FAILED_PRECONDITION            Unimplemented → UNIMPLEMENTED ...
//
// Several kinds share a code, so the server also names the kind in trailing metadata
// (`cosi-error-kind`); our own client reads it back exactly, other clients see the code.
#pragma once

#include <grpcpp/grpcpp.h>

#include <map>
#include <string>

#include "runtime/base/error.h"

namespace cosi::api {

inline constexpr char kErrorKindKey[] = "cosi-error-kind";

grpc::StatusCode status_code(ErrorKind kind);
grpc::Status to_status(const Error& error);
// The status for `error`, with its kind in the call's trailing metadata.
grpc::Status fail(grpc::ServerContextBase* context, const Error& error);

// The Error for a failed call; `trailers` may name the exact kind.
Error from_status(const grpc::Status& status,
                  const std::multimap<grpc::string_ref, grpc::string_ref>& trailers = {});

}  // namespace cosi::api
