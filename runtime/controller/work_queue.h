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
// Each key is hashed once per operation. Not thread-safe: the runtime guards it.
#pragma once

#include <deque>
#include <optional>
#include <unordered_map>

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

  void reserve(std::size_t keys) { entries_.reserve(keys); }
  std::size_t depth() const { return queue_.size(); }
  bool ready() const { return !queue_.empty(); }
  bool idle() const { return entries_.empty(); }

 private:
  struct Entry {
    bool waiting = false;     // added and not yet taken (queued, or re-added while processing)
    bool processing = false;  // handed out, done() not yet called
    SteadyTime since{};       // when it started waiting
    SteadyTime started{};     // when it was handed out
  };
  using Entries = std::unordered_map<Pointer, Entry>;

  Entries entries_;
  std::deque<const Pointer*> queue_;  // keys of entries_ (node keys never move)
};

}  // namespace cosi
