// A mutex with priority inheritance, and a condition variable to wait on it.
//
// A real-time thread that waits for a mutex held by a normal thread waits
// until that thread gets a CPU again; on a machine whose cores are busy
// that can be a whole time slice of the normal scheduler, milliseconds
// (priority inversion). With PiMutex (POSIX PTHREAD_PRIO_INHERIT), the
// holder runs at the waiter's priority until it unlocks: the waiter waits
// only for the rest of the critical section. Between normal threads it
// behaves as any mutex (an uncontended lock or unlock is one atomic
// operation; a contended one goes through the kernel).
//
// The DeadlineScheduler's thread waits for deadlines in the real-time class
// and shares its queue's mutex with the threads that schedule deadlines:
// with absl::Mutex its wake-ups came 4-60 ms late at p99 under
// `bench_load --matches=10000 --bots=100`, with this one 0.1-0.2 ms
// (docs/performance-history.md, session 25).
#ifndef PYRAMID_REFEREE_SERVICE_PI_MUTEX_H_
#define PYRAMID_REFEREE_SERVICE_PI_MUTEX_H_

#include <pthread.h>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"

namespace pyramid {

class ABSL_LOCKABLE PiMutex {
 public:
  PiMutex();
  ~PiMutex();
  PiMutex(const PiMutex&) = delete;
  PiMutex& operator=(const PiMutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION();
  void Unlock() ABSL_UNLOCK_FUNCTION();

 private:
  friend class PiCondVar;
  pthread_mutex_t mu_;
};

// Holds a PiMutex for its scope, as absl::MutexLock does an absl::Mutex.
class ABSL_SCOPED_LOCKABLE PiMutexLock {
 public:
  explicit PiMutexLock(PiMutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~PiMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  PiMutexLock(const PiMutexLock&) = delete;
  PiMutexLock& operator=(const PiMutexLock&) = delete;

 private:
  PiMutex* const mu_;
};

// A condition variable for a PiMutex. Waits may end early (a spurious
// wake-up, as with any condition variable): callers re-check their
// condition in a loop.
class PiCondVar {
 public:
  PiCondVar();
  ~PiCondVar();
  PiCondVar(const PiCondVar&) = delete;
  PiCondVar& operator=(const PiCondVar&) = delete;

  // Unlocks `mu`, waits for a Signal or until `deadline` (InfiniteFuture:
  // no deadline), and locks `mu` again. The deadline is kept on the
  // monotonic clock: a wall clock set back or forward does not move it.
  void WaitWithDeadline(PiMutex* mu, absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Wakes one waiting thread, if any.
  void Signal();

 private:
  pthread_cond_t cv_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_PI_MUTEX_H_
