#include "referee/service/delayed_runner.h"

#include <vector>

namespace pyramid {

DelayedRunner::DelayedRunner(absl::Duration delay, absl::Duration slack)
    : delay_(delay), slack_(slack), thread_([this] { Loop(); }) {}

DelayedRunner::~DelayedRunner() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

void DelayedRunner::Post(std::function<void()> call) {
  absl::MutexLock lock(&mu_);
  pending_.emplace_back(absl::Now() + delay_, std::move(call));
}

void DelayedRunner::Loop() {
  std::vector<std::function<void()>> due;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      auto stop_or_pending = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stop_ || !pending_.empty();
      };
      mu_.Await(absl::Condition(&stop_or_pending));
      if (stop_) return;
      // Sleeps until the first call is due (or the runner stops).
      auto stopped = [this]()
                         ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_; };
      if (mu_.AwaitWithDeadline(absl::Condition(&stopped),
                                pending_.front().first)) {
        return;
      }
      // What is due by then runs now: at most `slack_` early.
      const absl::Time due_by = absl::Now() + slack_;
      while (!pending_.empty() && pending_.front().first <= due_by) {
        due.push_back(std::move(pending_.front().second));
        pending_.pop_front();
      }
    }
    for (std::function<void()>& call : due) call();
    due.clear();
  }
}

}  // namespace pyramid
