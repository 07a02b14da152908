// Calls back when matches' deadlines come due, from one background thread.
// Where the process may (CAP_SYS_NICE), that thread waits for deadlines in
// the real-time scheduling class (SCHED_FIFO, lowest priority), so that a
// busy machine does not delay its wake-ups, and calls back at normal
// priority. The queue's mutex, which a Schedule takes only for a deadline
// due sooner than the match's queued entry, inherits that priority
// (pi_mutex.h): a wake-up never waits for a normal thread that holds it to
// get a CPU again.
#ifndef PYRAMID_REFEREE_SERVICE_DEADLINE_SCHEDULER_H_
#define PYRAMID_REFEREE_SERVICE_DEADLINE_SCHEDULER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "referee/service/latency_histogram.h"
#include "referee/service/pi_mutex.h"

namespace pyramid {

class DeadlineScheduler {
 public:
  // A match's deadline as the scheduler keeps it: made by Track, moved by
  // Schedule. The match holds it for its life, the queue while an entry
  // for it waits there.
  class Deadline;

  // `fire(match_id)` runs on the scheduler's thread when the deadline last
  // scheduled for that match is due. Firing early or twice must be harmless
  // (the match re-checks its own deadlines).
  explicit DeadlineScheduler(std::function<void(const std::string&)> fire);
  ~DeadlineScheduler();  // Stop().

  // Stops the thread: waits for the `fire` call under way to return (the
  // other deadlines due with it are dropped); no deadline fires after.
  // Idempotent and thread-safe, but not to be called from `fire`. Schedule may
  // still be called (from `fire` too, while Stop waits for it): the deadline is
  // only queued. An owner whose `fire` reaches the scheduler through the owner
  // calls it before tearing down anything `fire` uses, the scheduler itself
  // included.
  void Stop();

  // Whether Stop has been called: true from the moment Stop sets its stop
  // (before it waits for the call under way), after which no `fire` call
  // begins. Thread-safe; for tests and monitoring: a snapshot, which may be
  // stale by the time it is used (it never turns false again, though).
  bool stopping() const;

  // A deadline for `match_id`, none set yet. Thread-safe.
  std::shared_ptr<Deadline> Track(std::string match_id);

  // Sets the match's next deadline to `when`, replacing the one given
  // before (InfiniteFuture: none). Thread-safe. A match's deadline moves at
  // every phase of every decision; the queue keeps one entry per match
  // where it can (a later deadline waits behind the entry already queued,
  // which requeues it when it comes up) instead of one that fires for
  // nothing per move. So a deadline that moves later, or none, costs two
  // atomic operations and no lock; only one due sooner than the match's
  // queued entry takes the queue's mutex.
  void Schedule(const std::shared_ptr<Deadline>& deadline, absl::Time when);

  // How many times the thread has woken up so far (it sleeps until the
  // earliest deadline is due; stop and sooner deadlines also wake it).
  int64_t wakeups() const;

  // The lateness (when it was taken minus when it was due) of every queue
  // entry this scheduler has popped so far (each counted once, whether it
  // fired, was requeued or was forgotten).
  // Thread-safe.
  LatencyHistogram lateness() const;

 private:
  // Times in Unix nanoseconds; kNone: no time (InfiniteFuture).
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

  struct Entry {
    int64_t when;
    std::shared_ptr<Deadline> deadline;
    bool operator>(const Entry& other) const { return when > other.when; }
  };

  void Loop();
  // Pops every entry due by `now`: returns the deadlines to fire, requeues
  // those that moved later, counts each entry's lateness in `lateness`.
  std::vector<std::shared_ptr<Deadline>> PopDue(int64_t now,
                                                LatencyHistogram& lateness)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::function<void(const std::string&)> fire_;
  // Priority-inheriting: see pi_mutex.h.
  mutable PiMutex mu_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_
      ABSL_GUARDED_BY(mu_);
  // Signalled when the thread must wake before sleeping_until_: to stop, or
  // for a deadline due sooner. (A condition on mu_ itself would have every
  // Schedule evaluate it when unlocking, and the thread wait behind them.)
  PiCondVar wake_;
  // What the thread sleeps until; InfinitePast while it is awake.
  absl::Time sleeping_until_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int64_t wakeups_ ABSL_GUARDED_BY(mu_) = 0;
  LatencyHistogram lateness_ ABSL_GUARDED_BY(mu_);
  // Held by Stop while it joins the thread (another Stop waits for it).
  absl::Mutex join_mu_;
  std::thread thread_ ABSL_GUARDED_BY(join_mu_);
};

class DeadlineScheduler::Deadline {
 public:
  explicit Deadline(std::string match_id) : match_id_(std::move(match_id)) {}
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;

  const std::string& match_id() const { return match_id_; }

 private:
  friend class DeadlineScheduler;
  const std::string match_id_;
  // The deadline set last (kNone: none): stored by Schedule on any thread,
  // taken (set to kNone) by the scheduler's thread when it fires.
  std::atomic<int64_t> when_{kNone};
  // When this deadline's earliest queue entry is due (kNone: none queued).
  // Changed only under the scheduler's mutex; Schedule reads it without.
  std::atomic<int64_t> queued_{kNone};
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_DEADLINE_SCHEDULER_H_
