// EventBuffer: the events a watcher has not taken yet, in bounded memory whatever the write
// rate. Up to `bound` events it is a plain FIFO. Past it, the buffer stops keeping events and
// keeps, per resource, the state the watcher last saw (S0) and the current one (S1); what the
// watcher is handed is the one transition between them:
//
//   S0 (last seen)  S1 (now)                               delivered
//   absent          present                                Created(S1)
//   present         present, same incarnation              Updated(old = S0, new = S1)
//   present         present, destroyed and re-created      Destroyed(S0), then Created(S1)
//   present         absent                                 Destroyed(last value before it went)
//   absent          absent (created and destroyed meanwhile)  nothing
//
// Coalesced resources are handed out in the order of their newest event. A coalesced event
// carries the bookmark of the newest event it replaces (a Destroyed(S0) of a re-creation that
// of the destruction), so resuming from it yields only later events. Once the watcher has
// taken everything the buffer is a FIFO again. Memory is bounded by `bound` plus one record
// per resource of the kind.
//
// Not thread-safe: the watch that owns it holds the lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/state/event.h"

namespace cosi {

class EventBuffer {
 public:
  explicit EventBuffer(std::size_t bound) : bound_(bound == 0 ? 1 : bound) {}

  // Created, Updated or Destroyed, each with a bookmark.
  void push(Event&& event);
  void push(const Event& event);

  // Moves up to max events to out; returns how many.
  std::size_t pop(std::vector<Event>& out, std::size_t max);

  bool empty() const { return queued() == 0 && order_.empty(); }
  void clear();

  bool coalescing() const { return coalescing_; }
  // Events that were merged into others and never delivered on their own.
  std::uint64_t coalesced_events() const { return coalesced_events_; }

 private:
  struct Record {
    std::string id;
    ResourcePtr seen;          // S0; null when the watcher last saw no resource
    ResourcePtr current;       // S1; null when there is none now
    ResourcePtr last_present;  // the newest non-null state, for Destroyed
    bool recreated = false;    // destroyed and created again since S0
    std::optional<Bookmark> newest;
    std::optional<Bookmark> destroyed_at;
  };

  void fold(const Event& event);
  // Past the bound (queued() > bound_): from now on, per resource (see above).
  void coalesce_past_bound();
  void emit(const Record& record);
  std::size_t queued() const { return queue_.size() - head_; }

  std::size_t bound_;
  bool coalescing_ = false;
  std::uint64_t coalesced_events_ = 0;
  // The FIFO: queue_[head_..]; while coalescing, only the halves of emitted records. A vector
  // rather than a deque: a consumer that takes everything swaps it for its own (emptied)
  // vector, so a steady stream of events allocates nothing.
  std::vector<Event> queue_;
  std::size_t head_ = 0;
  std::list<Record> order_;  // by newest event, oldest first
  std::unordered_map<std::string_view, std::list<Record>::iterator> index_;  // views Record::id
};

}  // namespace cosi
