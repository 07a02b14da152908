// DeadlineScheduler on the real clock: deadlines fire once, not before they
// are due, in order, a sooner deadline set later is not held up behind a
// later one, and the thread sleeps while nothing is due (no polling); the
// lateness accounting counts every popped entry once (not timed: how late
// the real clock's wake-ups are is not asserted); a deadline moved from
// many threads while the scheduler pops is never lost; and Stop waits for
// the call under way, after which nothing fires.
#include "referee/service/deadline_scheduler.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

class DeadlineSchedulerTest : public ::testing::Test {
 protected:
  // The (match id, time fired) pairs so far.
  std::vector<std::pair<std::string, absl::Time>> Fired() {
    absl::MutexLock lock(&mu_);
    return fired_;
  }
  // Waits until `count` deadlines have fired, or 10 s.
  void AwaitFired(size_t count) {
    absl::MutexLock lock(&mu_);
    auto done = [this, count]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return fired_.size() >= count;
    };
    mu_.AwaitWithTimeout(absl::Condition(&done), absl::Seconds(10));
  }

  // The deadline of the match `match_id`, the same on every call.
  const std::shared_ptr<DeadlineScheduler::Deadline>& Track(
      const std::string& match_id) {
    std::shared_ptr<DeadlineScheduler::Deadline>& deadline =
        deadlines_[match_id];
    if (deadline == nullptr) deadline = scheduler_.Track(match_id);
    return deadline;
  }

  absl::Mutex mu_;
  std::vector<std::pair<std::string, absl::Time>> fired_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<DeadlineScheduler::Deadline>>
      deadlines_;
  DeadlineScheduler scheduler_{[this](const std::string& match_id) {
    absl::MutexLock lock(&mu_);
    fired_.push_back({match_id, absl::Now()});
  }};
};

TEST_F(DeadlineSchedulerTest, SleepsWhileNothingIsDue) {
  const int64_t before = scheduler_.wakeups();
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(scheduler_.wakeups(), before);
  scheduler_.Schedule(Track("later"), absl::Now() + absl::Hours(1));
  absl::SleepFor(absl::Milliseconds(300));
  // Woken once by the new entry, then asleep until it is due.
  EXPECT_LE(scheduler_.wakeups(), before + 1);
  EXPECT_TRUE(Fired().empty());
}

// "a" is due long after "b" (a second), so that a thread woken late on a
// loaded machine still fires "b" before "a" is due: with 100 ms between
// them, "b" fired after "a" was due in 2 of 65 runs on a loaded machine.
TEST_F(DeadlineSchedulerTest, FiresEachDeadlineOnceNotBeforeItIsDue) {
  const absl::Time start = absl::Now();
  const absl::Time a = start + absl::Seconds(1);
  const absl::Time b = start + absl::Milliseconds(50);
  scheduler_.Schedule(Track("a"), a);  // Queued first, due last.
  scheduler_.Schedule(Track("b"), b);  // Must not wait behind "a".
  AwaitFired(2);
  absl::SleepFor(absl::Milliseconds(100));
  const auto fired = Fired();
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0].first, "b");
  EXPECT_GE(fired[0].second, b);
  EXPECT_LT(fired[0].second, a);
  EXPECT_EQ(fired[1].first, "a");
  EXPECT_GE(fired[1].second, a);
}

// Each deadline is set 300 ms ahead, then moved or cleared: a thread
// preempted between the two calls for less than that cannot have it fire
// at the first time. (At 30 ms, a pause of 30 ms on a loaded machine did.)
TEST_F(DeadlineSchedulerTest, AMovedOrClearedDeadlineFiresOnlyWhenItIsDue) {
  const absl::Time start = absl::Now();
  scheduler_.Schedule(Track("moved"), start + absl::Milliseconds(300));
  scheduler_.Schedule(Track("moved"), start + absl::Seconds(1));
  scheduler_.Schedule(Track("cleared"), start + absl::Milliseconds(300));
  scheduler_.Schedule(Track("cleared"), absl::InfiniteFuture());
  AwaitFired(1);
  absl::SleepFor(absl::Milliseconds(100));
  const auto fired = Fired();
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].first, "moved");
  EXPECT_GE(fired[0].second, start + absl::Seconds(1));
}

TEST_F(DeadlineSchedulerTest, LatenessCountsEveryPoppedEntryOnce) {
  const absl::Time start = absl::Now();
  scheduler_.Schedule(Track("a"), start + absl::Milliseconds(20));
  scheduler_.Schedule(Track("b"), start + absl::Milliseconds(40));
  // Queued for 300 ms, moved to 2 s: popped at 300 ms and requeued, popped
  // again at 2 s, when it fires. (Moved to 60 ms, a thread woken after
  // 60 ms on a loaded machine popped it once, already due: 5 of 65 runs
  // counted 3. Queued for 30 ms, a pause of 30 ms before the move fired it
  // then, and again at the moved time.)
  scheduler_.Schedule(Track("moved"), start + absl::Milliseconds(300));
  scheduler_.Schedule(Track("moved"), start + absl::Seconds(2));
  AwaitFired(3);
  absl::SleepFor(absl::Milliseconds(50));
  ASSERT_EQ(Fired().size(), 3u);
  const LatencyHistogram lateness = scheduler_.lateness();
  EXPECT_EQ(lateness.count, 4);
  EXPECT_GE(lateness.max, absl::ZeroDuration());
  int64_t bucketed = 0;
  for (int64_t n : lateness.buckets) bucketed += n;
  EXPECT_EQ(bucketed, 4);
  EXPECT_LE(lateness.Percentile(0.99), lateness.max);
}

// Schedule moves a deadline later without the queue's mutex, racing with
// the thread that pops the match's queued entry: one of the two must see
// the other's move (deadline_scheduler.cc). Eight threads move the
// deadlines of 64 matches each, sooner, later, cleared and past, while
// they come due; then each match's last deadline must fire, at or after
// the time it was set to.
TEST_F(DeadlineSchedulerTest, NoDeadlineIsLostToAMoveThatRacesThePop) {
  constexpr int kThreads = 8;
  constexpr int kMatchesPerThread = 64;
  std::vector<std::map<std::string, absl::Time>> last(kThreads);
  std::vector<std::vector<std::shared_ptr<DeadlineScheduler::Deadline>>>
      deadlines(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    for (int m = 0; m < kMatchesPerThread; ++m) {
      deadlines[t].push_back(
          scheduler_.Track("t" + std::to_string(t) + "m" + std::to_string(m)));
    }
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      uint64_t state = 0x9e3779b97f4a7c15ULL * (t + 1);
      auto next = [&state](uint64_t bound) {  // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return (state * 2685821657736338717ULL) % bound;
      };
      const absl::Time stop_moving = absl::Now() + absl::Milliseconds(300);
      while (absl::Now() < stop_moving) {
        const auto& deadline = deadlines[t][next(kMatchesPerThread)];
        const uint64_t kind = next(8);
        scheduler_.Schedule(
            deadline,
            kind == 0 ? absl::InfiniteFuture()
                      : absl::Now() +
                            absl::Milliseconds(static_cast<int>(next(30)) - 5));
      }
      for (int m = 0; m < kMatchesPerThread; ++m) {
        const absl::Time when =
            absl::Now() + absl::Milliseconds(static_cast<int>(next(40)));
        scheduler_.Schedule(deadlines[t][m], when);
        last[t][deadlines[t][m]->match_id()] = when;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  // The matches whose last deadline has not fired (yet).
  auto count_lost = [&] {
    std::map<std::string, absl::Time> latest_fired;
    for (const auto& [match_id, when] : Fired()) {
      absl::Time& latest = latest_fired[match_id];
      latest = std::max(latest, when);
    }
    int lost = 0;
    for (const std::map<std::string, absl::Time>& of_thread : last) {
      for (const auto& [match_id, when] : of_thread) {
        auto it = latest_fired.find(match_id);
        if (it == latest_fired.end() || it->second < when) ++lost;
      }
    }
    return lost;
  };
  // Every last deadline is due within 40 ms; the scheduler's thread may
  // wake late on a loaded machine, and a lost deadline never fires: waits
  // until none is missing, or 10 s.
  int lost = count_lost();
  for (const absl::Time give_up = absl::Now() + absl::Seconds(10);
       lost > 0 && absl::Now() < give_up; lost = count_lost()) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(lost, 0) << "of " << kThreads * kMatchesPerThread;
}

// Stop waits for the call under way, which hands the match's next deadline
// to the scheduler through its owner (as a lobby's match does): the owner's
// pointer is still there, the deadline is only queued, and nothing fires
// after, neither the deadline due with it nor one scheduled after Stop.
// Stop is idempotent.
TEST(DeadlineSchedulerStopTest, WaitsForTheCallUnderWayAndFiresNothingAfter) {
  absl::Notification entered;
  absl::Notification release;
  std::atomic<int> fired = 0;
  std::unique_ptr<DeadlineScheduler> scheduler;
  std::map<std::string, std::shared_ptr<DeadlineScheduler::Deadline>> tracked;
  scheduler =
      std::make_unique<DeadlineScheduler>([&](const std::string& match_id) {
        ++fired;
        if (!entered.HasBeenNotified()) entered.Notify();
        release.WaitForNotification();
        scheduler->Schedule(tracked.at(match_id), absl::Now());
      });
  for (const char* match_id : {"a", "b"}) {
    tracked[match_id] = scheduler->Track(match_id);
  }
  const absl::Time now = absl::Now();
  for (const auto& [match_id, deadline] : tracked) {
    scheduler->Schedule(deadline, now);
  }
  entered.WaitForNotification();
  std::atomic<bool> stopped = false;
  std::thread stopping([&] {
    scheduler->Stop();
    stopped = true;
  });
  // Stop waits for the call: releases it once Stop has set its stop (at
  // most 10 s: a loaded machine may start the thread late), and checks
  // that Stop has not returned meanwhile.
  // (With a fixed 200 ms instead, a Stop not entered by then let "b" fire.)
  bool waiting = false;
  for (const absl::Time give_up = absl::Now() + absl::Seconds(10);
       !(waiting = scheduler->stopping()) && absl::Now() < give_up;) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_TRUE(waiting) << "Stop did not wait for the call under way";
  EXPECT_FALSE(stopped) << "Stop returned before the call under way";
  release.Notify();
  stopping.join();
  EXPECT_EQ(fired.load(), 1);
  scheduler->Schedule(tracked.at("a"), absl::Now());
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_EQ(fired.load(), 1);
  scheduler->Stop();
  scheduler.reset();
  EXPECT_EQ(fired.load(), 1);
}

}  // namespace
}  // namespace pyramid
