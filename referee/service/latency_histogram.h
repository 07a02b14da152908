// A fixed histogram of durations (how late, how long): 0.1 ms buckets up to
// 10 ms, 10 ms buckets up to 1 s, and one bucket for the rest, with the count
// and the maximum. The deadline scheduler's lateness and the sync pool's
// waits are kept in one; a report reads percentiles from it.
#ifndef PYRAMID_REFEREE_SERVICE_LATENCY_HISTOGRAM_H_
#define PYRAMID_REFEREE_SERVICE_LATENCY_HISTOGRAM_H_

#include <array>
#include <cstdint>

#include "absl/time/time.h"

namespace pyramid {

struct LatencyHistogram {
  static constexpr int kFineBuckets = 100;   // [0, 10 ms) by 0.1 ms.
  static constexpr int kCoarseBuckets = 99;  // [10 ms, 1 s) by 10 ms.
  static constexpr int kBuckets = kFineBuckets + kCoarseBuckets + 1;

  int64_t count = 0;                          // Durations added.
  absl::Duration max = absl::ZeroDuration();  // The longest of them.
  std::array<int64_t, kBuckets> buckets{};

  // Adds `duration` (a negative one counts as zero).
  void Add(absl::Duration duration);
  void Merge(const LatencyHistogram& other);
  // The upper bound of the bucket that holds the duration of rank p * count
  // (p in [0, 1]), capped at `max`; zero when nothing was counted.
  absl::Duration Percentile(double p) const;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_LATENCY_HISTOGRAM_H_
