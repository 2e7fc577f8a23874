#include "runtime/state/bookmark.h"

namespace cosi {
namespace {

void put(std::string& out, std::uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

std::uint64_t get(std::string_view in) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(in[static_cast<std::size_t>(i)]);
  return v;
}

}  // namespace

std::string Bookmark::bytes() const {
  std::string out;
  out.reserve(16);
  put(out, stream_);
  put(out, position_);
  return out;
}

std::optional<Bookmark> Bookmark::from_bytes(std::string_view bytes) {
  if (bytes.size() != 16) return std::nullopt;
  return Bookmark(get(bytes.substr(0, 8)), get(bytes.substr(8, 8)));
}

}  // namespace cosi
