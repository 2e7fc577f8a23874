// WorkQueue: the keys a per-key controller has to reconcile, with controller-runtime's
// contract:
//   - a key queued twice before it is taken is reconciled once;
//   - a key is never handed out while it is being reconciled;
//   - a key added while it is being reconciled is handed out again after done().
//
//   queue.add(key, now);
//   if (auto key = queue.take(now)) { reconcile(*key); queue.done(*key); }
//
// It reports how long keys waited (queue duration) and were worked on (work duration).
// Not thread-safe: the runtime guards it.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <set>

#include "runtime/exec/clock.h"
#include "runtime/resource/pointer.h"

namespace cosi {

class WorkQueue {
 public:
  // False when the key was already waiting.
  bool add(const Pointer& key, SteadyTime now);
  // The next key to work on, marked as in progress; nullopt when none is ready.
  std::optional<Pointer> take(SteadyTime now, Duration* waited = nullptr);
  // Ends work on the key; returns true when it was added meanwhile and is queued again.
  bool done(const Pointer& key, SteadyTime now, Duration* worked = nullptr);

  std::size_t depth() const { return queue_.size(); }
  bool ready() const { return !queue_.empty(); }
  bool idle() const { return queue_.empty() && processing_.empty(); }

 private:
  std::deque<Pointer> queue_;
  std::map<Pointer, SteadyTime> dirty_;       // waiting (queued or to be re-queued), since when
  std::map<Pointer, SteadyTime> processing_;  // being reconciled, since when
};

}  // namespace cosi
