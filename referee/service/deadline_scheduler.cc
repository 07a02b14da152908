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

void DeadlineScheduler::Schedule(const std::string& match_id, absl::Time when) {
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

int64_t DeadlineScheduler::wakeups() const {
  absl::MutexLock lock(&mu_);
  return wakeups_;
}

void DeadlineScheduler::Loop() {
  while (true) {
    std::vector<std::string> due;
    {
      absl::MutexLock lock(&mu_);
      // Sleep until the earliest entry is due, waking early only to stop or
      // for a new entry that comes due sooner (the condition is re-evaluated
      // whenever a writer releases the mutex). No periodic polling.
      const absl::Time wake =
          queue_.empty() ? absl::InfiniteFuture() : queue_.top().when;
      auto woken = [this, wake]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stop_ || (!queue_.empty() && queue_.top().when < wake);
      };
      mu_.AwaitWithDeadline(absl::Condition(&woken), wake);
      ++wakeups_;
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
