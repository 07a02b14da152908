#include "referee/service/latency_histogram.h"

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

TEST(LatencyHistogramTest, PercentilesReadFromTheBuckets) {
  LatencyHistogram lateness;
  EXPECT_EQ(lateness.Percentile(0.99), absl::ZeroDuration());
  for (int i = 0; i < 98; ++i) lateness.Add(absl::Microseconds(50));
  lateness.Add(absl::Microseconds(250));
  lateness.Add(absl::Milliseconds(50));
  lateness.Add(-absl::Milliseconds(1));  // Never early: counted as zero.
  EXPECT_EQ(lateness.count, 101);
  EXPECT_EQ(lateness.max, absl::Milliseconds(50));
  EXPECT_EQ(lateness.Percentile(0.5), absl::Microseconds(100));
  EXPECT_EQ(lateness.Percentile(0.99), absl::Microseconds(300));
  EXPECT_EQ(lateness.Percentile(1.0), absl::Milliseconds(50));
  LatencyHistogram more;
  more.Add(absl::Seconds(5));
  lateness.Merge(more);
  EXPECT_EQ(lateness.count, 102);
  EXPECT_EQ(lateness.max, absl::Seconds(5));
  EXPECT_EQ(lateness.buckets[LatencyHistogram::kBuckets - 1], 1);
}

}  // namespace
}  // namespace pyramid
