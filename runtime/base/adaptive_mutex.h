// AdaptiveMutex: a mutex that, when taken, spins briefly before it sleeps — glibc's adaptive
// pthread mutex. For locks held a few hundred nanoseconds by threads on other cores (a
// collection of the store, the runtime's scheduling state), the holder is usually done before
// a sleep and a wake-up would even have started; std::mutex goes to the kernel at once.
// A Lockable: std::lock_guard and std::unique_lock take it; condition variables need
// std::condition_variable_any.
#pragma once

#include <pthread.h>

namespace cosi {

class AdaptiveMutex {
 public:
  AdaptiveMutex() {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&mu_, &attr);
    pthread_mutexattr_destroy(&attr);
  }
  ~AdaptiveMutex() { pthread_mutex_destroy(&mu_); }
  AdaptiveMutex(const AdaptiveMutex&) = delete;
  AdaptiveMutex& operator=(const AdaptiveMutex&) = delete;

  void lock() { pthread_mutex_lock(&mu_); }
  void unlock() { pthread_mutex_unlock(&mu_); }
  bool try_lock() { return pthread_mutex_trylock(&mu_) == 0; }

 private:
  pthread_mutex_t mu_;
};

}  // namespace cosi
