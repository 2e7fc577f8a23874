#include "runtime/exec/thread_pool.h"

#include <boost/asio/defer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <mutex>
#include <unordered_map>

#include "runtime/base/thread_annotations.h"

namespace cosi {

struct ThreadPool::Impl {
  explicit Impl(std::size_t threads) : pool(threads) {}

  boost::asio::thread_pool pool;
  std::mutex mu;
  TimerId next_id COSI_GUARDED_BY(mu) = 1;
  std::unordered_map<TimerId, std::shared_ptr<boost::asio::steady_timer>> timers COSI_GUARDED_BY(mu);
  bool stopped COSI_GUARDED_BY(mu) = false;
};

ThreadPool::ThreadPool(std::size_t threads) : impl_(std::make_unique<Impl>(threads == 0 ? 1 : threads)) {}

ThreadPool::~ThreadPool() { stop(); }

void ThreadPool::post(Task task) { boost::asio::post(impl_->pool, std::move(task)); }

// Asio's defer queues a task posted from one of the pool's threads on that thread's private
// queue, run after its current handler; from any other thread it is a post.
void ThreadPool::defer(Task task) { boost::asio::defer(impl_->pool, std::move(task)); }

SteadyTime ThreadPool::now() const { return std::chrono::steady_clock::now(); }

TimerId ThreadPool::schedule(SteadyTime at, Task task) {
  auto timer = std::make_shared<boost::asio::steady_timer>(impl_->pool, at);
  TimerId id;
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->stopped) return 0;
    id = impl_->next_id++;
    impl_->timers.emplace(id, timer);
  }
  timer->async_wait([this, id, task = std::move(task)](const boost::system::error_code& ec) {
    {
      std::lock_guard lock(impl_->mu);
      impl_->timers.erase(id);
    }
    if (!ec) task();
  });
  return id;
}

void ThreadPool::cancel(TimerId id) {
  std::shared_ptr<boost::asio::steady_timer> timer;
  {
    std::lock_guard lock(impl_->mu);
    auto it = impl_->timers.find(id);
    if (it == impl_->timers.end()) return;
    timer = it->second;
  }
  boost::asio::post(impl_->pool, [timer] { timer->cancel(); });
}

void ThreadPool::stop() {
  std::unordered_map<TimerId, std::shared_ptr<boost::asio::steady_timer>> timers;
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->stopped) return;
    impl_->stopped = true;
    timers.swap(impl_->timers);
  }
  for (auto& [id, timer] : timers) boost::asio::post(impl_->pool, [timer] { timer->cancel(); });
  impl_->pool.stop();
  impl_->pool.join();
}

}  // namespace cosi
