#include "referee/service/latency_histogram.h"

#include <algorithm>

namespace pyramid {

void LatencyHistogram::Add(absl::Duration duration) {
  duration = std::max(duration, absl::ZeroDuration());
  ++count;
  max = std::max(max, duration);
  const int64_t us = absl::ToInt64Microseconds(duration);
  int bucket = kBuckets - 1;
  if (us < 10'000) {
    bucket = static_cast<int>(us / 100);
  } else if (us < 1'000'000) {
    bucket = kFineBuckets + static_cast<int>((us - 10'000) / 10'000);
  }
  ++buckets[bucket];
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  count += other.count;
  max = std::max(max, other.max);
  for (int i = 0; i < kBuckets; ++i) buckets[i] += other.buckets[i];
}

absl::Duration LatencyHistogram::Percentile(double p) const {
  if (count == 0) return absl::ZeroDuration();
  // The entry of rank ceil(p * count), counting from 1.
  const int64_t rank = std::max<int64_t>(
      1, std::min<int64_t>(count, static_cast<int64_t>(p * count + 0.999999)));
  int64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets[i];
    if (seen < rank) continue;
    const absl::Duration upper =
        i < kFineBuckets ? absl::Microseconds(100 * (i + 1))
        : i < kBuckets - 1
            ? absl::Milliseconds(10 + 10 * (i - kFineBuckets + 1))
            : max;
    return std::min(upper, max);
  }
  return max;
}

}  // namespace pyramid
