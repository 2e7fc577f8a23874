// A string in double quotes, `"` and `\` escaped with a backslash: how a DOT label is written,
// and how Go's %q writes a plain path ("/dev/sda") in the error texts talosctl users know.
//
//   quoted("/dev/sda") == "\"/dev/sda\""
#pragma once

#include <string>
#include <string_view>

namespace cosi {

inline std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace cosi
