// The State a conformance test binary checks. Each binary links the suite (the *_test.cc files
// here) with one fixture that defines make_state_under_test(): MemoryState directly, later a
// gRPC client-backed State talking to a real server.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "runtime/state/state.h"

namespace cosi::testing {

struct StateUnderTest {
  std::shared_ptr<State> state;
  std::size_t history = 0;  // events the state keeps per kind (for out-of-history bookmarks)
  // Another, independent store: its bookmarks must be foreign to `state`.
  std::function<std::shared_ptr<State>()> another;
};

StateUnderTest make_state_under_test();

}  // namespace cosi::testing
