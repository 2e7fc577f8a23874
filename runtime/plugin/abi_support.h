// Helpers both sides of the plugin ABI use to move C++ values through its C types: views of
// strings, sinks that copy into strings, status codes from and to Errors, pointers, key lists.
// Internal to the host loader and the plugin SDK.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/result.h"
#include "runtime/plugin/abi.h"
#include "runtime/resource/pointer.h"

namespace cosi::plugin {

inline cosi_view view(std::string_view s) { return {s.data(), s.size()}; }
inline std::string_view str(cosi_view v) { return {v.data, v.size}; }

// A sink that appends everything to one string.
struct StringSink {
  std::string value;
  cosi_sink sink() {
    return {this, [](void* c, const char* d, std::size_t n) { static_cast<StringSink*>(c)->value.append(d, n); }};
  }
};

// A sink that keeps each write as its own string.
struct ListSink {
  std::vector<std::string> values;
  cosi_sink sink() {
    return {this, [](void* c, const char* d, std::size_t n) { static_cast<ListSink*>(c)->values.emplace_back(d, n); }};
  }
};

inline void write(const cosi_sink& sink, std::string_view s) {
  if (sink.write != nullptr) sink.write(sink.context, s.data(), s.size());
}

// 0 for success, 1 + kind otherwise (the message goes to `error`).
inline int32_t status_code(const Status& s, const cosi_sink& error) {
  if (s.ok()) return 0;
  write(error, s.error().message());
  return 1 + static_cast<int32_t>(s.error().kind());
}

inline Error error_from(int32_t code, std::string message) {
  const int32_t max = static_cast<int32_t>(ErrorKind::kInternal);
  ErrorKind kind = code >= 1 && code - 1 <= max ? static_cast<ErrorKind>(code - 1) : ErrorKind::kInternal;
  return Error(kind, std::move(message));
}

// The views stay valid as long as `p` does.
inline cosi_pointer c_pointer(const Pointer& p) { return {view(p.ns.view()), view(p.type.view()), view(p.id)}; }
inline Pointer from_c(const cosi_pointer& p) { return {Atom(str(p.ns)), Atom(str(p.type)), std::string(str(p.id))}; }

std::string encode_keys(const std::vector<Pointer>& keys);
Result<std::vector<Pointer>> decode_keys(std::string_view bytes);

}  // namespace cosi::plugin
