// A plugin built for an ABI this host does not speak.
#include "runtime/plugin/abi.h"

extern "C" __attribute__((visibility("default"))) const cosi_plugin* cosi_plugin_entry(void) {
  static const cosi_plugin descriptor{COSI_PLUGIN_ABI_MAJOR + 1, 0, "from-the-future", nullptr, 0};
  return &descriptor;
}
