// Standard base64 (RFC 4648 §4, padded), the encoding of keys and certificates in machine
// configs, talosconfig and the secrets bundle.
//
//   base64_encode("hi") == "aGk=";   base64_decode("aGk=") == "hi";   base64_decode("a?") -> nullopt
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cosi {

std::string base64_encode(std::string_view bytes);

// nullopt for anything but padded standard base64; whitespace (line breaks) is skipped.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace cosi
