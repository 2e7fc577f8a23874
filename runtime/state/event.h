// Event: one change seen by a watch. The numbering of EventType is the wire's
// (cosi.resource.EventType).
//
//   Created(resource)            the resource appeared (or entered a filtered watch)
//   Updated(resource, old)       it changed from old to resource
//   Destroyed(resource)          it is gone; resource is its last value (or left the filter)
//   Bootstrapped                 the initial contents of a kind watch have all been sent
//   Errored(error)               the watch failed and ends (client-backed states only)
//   Noop                         nothing happened; carries a bookmark (wire keep-alive)
//
// Bootstrapped and Noop carry a tombstone resource. Events from a store carry a bookmark.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "runtime/base/error.h"
#include "runtime/resource/resource.h"
#include "runtime/state/bookmark.h"

namespace cosi {

enum class EventType : int {
  kCreated = 0,
  kUpdated = 1,
  kDestroyed = 2,
  kBootstrapped = 3,
  kErrored = 4,
  kNoop = 5,
};

std::string_view to_string(EventType type);

struct Event {
  EventType type = EventType::kCreated;
  ResourcePtr resource;
  ResourcePtr old;  // Updated only
  std::optional<Bookmark> bookmark;
  std::shared_ptr<const Error> error;  // Errored only
};

}  // namespace cosi
