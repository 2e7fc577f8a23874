// Error: a failure as a value. A kind a caller can branch on, and a message a person can
// read that names the resource and what was expected.
//
//   Error e = Error(ErrorKind::kNotFound, "resource Members.cluster.talos.dev(cluster/n1) doesn't exist");
//   if (e.kind() == ErrorKind::kNotFound) { ... }
//   std::cerr << e;   // "not found: resource Members.cluster.talos.dev(cluster/n1) doesn't exist"
//
// The gRPC layer maps kinds to status codes in one place; nothing below it knows about gRPC.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

namespace cosi {

enum class ErrorKind {
  kNotFound,
  kAlreadyExists,
  kConflict,           // version mismatch on update
  kOwnerConflict,      // the caller is not the resource's owner
  kPhaseConflict,      // the stored phase is not the expected one
  kPendingFinalizers,  // destroy while finalizers remain
  kInvalidBookmark,
  kInvalidArgument,
  kPermissionDenied,
  kUnavailable,
  kUnimplemented,
  kDeadlineExceeded,
  kCancelled,
  kUnauthenticated,     // the caller could not be identified (no or a bad certificate)
  kFailedPrecondition,  // the node is not in a state to do this (e.g. maintenance mode)
  kInternal,            // keep last
};

std::string_view to_string(ErrorKind kind);

class Error {
 public:
  Error(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}

  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }
  bool is(ErrorKind kind) const { return kind_ == kind; }

  // "<kind>: <message>"
  std::string to_string() const;

  friend bool operator==(const Error&, const Error&) = default;

 private:
  ErrorKind kind_;
  std::string message_;
};

std::ostream& operator<<(std::ostream& os, const Error& error);

}  // namespace cosi
