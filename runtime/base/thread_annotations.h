// Thread-safety annotations. Every mutex-guarded member says which mutex guards it:
//
//   std::mutex mu_;
//   std::deque<Event> queue_ COSI_GUARDED_BY(mu_);
//
// Under clang with -Wthread-safety these are checked; under g++ they document.
#pragma once

#if defined(__clang__)
#define COSI_GUARDED_BY(x) __attribute__((guarded_by(x)))
#define COSI_PT_GUARDED_BY(x) __attribute__((pt_guarded_by(x)))
#else
#define COSI_GUARDED_BY(x)
#define COSI_PT_GUARDED_BY(x)
#endif
