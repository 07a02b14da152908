// Tests of the SPRT against values computed independently: a Python script
// that maximizes each hypothesis' trinomial likelihood directly (a
// golden-section search over the draw probability, the win and loss
// probabilities following from the mean score), without the secular
// equation the implementation solves. Its numbers are quoted where used.

#include "tools/tournament/sprt.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/tournament/ratings.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

using ::testing::HasSubstr;

v1::SprtSettings Settings(double elo0, double elo1, double alpha = 0,
                          double beta = 0) {
  v1::SprtSettings settings;
  settings.set_elo0(elo0);
  settings.set_elo1(elo1);
  settings.set_alpha(alpha);
  settings.set_beta(beta);
  return settings;
}

struct Decided {
  int games = 0;  // Games played when the test stopped.
  v1::SprtOutcome outcome;
};

// Plays `pattern` (W, D, L from bot 0's side) over and over, evaluating the
// test after every game, until it decides or `limit` games are played.
Decided PlayUntilDecided(const v1::SprtSettings& settings,
                         const std::string& pattern, int limit) {
  int wins = 0, draws = 0, losses = 0;
  Decided decided;
  while (decided.games < limit) {
    switch (pattern[decided.games % pattern.size()]) {
      case 'W':
        ++wins;
        break;
      case 'D':
        ++draws;
        break;
      default:
        ++losses;
        break;
    }
    ++decided.games;
    decided.outcome = EvaluateSprt(settings, wins, draws, losses);
    if (decided.outcome.decision() != "inconclusive") break;
  }
  return decided;
}

TEST(ValidateSprtTest, AcceptsDefaultsAndRejectsBadSettings) {
  EXPECT_TRUE(ValidateSprt(Settings(0, 10)).ok());
  EXPECT_TRUE(ValidateSprt(Settings(-3, 1, 0.1, 0.2)).ok());

  const absl::Status order = ValidateSprt(Settings(10, 10));
  EXPECT_EQ(order.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(order.message()), HasSubstr("elo1"));
  EXPECT_FALSE(ValidateSprt(Settings(5, 0)).ok());
  EXPECT_FALSE(ValidateSprt(Settings(0, INFINITY)).ok());
  EXPECT_FALSE(ValidateSprt(Settings(NAN, 5)).ok());
  EXPECT_FALSE(ValidateSprt(Settings(0, 5, 1, 0.05)).ok());
  EXPECT_FALSE(ValidateSprt(Settings(0, 5, -0.1, 0.05)).ok());
  EXPECT_FALSE(ValidateSprt(Settings(0, 5, 0.05, 1.5)).ok());
  EXPECT_EQ(ValidateSprt(Settings(0, 5, 0.6, 0.5)).code(),
            absl::StatusCode::kInvalidArgument);
}

// An Elo value whose expected score is 1 in double (about 6400 and up) once
// passed, and the LLR's bisection then started from -infinity and never
// ended: the runner hung at its first evaluation.
TEST(ValidateSprtTest, RefusesEloBeyondTheRangeTheTestComputes) {
  EXPECT_TRUE(ValidateSprt(Settings(-kMaxSprtElo, kMaxSprtElo)).ok());
  EXPECT_TRUE(ValidateSprt(Settings(3990, 4000)).ok());
  const absl::Status high = ValidateSprt(Settings(0, 7000));
  EXPECT_EQ(high.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(high.message(),
            "sprt: elo1 (7000) must be in [-4000, 4000] (at 4000 Elo the "
            "expected score is already 1 - 1e-10)");
  EXPECT_THAT(std::string(ValidateSprt(Settings(-4000.5, 0)).message()),
              HasSubstr("sprt: elo0 (-4000.5) must be in [-4000, 4000]"));
  EXPECT_FALSE(ValidateSprt(Settings(6400, 6500)).ok());
  EXPECT_FALSE(ValidateSprt(Settings(-1e6, -1e5)).ok());
}

// Runs `f` in a child process that SIGALRM ends after `seconds`: true when
// it returned in time and `f` returned true. A loop that never ends fails
// the test instead of hanging the run.
bool ReturnsTrueInTime(int seconds, bool (*f)()) {
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(seconds);
    _exit(f() ? 0 : 1);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(SprtLogLikelihoodRatioTest, AnExpectedScoreOf0Or1IsNaNAndEnds) {
  ASSERT_EQ(ScoreFromElo(7000), 1.0);
  EXPECT_TRUE(ReturnsTrueInTime(10, [] {
    return std::isnan(SprtLogLikelihoodRatio(0, 7000, 5, 3, 2)) &&
           std::isnan(SprtLogLikelihoodRatio(-1e6, 0, 5, 3, 2)) &&
           std::isnan(SprtLogLikelihoodRatio(0, INFINITY, 5, 3, 2)) &&
           EvaluateSprt(Settings(0, 7000), 5, 3, 2).decision() ==
               "inconclusive";
  }));
  // The ends of the range compute, in as many steps as any value.
  EXPECT_TRUE(std::isfinite(
      SprtLogLikelihoodRatio(-kMaxSprtElo, kMaxSprtElo, 1000, 0, 0)));
  EXPECT_TRUE(std::isfinite(SprtLogLikelihoodRatio(3000, 4000, 0, 0, 1000)));
}

TEST(SprtLogLikelihoodRatioTest, MatchesIndependentMaximization) {
  // From the Python script. For comparison, the usual normal approximation
  // N (s1 - s0)(2 s - s0 - s1) / (2 var) (fastchess, newer cutechess)
  // gives 2.9437, -0.0256, 3.5580 and 2.9922 on the first four.
  EXPECT_NEAR(SprtLogLikelihoodRatio(0, 10, 600, 300, 500), 2.926162571384552,
              1e-9);
  EXPECT_NEAR(SprtLogLikelihoodRatio(0, 10, 4307, 8620, 4063),
              -0.02754600477680924, 1e-9);
  EXPECT_NEAR(SprtLogLikelihoodRatio(0, 5, 4307, 8620, 4063),
              3.5570009726802994, 1e-9);
  EXPECT_NEAR(SprtLogLikelihoodRatio(0, 3, 4307, 8620, 4063), 2.991288808309946,
              1e-9);
  // Zero counts are regularized to 0.001 games, so a perfect start still
  // gives a small, finite ratio.
  EXPECT_NEAR(SprtLogLikelihoodRatio(-5, 0, 10, 0, 0), 0.14494726380625966,
              1e-9);
  EXPECT_NEAR(SprtLogLikelihoodRatio(0, 10, 3, 0, 0), 0.0851036320984353, 1e-9);
  EXPECT_NEAR(SprtLogLikelihoodRatio(0, 50, 3, 2, 1), 0.34430075081881095,
              1e-9);
  EXPECT_EQ(SprtLogLikelihoodRatio(0, 10, 0, 0, 0), 0);
}

TEST(SprtLogLikelihoodRatioTest, SwappingSidesNegatesHypotheses) {
  // Bot 0's results for [elo0, elo1] are bot 1's for [-elo1, -elo0], with
  // the roles of H0 and H1 exchanged.
  EXPECT_NEAR(SprtLogLikelihoodRatio(0, 10, 600, 300, 500),
              -SprtLogLikelihoodRatio(-10, 0, 500, 300, 600), 1e-9);
}

TEST(EvaluateSprtTest, BoundsAndInconclusiveShortRun) {
  const v1::SprtOutcome outcome = EvaluateSprt(Settings(0, 50), 3, 2, 1);
  // ln(0.05 / 0.95) and ln(0.95 / 0.05).
  EXPECT_NEAR(outcome.lower_bound(), -2.9444389791664403, 1e-12);
  EXPECT_NEAR(outcome.upper_bound(), 2.9444389791664403, 1e-12);
  EXPECT_EQ(outcome.decision(), "inconclusive");
  EXPECT_NEAR(outcome.llr(), 0.34430075081881095, 1e-9);
  EXPECT_EQ(outcome.wins(), 3u);
  EXPECT_EQ(outcome.draws(), 2u);
  EXPECT_EQ(outcome.losses(), 1u);
  const EloInterval elo = EloDifference(3, 2, 1);
  EXPECT_EQ(outcome.elo(), elo.elo);
  EXPECT_EQ(outcome.elo_low(), elo.low);
  EXPECT_EQ(outcome.elo_high(), elo.high);
  EXPECT_NEAR(outcome.elo(), EloFromScore(4.0 / 6), 1e-9);

  const v1::SprtOutcome custom =
      EvaluateSprt(Settings(0, 50, 0.1, 0.2), 3, 2, 1);
  EXPECT_NEAR(custom.lower_bound(), std::log(0.2 / 0.9), 1e-12);
  EXPECT_NEAR(custom.upper_bound(), std::log(0.8 / 0.1), 1e-12);
}

TEST(EvaluateSprtTest, AcceptsH1OnAStrongSequence) {
  // W W D W L W D W L W repeated (score 0.7): by the Python script the
  // LLR of [0, 50] is 2.8841 after 47 games and 3.0385 after game 48
  // (29 wins, 10 draws, 9 losses), the first at or above 2.9444.
  const Decided decided = PlayUntilDecided(Settings(0, 50), "WWDWLWDWLW", 1000);
  EXPECT_EQ(decided.games, 48);
  const v1::SprtOutcome& outcome = decided.outcome;
  EXPECT_EQ(outcome.decision(), "H1");
  EXPECT_NEAR(outcome.llr(), 3.038461621902169, 1e-9);
  EXPECT_EQ(outcome.wins(), 29u);
  EXPECT_EQ(outcome.draws(), 10u);
  EXPECT_EQ(outcome.losses(), 9u);
  EXPECT_NEAR(SprtLogLikelihoodRatio(0, 50, 28, 10, 9), 2.8841361554339215,
              1e-9);
}

TEST(EvaluateSprtTest, AcceptsH0OnAWeakSequence) {
  // L W D L W D L W D L repeated (score 0.45): the LLR of [0, 50] is
  // -2.8064 after 80 games and -3.0086 after game 81 (24 wins, 24 draws,
  // 33 losses).
  const Decided decided = PlayUntilDecided(Settings(0, 50), "LWDLWDLWDL", 1000);
  EXPECT_EQ(decided.games, 81);
  const v1::SprtOutcome& outcome = decided.outcome;
  EXPECT_EQ(outcome.decision(), "H0");
  EXPECT_NEAR(outcome.llr(), -3.008556666523307, 1e-9);
  EXPECT_EQ(outcome.wins(), 24u);
  EXPECT_EQ(outcome.draws(), 24u);
  EXPECT_EQ(outcome.losses(), 33u);
  EXPECT_LT(outcome.elo(), 0);
  EXPECT_LT(outcome.elo_low(), outcome.elo());
  EXPECT_GT(outcome.elo_high(), outcome.elo());
}

TEST(EvaluateSprtTest, NoGamesIsInconclusive) {
  const v1::SprtOutcome outcome = EvaluateSprt(Settings(0, 10), 0, 0, 0);
  EXPECT_EQ(outcome.decision(), "inconclusive");
  EXPECT_EQ(outcome.llr(), 0);
  EXPECT_EQ(outcome.elo(), 0);
  EXPECT_TRUE(std::isinf(outcome.elo_low()));
}

// SprtReachableRatios rests on the ratio rising with each win and falling
// with each loss: checked over counts 0..20 for settings from near 0 to
// the ends of ValidateSprt's range.
TEST(SprtLogLikelihoodRatioTest, RisesWithWinsFallsWithLosses) {
  const double settings[][2] = {{0, 5},       {0, 10},        {-5, 5},
                                {-100, -50},  {200, 400},     {-3000, 3000},
                                {3900, 4000}, {-4000, -3900}, {0, 1}};
  for (const auto& [elo0, elo1] : settings) {
    for (int w = 0; w <= 20; ++w) {
      for (int d = 0; d <= 20; ++d) {
        for (int l = 0; l <= 20; ++l) {
          if (w + d + l == 0) continue;  // 0 without games, by definition.
          const double llr = SprtLogLikelihoodRatio(elo0, elo1, w, d, l);
          const double slack = 1e-9 * (1 + std::abs(llr));
          ASSERT_GE(SprtLogLikelihoodRatio(elo0, elo1, w + 1, d, l),
                    llr - slack)
              << elo0 << " " << elo1 << ": " << w << "-" << d << "-" << l;
          ASSERT_LE(SprtLogLikelihoodRatio(elo0, elo1, w, d, l + 1),
                    llr + slack)
              << elo0 << " " << elo1 << ": " << w << "-" << d << "-" << l;
        }
      }
    }
  }
}

TEST(SprtReachableRatiosTest, AreTheExtremesOverEverySubCount) {
  const double settings[][2] = {
      {0, 10}, {-20, 0}, {100, 300}, {3900, 4000}, {-4000, -3900}};
  const int counts[][3] = {{9, 7, 11}, {0, 4, 6}, {5, 3, 0},
                           {0, 0, 4},  {4, 0, 0}, {0, 5, 0}};
  for (const auto& [elo0, elo1] : settings) {
    for (const auto& [wins, draws, losses] : counts) {
      double lowest = 0, highest = 0;  // The empty sub-count's.
      for (int w = 0; w <= wins; ++w) {
        for (int d = 0; d <= draws; ++d) {
          for (int l = 0; l <= losses; ++l) {
            const double llr = SprtLogLikelihoodRatio(elo0, elo1, w, d, l);
            lowest = std::min(lowest, llr);
            highest = std::max(highest, llr);
          }
        }
      }
      const SprtRatioRange range =
          SprtReachableRatios(elo0, elo1, wins, draws, losses);
      EXPECT_DOUBLE_EQ(range.lowest, lowest)
          << elo0 << " " << elo1 << ": " << wins << "-" << draws << "-"
          << losses;
      EXPECT_DOUBLE_EQ(range.highest, highest)
          << elo0 << " " << elo1 << ": " << wins << "-" << draws << "-"
          << losses;
    }
  }
}

TEST(SprtReachableRatiosTest, NoGamesIsZero) {
  const SprtRatioRange range = SprtReachableRatios(0, 10, 0, 0, 0);
  EXPECT_EQ(range.lowest, 0);
  EXPECT_EQ(range.highest, 0);
}

TEST(SprtReachableRatiosTest, BoundTheRatioOfEveryOrder) {
  // 15 wins, 25 losses against [0, 10] (the default error rates: bounds
  // -+2.944): no order of them reaches a bound; 15 straight wins come
  // closest to H1's.
  const SprtRatioRange range = SprtReachableRatios(0, 10, 15, 0, 25);
  EXPECT_NEAR(range.highest, SprtLogLikelihoodRatio(0, 10, 15, 0, 0), 1e-12);
  EXPECT_LT(range.highest, 2.944);
  EXPECT_GT(range.lowest, -2.944);
}

TEST(SprtReachableRatiosTest, OneGameWhenTheOtherSideIsEmpty) {
  // No wins and no draws: the highest is that of one loss (or 0), never
  // the regularized formula's value at no games.
  const SprtRatioRange range = SprtReachableRatios(3900, 4000, 0, 0, 5);
  EXPECT_EQ(range.highest,
            std::max(0.0, SprtLogLikelihoodRatio(3900, 4000, 0, 0, 1)));
  EXPECT_LE(range.lowest, SprtLogLikelihoodRatio(3900, 4000, 0, 0, 5));
}

}  // namespace
}  // namespace pyramid
