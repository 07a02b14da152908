// Cancels the gRPC calls that stay silent: each call added has a
// deadline, moved on by each of its events (Heard); one whose deadline
// passes first is cancelled (TryCancel) and marked, so that its caller can
// say why it ended (Remove). One thread serves every call, started with
// the first Add and joined when the watchdog goes. Its time is the
// monotonic clock's, and the thread sleeps on it too: a suspended machine,
// or a wall clock set forward, cancels nothing, and a wall clock set back
// holds back no cancellation. (absl::CondVar's timed waits would not do:
// Abseil 20220623 turns a timeout into a wall clock deadline.) For the
// referee's gRPC clients: the tournament's RefereeLink watches its Watch
// streams with it (SilenceLimit, tools/tournament/remote_match_bounds.h),
// and a log's download (log_fetch.h) its GetLog calls (stall_limit).
#ifndef PYRAMID_REFEREE_CLI_SILENCE_WATCHDOG_H_
#define PYRAMID_REFEREE_CLI_SILENCE_WATCHDOG_H_

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"

namespace pyramid {

class SilenceWatchdog {
 public:
  SilenceWatchdog() = default;
  SilenceWatchdog(const SilenceWatchdog&) = delete;
  SilenceWatchdog& operator=(const SilenceWatchdog&) = delete;
  ~SilenceWatchdog();

  // Watches `context`, whose call has begun: cancelled unless an event
  // comes within `limit` (never, for a limit beyond a century). Removed
  // before the context goes.
  void Add(grpc::ClientContext* context, absl::Duration limit);

  // An event came on `context`'s call: the next must come within `limit`.
  // Nothing for a call not watched, or already cancelled.
  void Heard(grpc::ClientContext* context, absl::Duration limit);

  // Stops watching `context`; true when it was cancelled for its silence.
  bool Remove(grpc::ClientContext* context);

 private:
  using Clock = std::chrono::steady_clock;
  struct Stream {
    Clock::time_point deadline;
    bool silenced = false;
  };

  // `limit` from now (SteadyDuration, referee/core/steady_duration.h), or
  // never for a limit of a century or more (kLongestSteadyWait).
  static Clock::time_point DeadlineAfter(absl::Duration limit);

  // Cancels each call whose deadline has passed, then sleeps until the
  // next deadline (a deadline Heard moved later is found at the earlier
  // one) or an Add.
  void Loop();

  // A std::mutex, not an absl::Mutex: its condition variable waits for a
  // steady_clock deadline on the monotonic clock (pthread_cond_clockwait).
  std::mutex mu_;
  std::condition_variable cv_;                      // An Add, or stop.
  std::map<grpc::ClientContext*, Stream> streams_;  // Under mu_.
  bool stop_ = false;                               // Under mu_.
  std::thread thread_;                              // Started by the first Add.
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_SILENCE_WATCHDOG_H_
