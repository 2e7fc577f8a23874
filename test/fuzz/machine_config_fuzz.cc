// libFuzzer target: the machine config parser and the dry-run diff. Any input may be refused;
// none may crash, hang, or trip a sanitizer. A config that loads must compare equal to itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "resources/config/config_diff.h"
#include "resources/config/machine_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto loaded = cosi::config::parse_machine_config(text);
  if (loaded.ok() && !cosi::config::describe_changes(text, text).empty()) std::abort();
  (void)cosi::config::describe_changes("", text);
  return 0;
}
