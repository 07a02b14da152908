#include "referee/service/flood_guard.h"

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1000000);

// How many strikes of `seats` seats at `now` the guard allows before the
// first refusal (stopping at `limit`, so a broken guard cannot loop).
int AllowedAt(FloodGuard& guard, size_t seats, absl::Time now,
              int limit = 1000) {
  int allowed = 0;
  while (allowed < limit && guard.Strike(seats, now)) ++allowed;
  return allowed;
}

TEST(FloodGuardTest, TheBurstIsAllowedAndTheNextRefused) {
  FloodGuard guard(/*burst=*/3, /*refill_per_second=*/1, kStart);
  EXPECT_TRUE(guard.Strike(1, kStart));
  EXPECT_TRUE(guard.Strike(1, kStart));
  EXPECT_TRUE(guard.Strike(1, kStart));
  EXPECT_FALSE(guard.Strike(1, kStart));
  EXPECT_FALSE(guard.Strike(1, kStart));
}

TEST(FloodGuardTest, TheRealClockOverloadsKeepTheSameAllowance) {
  // No refill, so the time absl::Now() reads does not matter.
  FloodGuard guard(/*burst=*/2, /*refill_per_second=*/0);
  EXPECT_TRUE(guard.Strike(1));
  EXPECT_TRUE(guard.Strike(1));
  EXPECT_FALSE(guard.Strike(1));
  EXPECT_FALSE(guard.Strike(1, absl::Now() + absl::Hours(1)));
}

TEST(FloodGuardTest, TheAllowanceScalesWithTheSeats) {
  FloodGuard four(/*burst=*/3, /*refill_per_second=*/1, kStart);
  EXPECT_EQ(AllowedAt(four, 4, kStart), 12);
  FloodGuard hundred(/*burst=*/3, /*refill_per_second=*/1, kStart);
  EXPECT_EQ(AllowedAt(hundred, 100, kStart), 300);
}

TEST(FloodGuardTest, RefusalsAddNoDebt) {
  FloodGuard guard(/*burst=*/2, /*refill_per_second=*/1, kStart);
  EXPECT_EQ(AllowedAt(guard, 1, kStart), 2);
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(guard.Strike(1, kStart));
  // One second forgives one refusal, whatever was refused meanwhile.
  EXPECT_EQ(AllowedAt(guard, 1, kStart + absl::Seconds(1)), 1);
}

TEST(FloodGuardTest, DebtDrainsAtTheRefillRateTimesTheSeats) {
  // Two seats of burst 4: a debt of 8, drained at 0.5 * 2 = 1 a second, so
  // 8 s to drain all of it; after 4 s half of it comes back, exactly.
  FloodGuard guard(/*burst=*/4, /*refill_per_second=*/0.5, kStart);
  EXPECT_EQ(AllowedAt(guard, 2, kStart), 8);
  EXPECT_EQ(AllowedAt(guard, 2, kStart + absl::Seconds(4)), 4);

  // A moment short of 4 s is a moment short of the fourth.
  FloodGuard early(/*burst=*/4, /*refill_per_second=*/0.5, kStart);
  EXPECT_EQ(AllowedAt(early, 2, kStart), 8);
  EXPECT_EQ(
      AllowedAt(early, 2, kStart + absl::Seconds(4) - absl::Milliseconds(1)),
      3);

  // Once drained, the whole allowance is back and no more.
  FloodGuard drained(/*burst=*/4, /*refill_per_second=*/0.5, kStart);
  EXPECT_EQ(AllowedAt(drained, 2, kStart), 8);
  EXPECT_EQ(AllowedAt(drained, 2, kStart + absl::Seconds(8)), 8);
}

TEST(FloodGuardTest, TheDrainCountsFromTheLastStrike) {
  FloodGuard guard(/*burst=*/2, /*refill_per_second=*/1, kStart);
  EXPECT_EQ(AllowedAt(guard, 1, kStart), 2);
  // A refused strike at 0.5 s drains half a refusal (a debt of 1.5); the
  // next second drains one more from there, not from the start (which
  // would clear the debt and allow 2).
  EXPECT_FALSE(guard.Strike(1, kStart + absl::Milliseconds(500)));
  EXPECT_EQ(AllowedAt(guard, 1, kStart + absl::Milliseconds(1500)), 1);
}

TEST(FloodGuardTest, AQuietSpellBanksNoMoreThanTheBurst) {
  FloodGuard guard(/*burst=*/3, /*refill_per_second=*/1, kStart);
  EXPECT_TRUE(guard.Strike(1, kStart));
  // An hour forgives 3600 refusals; only the one owed is forgiven.
  EXPECT_EQ(AllowedAt(guard, 1, kStart + absl::Hours(1)), 3);

  FloodGuard quiet(/*burst=*/3, /*refill_per_second=*/1, kStart);
  EXPECT_EQ(AllowedAt(quiet, 1, kStart + absl::Hours(24)), 3);
}

TEST(FloodGuardTest, FewerSeatsLowerTheAllowanceAndTheDebtStays) {
  FloodGuard guard(/*burst=*/2, /*refill_per_second=*/1, kStart);
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(guard.Strike(4, kStart));
  // One seat left: an allowance of 2 against a debt of 6.
  EXPECT_FALSE(guard.Strike(1, kStart));
  EXPECT_FALSE(guard.Strike(2, kStart));
  // The debt was neither scaled down nor forgiven: four seats again have
  // exactly the 2 of their 8 left.
  EXPECT_EQ(AllowedAt(guard, 4, kStart), 2);
  // One seat drains at 1 a second: 7 s bring the debt of 8 down to 1.
  EXPECT_EQ(AllowedAt(guard, 1, kStart + absl::Seconds(7)), 1);
}

TEST(FloodGuardTest, ZeroSeatsCountAsOne) {
  FloodGuard guard(/*burst=*/3, /*refill_per_second=*/1, kStart);
  EXPECT_EQ(AllowedAt(guard, 0, kStart), 3);
  // And drain as one: a second forgives one refusal.
  EXPECT_EQ(AllowedAt(guard, 0, kStart + absl::Seconds(1)), 1);
}

}  // namespace
}  // namespace pyramid
