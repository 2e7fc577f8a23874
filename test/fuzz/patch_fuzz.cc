// libFuzzer target: strategic-merge patches. The input is a config and a patch separated by
// the first NUL byte (or split in half when there is none); a patch that applies must yield
// YAML that parses again.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "resources/config/patch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t split = text.find('\0');
  if (split == std::string_view::npos) split = size / 2;
  std::string_view config = text.substr(0, split);
  std::string_view patch = split < size ? text.substr(split + 1) : std::string_view();
  auto result = cosi::config::apply_patch(config, patch);
  if (result.ok()) {
    try {
      (void)YAML::LoadAll(*result);
    } catch (const YAML::Exception&) {
      std::abort();  // we wrote YAML we cannot read back
    }
  }
  return 0;
}
