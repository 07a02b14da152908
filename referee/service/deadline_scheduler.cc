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
  absl::MutexLock lock(&mu_);
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
  }
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
        Entry entry = queue_.top();
        queue_.pop();
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
    }
    for (const std::string& match_id : due) fire_(match_id);
  }
}

}  // namespace pyramid
