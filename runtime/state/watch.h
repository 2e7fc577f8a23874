// Watch: a subscription to the events of one resource or one kind. Events are pulled, never
// pushed, so a slow consumer never blocks a writer:
//
//   WatchPtr w = *state.watch_kind(kind, {.bootstrap_contents = true});
//   std::vector<Event> events;
//   while (w->wait(deadline)) {
//     events.clear();
//     w->poll(events);
//     for (const Event& e : events) handle(e);
//   }
//
// Or, event-driven: set_notify(f) makes the watch call f() each time it goes from empty to
// non-empty (and at once if events are already waiting). f runs on a writer's thread: it
// must be quick and must not call back into the state or the watch — post work elsewhere.
//
// Destroying the Watch cancels it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "runtime/state/event.h"

namespace cosi {

class Watch {
 public:
  static constexpr std::size_t kAll = std::numeric_limits<std::size_t>::max();

  virtual ~Watch() = default;

  // Appends up to max pending events to out; returns how many. Never blocks.
  virtual std::size_t poll(std::vector<Event>& out, std::size_t max = kAll) = 0;

  // Blocks until poll() has something or the deadline passes; true when ready. A cancelled
  // watch returns false at once.
  virtual bool wait(std::chrono::steady_clock::time_point deadline) = 0;

  virtual void set_notify(std::function<void()> notify) = 0;

  // Stops delivery; pending events are dropped. Idempotent.
  virtual void cancel() = 0;
};

using WatchPtr = std::unique_ptr<Watch>;

}  // namespace cosi
