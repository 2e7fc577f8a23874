#include "runtime/state/event.h"

namespace cosi {

std::string_view to_string(EventType type) {
  switch (type) {
    case EventType::kCreated: return "created";
    case EventType::kUpdated: return "updated";
    case EventType::kDestroyed: return "destroyed";
    case EventType::kBootstrapped: return "bootstrapped";
    case EventType::kErrored: return "errored";
    case EventType::kNoop: return "noop";
  }
  return "unknown";
}

}  // namespace cosi
