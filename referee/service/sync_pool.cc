#include "referee/service/sync_pool.h"

#include <algorithm>
#include <memory>
#include <thread>

#include "absl/time/clock.h"

namespace pyramid {

SyncPool::SyncPool(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

SyncPool::~SyncPool() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  for (std::thread& thread : threads_) thread.join();
  Reports& reports = *reports_;
  absl::MutexLock lock(&reports.mu);
  auto reported = [&reports]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(reports.mu) {
    return reports.owed == 0;
  };
  reports.mu.Await(absl::Condition(&reported));
}

void SyncPool::Submit(SyncJob sync, SyncDone done) {
  const absl::Time now = absl::Now();
  if (!sync.may_block) {
    {
      absl::MutexLock lock(&reports_->mu);
      reports_->stats.waits.Add(absl::ZeroDuration());
      ++reports_->owed;
    }
    // Such a job may still report before it returns (an error, or nothing
    // to keep): its `done` then goes to a pool thread, since the caller may
    // hold locks that `done` takes. (`running` is read on this thread only.)
    const std::thread::id caller = std::this_thread::get_id();
    auto running = std::make_shared<bool>(true);
    Run(std::move(sync), std::move(done), now,
        [this, caller, running](absl::Status& status, SyncDone& done) {
          if (std::this_thread::get_id() != caller || !*running) return false;
          absl::MutexLock lock(&mu_);
          jobs_.push_back({BlockingSync([status] { return status; }),
                           std::move(done), absl::Now()});
          return true;
        });
    *running = false;
    return;
  }
  absl::MutexLock lock(&mu_);
  jobs_.push_back({std::move(sync), std::move(done), now});
  absl::MutexLock stats_lock(&reports_->mu);
  reports_->stats.max_queued =
      std::max(reports_->stats.max_queued, jobs_.size());
}

SyncPool::Stats SyncPool::stats() const {
  absl::MutexLock lock(&reports_->mu);
  return reports_->stats;
}

void SyncPool::Loop() {
  while (true) {
    Job job;
    absl::Time started;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stop_ || !jobs_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      if (jobs_.empty()) return;  // Stopping, and nothing is left.
      job = std::move(jobs_.front());
      jobs_.pop_front();
      started = absl::Now();
      absl::MutexLock stats_lock(&reports_->mu);
      reports_->stats.waits.Add(started - job.submitted);
      ++reports_->owed;
    }
    Run(std::move(job.sync), std::move(job.done), started);
  }
}

void SyncPool::Run(SyncJob sync, SyncDone done, absl::Time started,
                   std::function<bool(absl::Status&, SyncDone&)> divert) {
  sync.run([reports = reports_, started, divert = std::move(divert),
            done = std::move(done)](absl::Status status) mutable {
    if (divert && divert(status, done)) {
      // Reported again by the job it became.
      absl::MutexLock lock(&reports->mu);
      --reports->owed;
      return;
    }
    {
      absl::MutexLock lock(&reports->mu);
      reports->stats.syncs.Add(absl::Now() - started);
    }
    done(std::move(status));
    absl::MutexLock lock(&reports->mu);
    --reports->owed;
  });
}

}  // namespace pyramid
