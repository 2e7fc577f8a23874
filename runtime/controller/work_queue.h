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
//
// The first fill — every key of the controller's inputs, at start — goes in with add_all():
// those keys wait in one sorted array, in the order given, instead of one index entry each,
// and an add() of one of them is found there by binary search. Keys in progress are few (the
// controller's concurrency times a worker's batch) and sit in a small array. So a key of the
// first fill costs no allocation and no hashing from add to done. Not thread-safe: the runtime
// guards it.
#pragma once

#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include "runtime/exec/clock.h"
#include "runtime/resource/pointer.h"

namespace cosi {

class WorkQueue {
 public:
  // False when the key was already waiting.
  bool add(const Pointer& key, SteadyTime now);
  // Adds every key (duplicates and keys already waiting count once); returns how many were
  // new. Meant for the first fill, when it is cheap; otherwise the same as add() for each.
  std::size_t add_all(std::vector<Pointer> keys, SteadyTime now);
  // The next key to work on, marked as in progress; nullopt when none is ready.
  std::optional<Pointer> take(SteadyTime now, Duration* waited = nullptr);
  // Ends work on the key; returns true when it was added meanwhile and is queued again.
  bool done(const Pointer& key, SteadyTime now, Duration* worked = nullptr);

  std::size_t depth() const { return (bulk_.size() - bulk_head_) + queue_.size(); }
  bool ready() const { return depth() > 0; }
  bool idle() const { return depth() == 0 && working_.empty(); }

 private:
  using Waiting = std::unordered_map<Pointer, SteadyTime>;  // key -> waiting since
  struct Working {
    Pointer key;
    std::size_t hash;
    SteadyTime started;
    bool again = false;  // added while in progress: queued again when done
    SteadyTime again_since{};
  };

  bool in_bulk(const Pointer& key) const;
  Working* working(const Pointer& key, std::size_t hash);
  void enqueue(const Pointer& key, SteadyTime since);

  // The first fill: bulk_[bulk_head_..] wait, sorted, since bulk_since_.
  std::vector<Pointer> bulk_;
  std::size_t bulk_head_ = 0;
  SteadyTime bulk_since_{};
  // Keys added one by one, in order.
  Waiting waiting_;
  std::deque<Waiting::iterator> queue_;
  std::vector<Working> working_;
};

}  // namespace cosi
