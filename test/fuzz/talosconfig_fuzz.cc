// libFuzzer target: the talosconfig reader. A file that reads must write back to the same
// contexts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cmd/cosictl/talosconfig.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = cosi::cosictl::parse_talosconfig(text);
  if (config.ok()) {
    auto again = cosi::cosictl::parse_talosconfig(cosi::cosictl::render_talosconfig(*config));
    if (!again.ok() || !(*again == *config)) std::abort();
  }
  return 0;
}
