#include "referee/service/deadline_scheduler.h"

#include <utility>

namespace pyramid {

DeadlineScheduler::DeadlineScheduler(
    std::function<void(const std::string&)> fire)
    : fire_(std::move(fire)), thread_([this] { Loop(); }) {}

DeadlineScheduler::~DeadlineScheduler() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

void DeadlineScheduler::Schedule(const std::string& match_id,
                                 absl::Time when) {
  if (when == absl::InfiniteFuture()) return;
  absl::MutexLock lock(&mu_);
  queue_.push({when, match_id});
}

void DeadlineScheduler::Loop() {
  while (true) {
    std::vector<std::string> due;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stop_ || (!queue_.empty() && queue_.top().when <= absl::Now());
      };
      // Wake at the earliest deadline, or when a new entry or stop arrives
      // (the condition is re-evaluated on every mutex release by writers).
      const absl::Time wake = queue_.empty() ? absl::Now() + absl::Milliseconds(50)
                                             : queue_.top().when;
      mu_.AwaitWithDeadline(absl::Condition(&ready),
                            std::min(wake, absl::Now() + absl::Milliseconds(50)));
      if (stop_) return;
      const absl::Time now = absl::Now();
      while (!queue_.empty() && queue_.top().when <= now) {
        due.push_back(queue_.top().match_id);
        queue_.pop();
      }
    }
    for (const std::string& match_id : due) fire_(match_id);
  }
}

}  // namespace pyramid
