// A stop that a thread waiting between rounds of work hears at once:
// Stop raises it, for good, from any thread; WaitFor sleeps until it is
// raised or a timeout passes, whichever comes first. The timeout runs on
// the monotonic clock (std::chrono::steady_clock, SteadyDuration): a step
// of the wall clock neither holds back nor hastens the end of a wait.
// (absl::Mutex::AwaitWithTimeout, absl::CondVar::WaitWithTimeout and
// absl::Notification::WaitForNotificationWithTimeout would not do: Abseil
// 20220623 turns every timeout into a wall clock deadline, which a
// backward step puts off by the step.) For the loops that wait "up to D
// unless stopped": the bot's waits between reconnections (PlayClient), the
// lobby's checkpointer (Lobby::CheckpointLoop).
#ifndef PYRAMID_REFEREE_CORE_STOP_SIGNAL_H_
#define PYRAMID_REFEREE_CORE_STOP_SIGNAL_H_

#include <condition_variable>
#include <mutex>

#include "absl/time/time.h"

namespace pyramid {

class StopSignal {
 public:
  StopSignal() = default;
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;

  // Raises the signal: every wait under way ends now, and every later one
  // at once. Calling it again changes nothing.
  void Stop();

  // Whether Stop was called.
  bool stopped() const;

  // Waits until Stop is called or `timeout` has passed on the monotonic
  // clock (none for zero or less; a century for longer:
  // kLongestSteadyWait); true when stopped (at once if it was already),
  // false when the time was up first.
  bool WaitFor(absl::Duration timeout);

 private:
  // A std::mutex, not an absl::Mutex: its condition variable waits for a
  // steady_clock deadline on the monotonic clock (pthread_cond_clockwait).
  mutable std::mutex mu_;
  std::condition_variable cv_;  // Stop.
  bool stopped_ = false;        // Under mu_.
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_STOP_SIGNAL_H_
