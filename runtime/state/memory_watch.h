// WatchCore: the consumer side of one MemoryState watch — its selection, its first events
// (current state, bootstrap contents or replayed history) and its EventBuffer. The kind's
// collection offers it every change under the kind's lock; offering never blocks on the
// consumer, and the buffer coalesces when the consumer falls behind.
//
// Internal to MemoryState; users hold the Watch handle that MemoryState returns.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/base/thread_annotations.h"
#include "runtime/state/event_buffer.h"
#include "runtime/state/selection.h"
#include "runtime/state/watch.h"

namespace cosi {

class WatchCore {
 public:
  WatchCore(Selection selection, std::size_t buffer, std::vector<Event> first_events);

  // A raw change of the kind. True when the consumer must now be notified (call notify()
  // after releasing the kind's lock).
  bool offer(const Event& raw);
  void notify();

  std::size_t poll(std::vector<Event>& out, std::size_t max);
  bool wait(std::chrono::steady_clock::time_point deadline);
  void set_notify(std::function<void()> notify);
  void cancel();

  std::uint64_t coalesced_events() const;

 private:
  bool pending() const { return !first_.empty() || !buffer_.empty(); }
  // Buffers an event the selection lets through; true when the consumer must be notified.
  template <class E>
  bool deliver(E&& event);

  // What every offer touches comes first, to share as few cache lines as possible: a write
  // to a kind offers its event to each of the kind's watchers in turn.
  mutable std::mutex mu_;
  const bool selects_all_;
  bool cancelled_ COSI_GUARDED_BY(mu_) = false;
  // Set when events became pending; cleared when the consumer has taken them all. A consumer
  // is woken only on that transition, and only when it waits or asked to be notified.
  bool signaled_ COSI_GUARDED_BY(mu_) = false;
  int waiters_ COSI_GUARDED_BY(mu_) = 0;
  EventBuffer buffer_ COSI_GUARDED_BY(mu_);
  std::shared_ptr<const std::function<void()>> notify_ COSI_GUARDED_BY(mu_);
  std::deque<Event> first_ COSI_GUARDED_BY(mu_);
  std::condition_variable ready_;
  const Selection selection_;
};

}  // namespace cosi
