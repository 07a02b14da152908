#include "referee/service/delayed_runner.h"

#include <vector>

#include "referee/core/steady_duration.h"

namespace pyramid {

DelayedRunner::DelayedRunner(absl::Duration delay, absl::Duration slack)
    : delay_(delay),
      steady_delay_(SteadyDuration(delay)),
      steady_slack_(SteadyDuration(slack)),
      thread_([this] { Loop(); }) {}

DelayedRunner::~DelayedRunner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void DelayedRunner::Post(std::function<void()> call) {
  bool first;
  {
    std::lock_guard<std::mutex> lock(mu_);
    first = pending_.empty();
    pending_.emplace_back(Clock::now() + steady_delay_, std::move(call));
  }
  // A call posted behind others is due after them: the thread, asleep
  // until the first is due, need not wake for it.
  if (first) wake_.notify_one();
}

void DelayedRunner::Loop() {
  std::vector<std::function<void()>> due;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stop_ || !pending_.empty(); });
    if (stop_) return;
    // Sleeps until the first call is due (or the runner stops). Only this
    // thread takes calls out: the first stays first meanwhile.
    const Clock::time_point first_due = pending_.front().first;
    if (wake_.wait_until(lock, first_due, [this] { return stop_; })) return;
    // What is due by then runs now: at most `slack` early.
    const Clock::time_point due_by = Clock::now() + steady_slack_;
    while (!pending_.empty() && pending_.front().first <= due_by) {
      due.push_back(std::move(pending_.front().second));
      pending_.pop_front();
    }
    lock.unlock();
    for (std::function<void()>& call : due) call();
    due.clear();
    lock.lock();
  }
}

}  // namespace pyramid
