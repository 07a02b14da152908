// Calls back when matches' deadlines come due, from one background thread.
// Where the process may (CAP_SYS_NICE), that thread waits for deadlines in
// the real-time scheduling class (SCHED_FIFO, lowest priority), so that a
// busy machine does not delay its wake-ups, and calls back at normal
// priority. The queue's mutex, which every Schedule takes, inherits that
// priority (pi_mutex.h): a wake-up never waits for a normal thread that
// holds it to get a CPU again.
#ifndef PYRAMID_REFEREE_SERVICE_DEADLINE_SCHEDULER_H_
#define PYRAMID_REFEREE_SERVICE_DEADLINE_SCHEDULER_H_

#include <array>
#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "referee/service/latency_histogram.h"
#include "referee/service/pi_mutex.h"

namespace pyramid {

class DeadlineScheduler {
 public:
  // `fire(match_id)` runs on the scheduler's thread when the deadline last
  // scheduled for that match is due. Firing early or twice must be harmless
  // (the match re-checks its own deadlines).
  explicit DeadlineScheduler(std::function<void(const std::string&)> fire);
  ~DeadlineScheduler();  // Stops the thread.

  // Sets the match's next deadline to `when`, replacing the one given
  // before (InfiniteFuture: none). A match's deadline moves at every phase
  // of every decision; the queue keeps one entry per match where it can
  // (a later deadline waits behind the entry already queued, which requeues
  // it when it comes up) instead of one that fires for nothing per move.
  void Schedule(const std::string& match_id, absl::Time when);

  // How many times the thread has woken up so far (it sleeps until the
  // earliest deadline is due; stop and sooner deadlines also wake it).
  int64_t wakeups() const;

  // The lateness (when it was taken minus when it was due) of every queue
  // entry this scheduler has popped so far (each counted once, whether it
  // fired, was requeued or was forgotten).
  // Thread-safe.
  LatencyHistogram lateness() const;

 private:
  void Loop();
  // Pops every entry due by `now`: returns the matches to fire, requeues
  // the deadlines that moved later, counts each entry's lateness in
  // `lateness`.
  std::vector<std::string> PopDue(absl::Time now, LatencyHistogram& lateness)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  struct Entry {
    absl::Time when;
    std::string match_id;
    bool operator>(const Entry& other) const { return when > other.when; }
  };
  struct Deadline {
    absl::Time when = absl::InfiniteFuture();    // The match's deadline.
    absl::Time queued = absl::InfiniteFuture();  // Its earliest queue entry.
  };

  const std::function<void(const std::string&)> fire_;
  // Priority-inheriting: see pi_mutex.h.
  mutable PiMutex mu_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_
      ABSL_GUARDED_BY(mu_);
  // Matches with a deadline or a queue entry.
  absl::flat_hash_map<std::string, Deadline> deadlines_ ABSL_GUARDED_BY(mu_);
  // Signalled when the thread must wake before sleeping_until_: to stop, or
  // for a deadline due sooner. (A condition on mu_ itself would have every
  // Schedule evaluate it when unlocking, and the thread wait behind them.)
  PiCondVar wake_;
  // What the thread sleeps until; InfinitePast while it is awake.
  absl::Time sleeping_until_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int64_t wakeups_ ABSL_GUARDED_BY(mu_) = 0;
  LatencyHistogram lateness_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_DEADLINE_SCHEDULER_H_
