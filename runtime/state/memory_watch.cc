#include "runtime/state/memory_watch.h"

namespace cosi {

WatchCore::WatchCore(Selection selection, std::size_t buffer, std::vector<Event> first_events)
    : selects_all_(selection.selects_all()),
      signaled_(!first_events.empty()),
      buffer_(buffer),
      first_(std::make_move_iterator(first_events.begin()),
             std::make_move_iterator(first_events.end())),
      selection_(std::move(selection)) {}

bool WatchCore::offer(const Event& raw) {
  // A whole-kind watch copies the event once, straight into its buffer.
  if (selects_all_) return deliver(raw);
  std::optional<Event> visible = selection_.view(raw);
  return visible && deliver(std::move(*visible));
}

template <class E>
bool WatchCore::deliver(E&& event) {
  std::lock_guard lock(mu_);
  if (cancelled_) return false;
  buffer_.push(std::forward<E>(event));
  if (signaled_) return false;
  signaled_ = true;
  return waiters_ > 0 || notify_ != nullptr;
}

void WatchCore::notify() {
  std::shared_ptr<const std::function<void()>> notify;
  {
    std::lock_guard lock(mu_);
    notify = notify_;
  }
  ready_.notify_all();
  if (notify) (*notify)();
}

std::size_t WatchCore::poll(std::vector<Event>& out, std::size_t max) {
  std::lock_guard lock(mu_);
  std::size_t taken = 0;
  while (taken < max && !first_.empty()) {
    out.push_back(std::move(first_.front()));
    first_.pop_front();
    ++taken;
  }
  if (taken < max) taken += buffer_.pop(out, max - taken);
  if (!pending()) signaled_ = false;
  return taken;
}

bool WatchCore::wait(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mu_);
  ++waiters_;
  ready_.wait_until(lock, deadline, [&] { return cancelled_ || pending(); });
  --waiters_;
  return !cancelled_ && pending();
}

void WatchCore::set_notify(std::function<void()> notify) {
  auto shared = std::make_shared<const std::function<void()>>(std::move(notify));
  bool call_now = false;
  {
    std::lock_guard lock(mu_);
    notify_ = shared;
    if (pending() && !cancelled_) {
      signaled_ = true;
      call_now = true;
    }
  }
  if (call_now) (*shared)();
}

void WatchCore::cancel() {
  {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    first_.clear();
    buffer_.clear();
    notify_.reset();
  }
  ready_.notify_all();
}

std::uint64_t WatchCore::coalesced_events() const {
  std::lock_guard lock(mu_);
  return buffer_.coalesced_events();
}

}  // namespace cosi
