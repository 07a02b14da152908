// How many refused messages a Play stream may send before it is closed: a
// token bucket per seat the stream plays (ServiceLimits::flood_burst and
// flood_refill_per_second). Not thread-safe: one stream's reads use it.
// Time is read from absl::Now() unless given (the overloads taking a time,
// for tests).
#ifndef PYRAMID_REFEREE_SERVICE_FLOOD_GUARD_H_
#define PYRAMID_REFEREE_SERVICE_FLOOD_GUARD_H_

#include <algorithm>
#include <cstddef>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace pyramid {

// Refused messages a stream may send: a token bucket, per seat the stream
// plays (a bot's stream carries hundreds; when its matches go wrong each
// seat may be refused a late message or two, which is no flood).
class FloodGuard {
 public:
  FloodGuard(double burst, double refill_per_second)
      : FloodGuard(burst, refill_per_second, absl::Now()) {}
  // As above, with the bucket's clock starting at `start`.
  FloodGuard(double burst, double refill_per_second, absl::Time start)
      : burst_(burst), refill_(refill_per_second), last_(start) {}
  // Counts one refused message of a stream playing `seats` seats (at least
  // 1); false when that takes it past its allowance.
  bool Strike(size_t seats) { return Strike(seats, absl::Now()); }
  // As above, at time `now` (never before the previous strike's or start).
  bool Strike(size_t seats, absl::Time now) {
    const double scale = static_cast<double>(std::max<size_t>(seats, 1));
    // Refusals not yet forgiven, which drain at the refill rate: kept as a
    // debt rather than tokens left, so that the allowance follows the
    // seats as they come and go.
    debt_ = std::max(
        0.0, debt_ - refill_ * scale * absl::ToDoubleSeconds(now - last_));
    last_ = now;
    if (debt_ + 1 > burst_ * scale) return false;
    debt_ += 1;
    return true;
  }

 private:
  const double burst_;
  const double refill_;
  double debt_ = 0;
  absl::Time last_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_FLOOD_GUARD_H_
