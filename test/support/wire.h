// Hand-rolled protobuf wire encoding for test specs: header-only, so a test host and a test
// plugin can share spec types without two copies of generated protobuf code in one process.
//
//   std::string out; wire::put_string(out, 1, "alpha"); wire::put_varint(out, 2, 7);
//   wire::Reader r(out); while (auto f = r.next()) { f->number; f->varint; f->bytes; }
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cosi::testing::wire {

inline void varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline void put_varint(std::string& out, int field, std::uint64_t v) {
  if (v == 0) return;  // proto3: defaults are not written
  varint(out, static_cast<std::uint64_t>(field) << 3);
  varint(out, v);
}

inline void put_string(std::string& out, int field, std::string_view s) {
  if (s.empty()) return;
  varint(out, (static_cast<std::uint64_t>(field) << 3) | 2);
  varint(out, s.size());
  out.append(s);
}

struct Field {
  int number = 0;
  std::uint64_t varint = 0;  // wire type 0
  std::string_view bytes;    // wire type 2
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  // The next field; nullopt at the end. Sets error() on malformed input.
  std::optional<Field> next() {
    if (in_.empty() || error_) return std::nullopt;
    std::uint64_t key;
    if (!read_varint(key)) return std::nullopt;
    Field f;
    f.number = static_cast<int>(key >> 3);
    switch (key & 7) {
      case 0:
        if (!read_varint(f.varint)) return std::nullopt;
        return f;
      case 2: {
        std::uint64_t n;
        if (!read_varint(n) || n > in_.size()) return fail();
        f.bytes = in_.substr(0, n);
        in_.remove_prefix(n);
        return f;
      }
      default:
        return fail();
    }
  }
  bool error() const { return error_; }

 private:
  std::optional<Field> fail() {
    error_ = true;
    return std::nullopt;
  }
  bool read_varint(std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && !in_.empty(); shift += 7) {
      auto b = static_cast<unsigned char>(in_.front());
      in_.remove_prefix(1);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    error_ = true;
    return false;
  }

  std::string_view in_;
  bool error_ = false;
};

}  // namespace cosi::testing::wire
