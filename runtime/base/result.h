// Result<T>: a value or an Error (g++ 12 has no std::expected). Status is Result<void>.
//
//   Result<ResourcePtr> r = state.get(pointer);
//   if (!r.ok()) return r.error();          // an Error converts into any Result<U>
//   use(*r);
//
//   Status s = state.destroy(pointer);
//   if (!s.ok() && s.error().is(ErrorKind::kNotFound)) { ... }
//
// Calling value() on an error is a programming mistake and aborts with the error printed.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "runtime/base/error.h"

namespace cosi {

namespace detail {
[[noreturn]] void abort_on_error_access(const Error& error);
[[noreturn]] void abort_on_value_access();
}  // namespace detail

template <class T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::decay_t<T>, Error>, "Result<Error> is meaningless");

 public:
  Result(const T& value) : v_(std::in_place_index<0>, value) {}
  Result(T&& value) : v_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}
  template <class U>
    requires(std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, T> &&
             !std::is_same_v<std::decay_t<U>, Error>)
  Result(U&& value) : v_(std::in_place_index<0>, std::forward<U>(value)) {}

  bool ok() const { return v_.index() == 0; }

  T& value() & {
    check();
    return std::get<0>(v_);
  }
  const T& value() const& {
    check();
    return std::get<0>(v_);
  }
  // By value, so `for (auto& x : *f())` over a temporary result does not dangle.
  T value() && {
    check();
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const {
    if (ok()) detail::abort_on_value_access();
    return std::get<1>(v_);
  }

 private:
  void check() const {
    if (!ok()) detail::abort_on_error_access(std::get<1>(v_));
  }

  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}

  bool ok() const { return !error_.has_value(); }
  const Error& error() const {
    if (ok()) detail::abort_on_value_access();
    return *error_;
  }

 private:
  std::optional<Error> error_;
};

using Status = Result<void>;

}  // namespace cosi
