// SyncPool: every job runs and its `done` gets the job's status; jobs run
// at once on several threads; the destructor runs what is still queued.
#include "referee/service/sync_pool.h"

#include <atomic>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

TEST(SyncPoolTest, EachDoneGetsItsJobsStatus) {
  absl::Mutex mu;
  std::vector<absl::StatusCode> codes(2, absl::StatusCode::kUnknown);
  {
    SyncPool pool(2);
    pool.Submit(BlockingSync([] { return absl::OkStatus(); }),
                [&](absl::Status s) {
                  absl::MutexLock lock(&mu);
                  codes[0] = s.code();
                });
    pool.Submit(
        BlockingSync([] { return absl::InternalError("fsync failed"); }),
        [&](absl::Status s) {
          absl::MutexLock lock(&mu);
          codes[1] = s.code();
        });
  }  // Runs what is left, then joins.
  EXPECT_EQ(codes, std::vector<absl::StatusCode>(
                       {absl::StatusCode::kOk, absl::StatusCode::kInternal}));
}

// Two jobs that each wait for the other to start finish only if they run
// at the same time.
TEST(SyncPoolTest, JobsRunAtTheSameTime) {
  absl::Mutex mu;
  int started = 0;
  std::atomic<int> met{0};
  {
    SyncPool pool(4);
    for (int i = 0; i < 2; ++i) {
      pool.Submit(BlockingSync([&] {
                    absl::MutexLock lock(&mu);
                    ++started;
                    auto both = [&started] { return started == 2; };
                    return mu.AwaitWithTimeout(absl::Condition(&both),
                                               absl::Seconds(30))
                               ? absl::OkStatus()
                               : absl::DeadlineExceededError("ran alone");
                  }),
                  [&](absl::Status s) {
                    if (s.ok()) ++met;
                  });
    }
  }
  EXPECT_EQ(met.load(), 2);
}

// One thread: the first job holds it while three more queue behind it.
TEST(SyncPoolTest, StatsCountEachJobsWaitAndSync) {
  absl::Mutex mu;
  bool first_started = false;
  bool release = false;
  std::atomic<int> done{0};
  SyncPool pool(1);
  pool.Submit(BlockingSync([&] {
                absl::MutexLock lock(&mu);
                first_started = true;
                mu.Await(absl::Condition(&release));
                return absl::OkStatus();
              }),
              [&](absl::Status) { ++done; });
  {
    absl::MutexLock lock(&mu);
    mu.Await(absl::Condition(&first_started));
  }
  for (int i = 0; i < 3; ++i) {
    pool.Submit(BlockingSync([] { return absl::OkStatus(); }),
                [&](absl::Status) { ++done; });
  }
  absl::SleepFor(absl::Milliseconds(20));
  {
    absl::MutexLock lock(&mu);
    release = true;
  }
  while (done.load() < 4) absl::SleepFor(absl::Milliseconds(1));
  const SyncPool::Stats stats = pool.stats();
  EXPECT_EQ(stats.waits.count, 4);
  EXPECT_EQ(stats.syncs.count, 4);
  EXPECT_EQ(stats.max_queued, 3u);
  // The first sync held the thread for the 20 ms the others waited.
  EXPECT_GE(stats.syncs.max, absl::Milliseconds(20));
  EXPECT_GE(stats.waits.max, absl::Milliseconds(20));
}

TEST(SyncPoolTest, TheDestructorRunsWhatIsQueued) {
  std::atomic<int> done{0};
  {
    SyncPool pool(1);
    for (int i = 0; i < 100; ++i) {
      pool.Submit(BlockingSync([] { return absl::OkStatus(); }),
                  [&](absl::Status) { ++done; });
    }
  }
  EXPECT_EQ(done.load(), 100);
}

// A job that reports later, from another thread (as a journal's does): the
// destructor waits for its report.
TEST(SyncPoolTest, TheDestructorWaitsForAReportOwed) {
  std::atomic<int> done{0};
  std::thread reporter;
  {
    SyncPool pool(1);
    pool.Submit(
        [&](SyncDone report) {
          reporter = std::thread([report = std::move(report)] {
            absl::SleepFor(absl::Milliseconds(50));
            report(absl::OkStatus());
          });
        },
        [&](absl::Status s) {
          if (s.ok()) ++done;
        });
  }
  EXPECT_EQ(done.load(), 1);
  reporter.join();
}

}  // namespace
}  // namespace pyramid
