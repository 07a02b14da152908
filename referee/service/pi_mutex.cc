#include "referee/service/pi_mutex.h"

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "absl/time/clock.h"

namespace pyramid {

PiMutex::PiMutex() {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  // Where the platform has no priority inheritance, a plain mutex.
  pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
  if (pthread_mutex_init(&mu_, &attr) != 0) std::abort();
  pthread_mutexattr_destroy(&attr);
}

PiMutex::~PiMutex() { pthread_mutex_destroy(&mu_); }

void PiMutex::Lock() {
  // Fails only for a bug (a lock not initialized, or destroyed).
  if (pthread_mutex_lock(&mu_) != 0) std::abort();
}

void PiMutex::Unlock() {
  if (pthread_mutex_unlock(&mu_) != 0) std::abort();
}

PiCondVar::PiCondVar() {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&cv_, &attr);
  pthread_condattr_destroy(&attr);
}

PiCondVar::~PiCondVar() { pthread_cond_destroy(&cv_); }

void PiCondVar::WaitWithDeadline(PiMutex* mu, absl::Time deadline) {
  if (deadline == absl::InfiniteFuture()) {
    pthread_cond_wait(&cv_, &mu->mu_);
    return;
  }
  // The same span from now on the monotonic clock (capped at a day: the
  // caller re-checks and waits again).
  const int64_t wait_ns = absl::ToInt64Nanoseconds(std::clamp(
      deadline - absl::Now(), absl::ZeroDuration(), absl::Hours(24)));
  timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  constexpr int64_t kNsPerSecond = 1'000'000'000;
  const int64_t ns = until.tv_nsec + wait_ns;
  until.tv_sec += static_cast<time_t>(ns / kNsPerSecond);
  until.tv_nsec = static_cast<long>(ns % kNsPerSecond);
  pthread_cond_timedwait(&cv_, &mu->mu_, &until);
}

void PiCondVar::Signal() { pthread_cond_signal(&cv_); }

}  // namespace pyramid
