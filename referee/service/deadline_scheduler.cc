#include "referee/service/deadline_scheduler.h"

#include <algorithm>
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

}  // namespace

DeadlineScheduler::DeadlineScheduler(
    std::function<void(const std::string&)> fire)
    : fire_(std::move(fire)), thread_([this] { Loop(); }) {}

DeadlineScheduler::~DeadlineScheduler() {
  {
    PiMutexLock lock(&mu_);
    stop_ = true;
    wake_.Signal();
  }
  thread_.join();
}

void DeadlineScheduler::Schedule(const std::string& match_id, absl::Time when) {
  PiMutexLock lock(&mu_);
  if (when == absl::InfiniteFuture()) {
    auto it = deadlines_.find(match_id);
    if (it == deadlines_.end()) return;
    it->second.when = when;  // Its queue entry, if any, forgets it.
    return;
  }
  Deadline& deadline = deadlines_[match_id];
  deadline.when = when;
  if (when < deadline.queued) {
    queue_.push({when, match_id});
    deadline.queued = when;
    if (when < sleeping_until_) wake_.Signal();
  }
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
    std::vector<std::string> due;
    LatencyHistogram popped;
    {
      PiMutexLock lock(&mu_);
      // Sleep until the earliest entry is due, waking early only to stop or
      // for a new entry that comes due sooner (Schedule signals only then).
      // No periodic polling.
      absl::Time now = absl::Now();
      while (!stop_ && (queue_.empty() || queue_.top().when > now)) {
        sleeping_until_ =
            queue_.empty() ? absl::InfiniteFuture() : queue_.top().when;
        wake_.WaitWithDeadline(&mu_, sleeping_until_);
        sleeping_until_ = absl::InfinitePast();
        ++wakeups_;
        now = absl::Now();
      }
      if (stop_) return;
      due = PopDue(now, popped);
      lateness_.Merge(popped);
    }
    if (due.empty()) continue;
    if (real_time) SetRealTime(false);
    for (const std::string& match_id : due) fire_(match_id);
    if (real_time) SetRealTime(true);
  }
}

std::vector<std::string> DeadlineScheduler::PopDue(absl::Time now,
                                                   LatencyHistogram& lateness) {
  std::vector<std::string> due;
  while (!queue_.empty() && queue_.top().when <= now) {
    Entry entry = queue_.top();
    queue_.pop();
    lateness.Add(now - entry.when);
    auto it = deadlines_.find(entry.match_id);
    if (it == deadlines_.end()) continue;
    Deadline& deadline = it->second;
    if (entry.when == deadline.queued) {
      deadline.queued = absl::InfiniteFuture();
    }
    if (deadline.when <= now) {
      deadline.when = absl::InfiniteFuture();
      due.push_back(entry.match_id);
    } else if (deadline.when < deadline.queued) {
      // The deadline moved later since this entry was queued.
      queue_.push({deadline.when, entry.match_id});
      deadline.queued = deadline.when;
    }
    if (deadline.when == absl::InfiniteFuture() &&
        deadline.queued == absl::InfiniteFuture()) {
      deadlines_.erase(it);
    }
  }
  return due;
}

}  // namespace pyramid
