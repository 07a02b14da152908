#include "referee/service/sync_pool.h"

#include <algorithm>

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
    job.sync([reports = reports_, started,
              done = std::move(job.done)](absl::Status status) {
      {
        absl::MutexLock lock(&reports->mu);
        reports->stats.syncs.Add(absl::Now() - started);
      }
      done(std::move(status));
      absl::MutexLock lock(&reports->mu);
      --reports->owed;
    });
  }
}

}  // namespace pyramid
