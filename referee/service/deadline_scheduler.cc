#include "referee/service/deadline_scheduler.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

#ifdef __linux__
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "absl/time/clock.h"

namespace pyramid {
namespace {

// Puts the calling thread in the real-time class (SCHED_FIFO, lowest
// priority) or back in the normal one. Best effort: false when the process
// may not (no CAP_SYS_NICE), and nothing else changes then.
bool SetRealTime(bool real_time) {
#ifdef __linux__
  sched_param param = {};
  param.sched_priority = real_time ? 1 : 0;
  return sched_setscheduler(static_cast<pid_t>(syscall(SYS_gettid)),
                            real_time ? SCHED_FIFO : SCHED_OTHER, &param) == 0;
#else
  return false;
#endif
}

// The Unix nanoseconds of `when`; kNone for InfiniteFuture.
int64_t Nanos(absl::Time when) {
  return when == absl::InfiniteFuture() ? std::numeric_limits<int64_t>::max()
                                        : absl::ToUnixNanos(when);
}

}  // namespace

DeadlineScheduler::DeadlineScheduler(
    std::function<void(const std::string&)> fire)
    : fire_(std::move(fire)), thread_([this] { Loop(); }) {}

DeadlineScheduler::~DeadlineScheduler() { Stop(); }

void DeadlineScheduler::Stop() {
  {
    PiMutexLock lock(&mu_);
    stop_ = true;
    wake_.Signal();
  }
  absl::MutexLock lock(&join_mu_);
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<DeadlineScheduler::Deadline> DeadlineScheduler::Track(
    std::string match_id) {
  return std::make_shared<Deadline>(std::move(match_id));
}

void DeadlineScheduler::Schedule(const std::shared_ptr<Deadline>& deadline,
                                 absl::Time when) {
  const int64_t at = Nanos(when);
  // Sequentially consistent, as PopDue's store to queued_ and load of
  // when_: if this load misses PopDue's store (the entry being popped),
  // that load sees this store and requeues it.
  deadline->when_.store(at);
  if (at >= deadline->queued_.load()) return;  // The entry requeues it.
  PiMutexLock lock(&mu_);
  if (at >= deadline->queued_.load()) return;
  queue_.push({at, deadline});
  deadline->queued_.store(at);
  if (when < sleeping_until_) wake_.Signal();
}

bool DeadlineScheduler::stopping() const {
  PiMutexLock lock(&mu_);
  return stop_;
}

int64_t DeadlineScheduler::wakeups() const {
  PiMutexLock lock(&mu_);
  return wakeups_;
}

LatencyHistogram DeadlineScheduler::lateness() const {
  PiMutexLock lock(&mu_);
  return lateness_;
}

// Waking up on time is a matter of CPU scheduling once the machine is busy:
// a normal thread that wakes behind busy ones (other processes' included)
// waits its turn, several ms (measured with tools/bench_load: p99 2.5-90 ms
// on a loaded 2-core machine, 0.2 ms with this thread in the real-time
// class). So the thread waits and pops at real-time priority where the
// process may set it, and fires at normal priority: what a fired deadline
// costs (a forfeit written to a log) never runs ahead of other work.
void DeadlineScheduler::Loop() {
#ifdef __linux__
  // The kernel may delay a timed wake-up by the thread's timer slack
  // (50 us by default) to batch it with others.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
  const bool real_time = SetRealTime(true);
  while (true) {
    std::vector<std::shared_ptr<Deadline>> due;
    LatencyHistogram popped;
    {
      PiMutexLock lock(&mu_);
      // Sleep until the earliest entry is due, waking early only to stop or
      // for a new entry that comes due sooner (Schedule signals only then).
      // No periodic polling.
      absl::Time now = absl::Now();
      while (!stop_ &&
             (queue_.empty() || queue_.top().when > absl::ToUnixNanos(now))) {
        sleeping_until_ = queue_.empty()
                              ? absl::InfiniteFuture()
                              : absl::FromUnixNanos(queue_.top().when);
        wake_.WaitWithDeadline(&mu_, sleeping_until_);
        sleeping_until_ = absl::InfinitePast();
        ++wakeups_;
        now = absl::Now();
      }
      if (stop_) return;
      due = PopDue(absl::ToUnixNanos(now), popped);
      lateness_.Merge(popped);
    }
    if (due.empty()) continue;
    if (real_time) SetRealTime(false);
    for (const std::shared_ptr<Deadline>& deadline : due) {
      {
        PiMutexLock lock(&mu_);
        if (stop_) return;  // Stop waits for no more than the call under way.
      }
      fire_(deadline->match_id());
    }
    if (real_time) SetRealTime(true);
  }
}

std::vector<std::shared_ptr<DeadlineScheduler::Deadline>>
DeadlineScheduler::PopDue(int64_t now, LatencyHistogram& lateness) {
  std::vector<std::shared_ptr<Deadline>> due;
  while (!queue_.empty() && queue_.top().when <= now) {
    Entry entry = queue_.top();
    queue_.pop();
    lateness.Add(absl::Nanoseconds(now - entry.when));
    Deadline& deadline = *entry.deadline;
    if (entry.when == deadline.queued_.load()) deadline.queued_.store(kNone);
    // Take the deadline if it is due (a Schedule may move it meanwhile: the
    // exchange then fails and reloads it).
    int64_t when = deadline.when_.load();
    while (when <= now) {
      if (deadline.when_.compare_exchange_weak(when, kNone)) {
        due.push_back(entry.deadline);
        when = kNone;
      }
    }
    // It moved later since this entry was queued: requeue it.
    if (when != kNone && when < deadline.queued_.load()) {
      queue_.push({when, std::move(entry.deadline)});
      deadline.queued_.store(when);
    }
  }
  return due;
}

}  // namespace pyramid
