// Bookmark: a position in the event stream of one kind in one store, to resume a watch from.
// Resuming from a bookmark yields exactly the events after it. On the wire it is 16 opaque
// bytes: the stream (a random number drawn when the store first saw the kind, so a bookmark
// from another process or another kind is recognised as foreign) and the event's position.
//
//   std::string bytes = event.bookmark->bytes();
//   auto b = Bookmark::from_bytes(bytes);   // nullopt unless 16 bytes
//   state.watch_kind(kind, {.start_from_bookmark = *b});
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cosi {

class Bookmark {
 public:
  Bookmark(std::uint64_t stream, std::uint64_t position) : stream_(stream), position_(position) {}

  std::uint64_t stream() const { return stream_; }
  std::uint64_t position() const { return position_; }

  std::string bytes() const;
  static std::optional<Bookmark> from_bytes(std::string_view bytes);

  friend bool operator==(const Bookmark&, const Bookmark&) = default;

 private:
  std::uint64_t stream_;
  std::uint64_t position_;
};

}  // namespace cosi
