// The referee's sense of time, injectable so tests need no sleeping.
#ifndef PYRAMID_REFEREE_CORE_CLOCK_H_
#define PYRAMID_REFEREE_CORE_CLOCK_H_

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace pyramid {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
};

// Wall-clock time.
class SystemClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
  // A process-wide instance.
  static SystemClock* Get() {
    static SystemClock clock;
    return &clock;
  }
};

// Time that moves only when told to (tests, simulations).
class FakeClock final : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1800000000))
      : now_(start) {}
  absl::Time Now() const override { return now_; }
  void Advance(absl::Duration d) { now_ += d; }

 private:
  absl::Time now_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_CLOCK_H_
