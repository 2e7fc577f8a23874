// Runs the State conformance suite against MemoryState.
#include "runtime/state/memory_state.h"
#include "test/conformance/state/state_under_test.h"

namespace cosi::testing {

StateUnderTest make_state_under_test() {
  constexpr std::size_t kHistory = 64;
  auto make = [] { return std::make_shared<MemoryState>(MemoryStateOptions{.history = kHistory}); };
  return {make(), kHistory, make};
}

}  // namespace cosi::testing
