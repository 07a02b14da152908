// Tests of the rating math against values computed by hand or by an
// independent implementation (a Python script using Hunter's MM iterations
// for the maximum and Gauss–Jordan elimination for the covariance; the
// numbers it printed are quoted where they are used).

#include "tools/tournament/ratings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kEloPerNat = 173.71779276130073;  // 400 / ln(10).

// Appends `wins`, `draws` and `losses` of bot a against bot b.
void AddGames(std::vector<BradleyTerryGame>& games, int a, int b, int wins,
              int draws, int losses, double information = 1) {
  for (int i = 0; i < wins; ++i) games.push_back({a, b, 1, information});
  for (int i = 0; i < draws; ++i) games.push_back({a, b, 0.5, information});
  for (int i = 0; i < losses; ++i) games.push_back({a, b, 0, information});
}

void ExpectInterval(const EloInterval& actual, double elo, double low,
                    double high, double tolerance = 1e-6) {
  EXPECT_NEAR(actual.elo, elo, tolerance);
  EXPECT_NEAR(actual.low, low, tolerance);
  EXPECT_NEAR(actual.high, high, tolerance);
}

void ExpectUnbounded(const EloInterval& actual) {
  EXPECT_EQ(actual.low, -kInfinity);
  EXPECT_EQ(actual.high, kInfinity);
}

v1::TournamentMatchResult Match(const std::vector<std::string>& bots,
                                const std::vector<int>& ranks,
                                const std::string& verdict = "genuine") {
  v1::TournamentMatchResult result;
  for (const std::string& bot : bots) result.add_seats(bot);
  for (int rank : ranks) result.mutable_outcome()->add_seats()->set_rank(rank);
  result.set_verdict(verdict);
  return result;
}

TEST(EloFromScoreTest, KnownScores) {
  EXPECT_EQ(EloFromScore(0.5), 0);
  // -400 log10(1/3) = 400 log10(3).
  EXPECT_NEAR(EloFromScore(0.75), 190.848501887865, 1e-9);
  EXPECT_NEAR(EloFromScore(0.25), -190.848501887865, 1e-9);
  // -400 log10(0.36 / 0.64) = 99.95...: 64% is about 100 Elo.
  EXPECT_NEAR(EloFromScore(0.64), 99.95098928663995, 1e-9);
  EXPECT_EQ(EloFromScore(1), kInfinity);
  EXPECT_EQ(EloFromScore(0), -kInfinity);
  EXPECT_EQ(EloFromScore(-0.1), -kInfinity);
}

TEST(EloFromScoreTest, ScoreFromEloInvertsIt) {
  for (double score : {0.01, 0.2, 0.5, 0.64, 0.9, 0.999}) {
    EXPECT_NEAR(ScoreFromElo(EloFromScore(score)), score, 1e-12);
  }
  EXPECT_DOUBLE_EQ(ScoreFromElo(400), 10.0 / 11);
}

TEST(EloDifferenceTest, HandComputedInterval) {
  // 6 wins, 2 draws, 2 losses: s = 0.7; per-game variance
  // (6 * 0.3^2 + 2 * 0.2^2 + 2 * 0.7^2) / 10 = 0.16; standard error
  // sqrt(0.016) = 0.126491; margin 1.959964 * 0.126491 = 0.247918;
  // Elo(0.7) = 147.19, Elo(0.452082) = -33.40, Elo(0.947918) = 504.03.
  ExpectInterval(EloDifference(6, 2, 2), 147.19071411783776, -33.39935000168885,
                 504.03329224498987, 1e-9);
}

TEST(EloDifferenceTest, SymmetricAndDegenerateCases) {
  const EloInterval even = EloDifference(5, 10, 5);
  EXPECT_EQ(even.elo, 0);
  EXPECT_NEAR(even.low, -even.high, 1e-9);
  EXPECT_LT(even.low, 0);

  // All draws: no spread, a zero-width interval (as cutechess-cli reports).
  ExpectInterval(EloDifference(0, 4, 0), 0, 0, 0);

  const EloInterval none = EloDifference(0, 0, 0);
  EXPECT_EQ(none.elo, 0);
  ExpectUnbounded(none);

  const EloInterval perfect = EloDifference(12, 0, 0);
  EXPECT_EQ(perfect.elo, kInfinity);
  ExpectUnbounded(perfect);
  EXPECT_EQ(EloDifference(0, 0, 3).elo, -kInfinity);
  ExpectUnbounded(EloDifference(0, 0, 3));
}

TEST(EloDifferenceTest, LowerBoundReachesZeroScore) {
  // 1 win, 1 loss: s = 0.5, standard error 0.5 / sqrt(2) = 0.354, so
  // s - 1.96 * 0.354 < 0 and s + 1.96 * 0.354 > 1.
  const EloInterval wide = EloDifference(1, 0, 1);
  EXPECT_EQ(wide.elo, 0);
  ExpectUnbounded(wide);
}

TEST(PairwiseGamesTest, TwoSeatsGiveOneGame) {
  const auto win = PairwiseGames(Match({"a", "b"}, {1, 2}));
  ASSERT_EQ(win.size(), 1u);
  EXPECT_EQ(win[0].first, "a");
  EXPECT_EQ(win[0].second, "b");
  EXPECT_EQ(win[0].score, 1);
  EXPECT_EQ(win[0].information, 1);

  const auto loss = PairwiseGames(Match({"a", "b"}, {2, 1}));
  ASSERT_EQ(loss.size(), 1u);
  EXPECT_EQ(loss[0].score, 0);

  // A shared rank is a draw.
  const auto draw = PairwiseGames(Match({"a", "b"}, {1, 1}));
  ASSERT_EQ(draw.size(), 1u);
  EXPECT_EQ(draw[0].score, 0.5);
}

TEST(PairwiseGamesTest, EveryPairOfSeatsWithSharedRanks) {
  // Competition ranks 2, 1, 2, 4: b first, a and c share second, d last.
  const auto games = PairwiseGames(Match({"a", "b", "c", "d"}, {2, 1, 2, 4}));
  struct Expected {
    const char* first;
    const char* second;
    double score;
  };
  const std::vector<Expected> expected = {
      {"a", "b", 0}, {"a", "c", 0.5}, {"a", "d", 1},
      {"b", "c", 1}, {"b", "d", 1},   {"c", "d", 1},
  };
  ASSERT_EQ(games.size(), expected.size());
  for (size_t i = 0; i < games.size(); ++i) {
    EXPECT_EQ(games[i].first, expected[i].first) << i;
    EXPECT_EQ(games[i].second, expected[i].second) << i;
    EXPECT_EQ(games[i].score, expected[i].score) << i;
    EXPECT_DOUBLE_EQ(games[i].information, 3.0 / 5) << i;
  }
}

TEST(PairwiseGamesTest, SkipsMissingSeatsAndSelfPairs) {
  EXPECT_TRUE(PairwiseGames(Match({"a", "b"}, {1})).empty());
  EXPECT_TRUE(PairwiseGames(Match({"a", "a"}, {1, 2})).empty());
  // Three names but two outcomes: only the first two seats count.
  EXPECT_EQ(PairwiseGames(Match({"a", "b", "c"}, {1, 2})).size(), 1u);
}

TEST(PairwiseInformationShareTest, DerivedFactor) {
  EXPECT_EQ(PairwiseInformationShare(2), 1);
  EXPECT_DOUBLE_EQ(PairwiseInformationShare(3), 0.75);
  EXPECT_DOUBLE_EQ(PairwiseInformationShare(4), 0.6);
  EXPECT_DOUBLE_EQ(PairwiseInformationShare(6), 3.0 / 7);
}

TEST(BradleyTerryTest, TwoBotsReduceToEloFromScore) {
  // 7 wins, 2 draws, 3 losses: s = 2/3, so the difference is
  // EloFromScore(2/3) = 400 log10(2) = 120.41 and each bot is half of it
  // from 0. The information of n games at p = s is n p (1 - p) for the
  // difference, so the standard error of each rating (half the
  // difference) is 1 / (2 sqrt(n p (1 - p))) natural units.
  std::vector<BradleyTerryGame> games;
  AddGames(games, 0, 1, 7, 2, 3);
  const std::vector<EloInterval> ratings = FitBradleyTerry(2, games);
  ASSERT_EQ(ratings.size(), 2u);
  const double half = EloFromScore(2.0 / 3) / 2;
  const double margin =
      kZ95 * kEloPerNat / (2 * std::sqrt(12 * (2.0 / 3) * (1.0 / 3)));
  EXPECT_NEAR(half, 60.205999132796244, 1e-9);
  ExpectInterval(ratings[0], half, half - margin, half + margin, 1e-9);
  ExpectInterval(ratings[1], -half, -half - margin, -half + margin, 1e-9);
}

TEST(BradleyTerryTest, LopsidedButFiniteScore) {
  // 99 wins, 1 loss: far from the start at 0, Newton still lands on
  // EloFromScore(0.99) / 2 = 399.1.
  std::vector<BradleyTerryGame> games;
  AddGames(games, 1, 0, 99, 0, 1);
  const std::vector<EloInterval> ratings = FitBradleyTerry(2, games);
  EXPECT_NEAR(ratings[1].elo, EloFromScore(0.99) / 2, 1e-9);
  EXPECT_NEAR(ratings[0].elo, -EloFromScore(0.99) / 2, 1e-9);
  EXPECT_LT(ratings[1].low, ratings[1].elo);
  EXPECT_GT(ratings[1].high, ratings[1].elo);
}

TEST(BradleyTerryTest, SymmetricCycleIsAllZero) {
  // 0 beats 1, 1 beats 2, 2 beats 0, twice each.
  std::vector<BradleyTerryGame> games;
  AddGames(games, 0, 1, 2, 0, 0);
  AddGames(games, 1, 2, 2, 0, 0);
  AddGames(games, 2, 0, 2, 0, 0);
  const std::vector<EloInterval> ratings = FitBradleyTerry(3, games);
  ASSERT_EQ(ratings.size(), 3u);
  // Each pair played twice at p = 1/2 (weight 2 / 4): the Laplacian is
  // 0.5 (3 I - J), whose pseudo-inverse (2/3)(I - J/3) has diagonal 4/9:
  // standard error 2/3, margin 1.96 * (2/3) * 173.72 = 226.98 Elo.
  const double margin = kZ95 * (2.0 / 3) * kEloPerNat;
  for (const EloInterval& rating : ratings) {
    ExpectInterval(rating, 0, -margin, margin, 1e-9);
  }
}

TEST(BradleyTerryTest, SymmetricChainWithDraws) {
  // 0-1: W W D D; 1-2: W D D W; 0-2: W L D D. By symmetry bot 1 is at 0 and
  // bots 0 and 2 at +x and -x, where bot 0's score equation is
  // 4 sigma(x) + 4 sigma(2x) = 5: x = 0.343006405534 natural units
  // = 59.586315672 Elo. Intervals from the Python script.
  std::vector<BradleyTerryGame> games;
  AddGames(games, 0, 1, 2, 2, 0);
  AddGames(games, 1, 2, 2, 2, 0);
  AddGames(games, 0, 2, 1, 2, 1);
  const std::vector<EloInterval> ratings = FitBradleyTerry(3, games);
  ASSERT_EQ(ratings.size(), 3u);
  ExpectInterval(ratings[0], 59.586315672401334, -106.80257415453525,
                 225.9752054993379);
  ExpectInterval(ratings[1], 0, -162.87037526356926, 162.87037526356926);
  ExpectInterval(ratings[2], -59.586315672401355, -225.97520549933793,
                 106.80257415453522);
}

TEST(BradleyTerryTest, FourBotsAgainstIndependentFit) {
  // Wins-draws-losses of the first bot: 0-1 5-2-3, 0-2 6-1-1, 0-3 2-0-1,
  // 1-2 4-4-2, 1-3 3-1-3, 2-3 1-2-5. Expected values from the Python script.
  std::vector<BradleyTerryGame> games;
  AddGames(games, 0, 1, 5, 2, 3);
  AddGames(games, 0, 2, 6, 1, 1);
  AddGames(games, 0, 3, 2, 0, 1);
  AddGames(games, 1, 2, 4, 4, 2);
  AddGames(games, 1, 3, 3, 1, 3);
  AddGames(games, 2, 3, 1, 2, 5);
  const std::vector<EloInterval> ratings = FitBradleyTerry(4, games);
  ASSERT_EQ(ratings.size(), 4u);
  ExpectInterval(ratings[0], 99.97868588848539, -24.67208699752183,
                 224.6294587744926);
  ExpectInterval(ratings[1], -1.3988476544594042, -103.72803741973404,
                 100.93034211081523);
  ExpectInterval(ratings[2], -121.78675060657545, -233.48136595470936,
                 -10.09213525844153);
  ExpectInterval(ratings[3], 23.206912372549493, -103.8121712554628,
                 150.2259960005618);
  double sum = 0;
  for (const EloInterval& rating : ratings) sum += rating.elo;
  EXPECT_NEAR(sum, 0, 1e-9);
}

TEST(BradleyTerryTest, LargeFieldSatisfiesScoreEquations) {
  // 64 bots spread over about 1400 Elo, 10 games per pair, outcomes from a
  // fixed low-discrepancy sequence. At the maximum every bot's expected
  // points equal its points.
  constexpr int kBots = 64;
  std::vector<BradleyTerryGame> games;
  std::vector<double> points(kBots);
  int step = 0;
  for (int a = 0; a < kBots; ++a) {
    for (int b = a + 1; b < kBots; ++b) {
      const double expected = ScoreFromElo((b - a) * 22.0);
      for (int g = 0; g < 10; ++g) {
        const double u = std::fmod(++step * 0.6180339887498949, 1.0);
        const double score = u < expected - 0.1   ? 1
                             : u < expected + 0.1 ? 0.5
                                                  : 0;
        games.push_back({a, b, score, 1});
        points[a] += score;
        points[b] += 1 - score;
      }
    }
  }
  const std::vector<EloInterval> ratings = FitBradleyTerry(kBots, games);
  std::vector<double> expected_points(kBots);
  double sum = 0;
  for (const BradleyTerryGame& game : games) {
    const double p =
        ScoreFromElo(ratings[game.first].elo - ratings[game.second].elo);
    expected_points[game.first] += p;
    expected_points[game.second] += 1 - p;
  }
  for (int bot = 0; bot < kBots; ++bot) {
    ASSERT_TRUE(std::isfinite(ratings[bot].elo)) << bot;
    EXPECT_NEAR(expected_points[bot], points[bot], 1e-6) << bot;
    EXPECT_LT(ratings[bot].low, ratings[bot].elo);
    EXPECT_GT(ratings[bot].high, ratings[bot].elo);
    sum += ratings[bot].elo;
  }
  EXPECT_NEAR(sum, 0, 1e-6);
  EXPECT_GT(ratings[0].elo, ratings[kBots - 1].elo + 1000);
}

TEST(BradleyTerryTest, InformationShareWidensIntervals) {
  // The same games carrying 3/4 of the information each (three-seat
  // matches): same ratings, margins sqrt(4/3) times wider.
  std::vector<BradleyTerryGame> whole, shared;
  AddGames(whole, 0, 1, 5, 2, 3);
  AddGames(whole, 1, 2, 4, 4, 2);
  AddGames(whole, 2, 0, 3, 1, 4);
  for (BradleyTerryGame game : whole) {
    game.information = 0.75;
    shared.push_back(game);
  }
  const std::vector<EloInterval> a = FitBradleyTerry(3, whole);
  const std::vector<EloInterval> b = FitBradleyTerry(3, shared);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(b[i].elo, a[i].elo, 1e-9);
    EXPECT_NEAR(b[i].high - b[i].elo,
                (a[i].high - a[i].elo) * std::sqrt(4.0 / 3), 1e-9);
  }
}

TEST(BradleyTerryTest, PerfectScoreHasInfiniteRatingAndOneSidedBound) {
  std::vector<BradleyTerryGame> games;
  AddGames(games, 0, 1, 3, 0, 0);
  const std::vector<EloInterval> two = FitBradleyTerry(2, games);
  EXPECT_EQ(two[0].elo, kInfinity);
  EXPECT_EQ(two[1].elo, -kInfinity);
  ExpectUnbounded(two[0]);
  ExpectUnbounded(two[1]);

  // Bot 0 beats everyone; bots 1 and 2 split 2-1. Bot 0 is infinitely
  // stronger; 1 and 2 keep their finite fit on their own games, which is
  // the two-bot fit of 2 wins 1 loss (independent script: 60.206,
  // [-148.295, 268.707]).
  AddGames(games, 0, 2, 3, 0, 0);
  AddGames(games, 1, 2, 2, 0, 1);
  const std::vector<EloInterval> three = FitBradleyTerry(3, games);
  // Bot 0's record still bounds it from below: with 1 and 2 held at their
  // fit, -log L(x) = -3 log s((x - 60.206) / k) - 3 log s((x + 60.206) / k)
  // (s the logistic function, k = 400 / ln 10) reaches 1.96^2 / 2 at
  // x = 176.858 (independent bisection in Python).
  EXPECT_EQ(three[0].elo, kInfinity);
  EXPECT_NEAR(three[0].low, 176.8576660759241, 1e-6);
  EXPECT_EQ(three[0].high, kInfinity);
  ExpectInterval(three[1], 60.205999132796244, -148.2949457818039,
                 268.7069440473964);
  ExpectInterval(three[2], -60.20599913279623, -268.7069440473964,
                 148.29494578180393);

  // A fourth bot that lost everything goes to -infinity; 1 and 2 unchanged.
  AddGames(games, 3, 0, 0, 0, 2);
  AddGames(games, 3, 1, 0, 0, 2);
  AddGames(games, 3, 2, 0, 0, 2);
  const std::vector<EloInterval> four = FitBradleyTerry(4, games);
  // Games against a bot at -infinity say nothing more about bot 0; bot 3's
  // losses to 1 and 2 (twice each) bound it from above: -2 log s((60.206 -
  // x) / k) - 2 log s((-60.206 - x) / k) = 1.96^2 / 2 at x = -90.508.
  EXPECT_EQ(four[0].elo, kInfinity);
  EXPECT_NEAR(four[0].low, three[0].low, 1e-6);
  EXPECT_EQ(four[3].elo, -kInfinity);
  EXPECT_EQ(four[3].low, -kInfinity);
  EXPECT_NEAR(four[3].high, -90.50761770036928, 1e-6);
  ExpectInterval(four[1], three[1].elo, three[1].low, three[1].high, 1e-9);
}

TEST(BradleyTerryTest, DominantPairAndEqualGroups) {
  // Bots 0 and 1 split their games and beat 2 and 3, who split theirs:
  // two groups of two, neither the only largest, so 0 and 1 are +infinity
  // and 2 and 3 -infinity.
  std::vector<BradleyTerryGame> games;
  AddGames(games, 0, 1, 1, 0, 1);
  AddGames(games, 2, 3, 1, 1, 0);
  for (int top : {0, 1}) {
    for (int bottom : {2, 3}) AddGames(games, top, bottom, 2, 0, 0);
  }
  const std::vector<EloInterval> ratings = FitBradleyTerry(4, games);
  EXPECT_EQ(ratings[0].elo, kInfinity);
  EXPECT_EQ(ratings[1].elo, kInfinity);
  EXPECT_EQ(ratings[2].elo, -kInfinity);
  EXPECT_EQ(ratings[3].elo, -kInfinity);
}

TEST(BradleyTerryTest, StrictChainLeavesMiddleBotAlone) {
  // 0 beats 1 beats 2, and 0 beats 2: 0 is +infinity, 2 -infinity, and 1,
  // with nobody finite left to compare with, 0 and unbounded.
  std::vector<BradleyTerryGame> games;
  AddGames(games, 0, 1, 1, 0, 0);
  AddGames(games, 1, 2, 1, 0, 0);
  AddGames(games, 0, 2, 1, 0, 0);
  const std::vector<EloInterval> ratings = FitBradleyTerry(3, games);
  EXPECT_EQ(ratings[0].elo, kInfinity);
  EXPECT_EQ(ratings[1].elo, 0);
  ExpectUnbounded(ratings[1]);
  EXPECT_EQ(ratings[2].elo, -kInfinity);
  // Their only finite opponent is no reference: 0 and 2 stay unbounded.
  ExpectUnbounded(ratings[0]);
  ExpectUnbounded(ratings[2]);
}

TEST(BradleyTerryTest, DisconnectedSetsAreCentredSeparately) {
  // {0, 1} and {2, 3} never met: each pair is the two-bot fit, centred on
  // its own mean. Bot 4 played nobody.
  std::vector<BradleyTerryGame> games;
  AddGames(games, 0, 1, 7, 2, 3);
  AddGames(games, 3, 2, 7, 2, 3);
  const std::vector<EloInterval> ratings = FitBradleyTerry(5, games);
  const std::vector<BradleyTerryGame> first_pair(games.begin(),
                                                 games.begin() + 12);
  const std::vector<EloInterval> pair = FitBradleyTerry(2, first_pair);
  ExpectInterval(ratings[0], pair[0].elo, pair[0].low, pair[0].high, 1e-9);
  ExpectInterval(ratings[1], pair[1].elo, pair[1].low, pair[1].high, 1e-9);
  ExpectInterval(ratings[3], pair[0].elo, pair[0].low, pair[0].high, 1e-9);
  ExpectInterval(ratings[2], pair[1].elo, pair[1].low, pair[1].high, 1e-9);
  EXPECT_EQ(ratings[4].elo, 0);
  ExpectUnbounded(ratings[4]);
}

TEST(BradleyTerryTest, SingleBotAndNoGames) {
  const std::vector<EloInterval> one = FitBradleyTerry(1, {});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].elo, 0);
  ExpectUnbounded(one[0]);
  EXPECT_TRUE(FitBradleyTerry(0, {}).empty());
}

TEST(ApplyRatingsTest, TwoSeatsFillStandingsByName) {
  std::vector<v1::TournamentMatchResult> results;
  for (int i = 0; i < 7; ++i) results.push_back(Match({"x", "y"}, {1, 2}));
  for (int i = 0; i < 2; ++i) results.push_back(Match({"y", "x"}, {1, 1}));
  for (int i = 0; i < 3; ++i) results.push_back(Match({"y", "x"}, {1, 2}));
  // Not counted: a log that did not verify.
  results.push_back(Match({"y", "x"}, {1, 2}, "bad signature"));
  std::vector<v1::TournamentStanding> standings(3);
  standings[0].set_bot("z");
  standings[1].set_bot("y");
  standings[2].set_bot("x");
  EXPECT_EQ(ApplyRatings({"x", "y", "z"}, results, 2, standings),
            "bradley_terry");
  EXPECT_EQ(standings[0].bot(), "z");
  EXPECT_EQ(standings[0].rating(), 0);
  EXPECT_EQ(standings[0].rating_low(), -kInfinity);
  EXPECT_EQ(standings[0].rating_high(), kInfinity);
  // x scored 8 of 12 against y, as in TwoBotsReduceToEloFromScore.
  EXPECT_NEAR(standings[2].rating(), 60.205999132796244, 1e-9);
  EXPECT_NEAR(standings[1].rating(), -60.205999132796244, 1e-9);
  EXPECT_LT(standings[2].rating_low(), standings[2].rating());
  EXPECT_GT(standings[2].rating_high(), standings[2].rating());
}

TEST(ApplyRatingsTest, MultiSeatUsesPairwiseGames) {
  const std::vector<v1::TournamentMatchResult> results = {
      Match({"a", "b", "c"}, {1, 2, 3}),
      Match({"b", "c", "a"}, {1, 1, 3}),
      Match({"c", "a", "b"}, {2, 1, 3}),
      Match({"a", "b", "c"}, {3, 1, 2}),
  };
  std::vector<BradleyTerryGame> games;
  const std::vector<std::string> names = {"a", "b", "c"};
  auto index = [&](const std::string& name) {
    return static_cast<int>(std::find(names.begin(), names.end(), name) -
                            names.begin());
  };
  for (const auto& result : results) {
    for (const PairwiseGame& game : PairwiseGames(result)) {
      games.push_back({index(game.first), index(game.second), game.score,
                       game.information});
    }
  }
  const std::vector<EloInterval> expected = FitBradleyTerry(3, games);
  std::vector<v1::TournamentStanding> standings(3);
  for (int i = 0; i < 3; ++i) standings[i].set_bot(names[2 - i]);
  EXPECT_EQ(ApplyRatings(names, results, 3, standings),
            "bradley_terry_pairwise");
  for (int i = 0; i < 3; ++i) {
    const EloInterval& rating = expected[2 - i];
    EXPECT_DOUBLE_EQ(standings[i].rating(), rating.elo);
    EXPECT_DOUBLE_EQ(standings[i].rating_low(), rating.low);
    EXPECT_DOUBLE_EQ(standings[i].rating_high(), rating.high);
    EXPECT_TRUE(std::isfinite(rating.low));
  }
}

// Bots without games change nothing for the others, and get rating 0 with
// infinite bounds: replay's results check rates only the bots that played
// and gives the others that, bit for bit what the runner writes.
TEST(BradleyTerryTest, BotsWithoutGamesChangeNothing) {
  // Bots 0..3 play (one unbeaten, so one infinite rating and its bound);
  // spread over 0..9 with idle bots between them, in the same order.
  const std::vector<BradleyTerryGame> games = {
      {0, 1, 1, 1}, {1, 2, 0.5, 1}, {2, 0, 1, 1}, {1, 0, 1, 1},
      {3, 0, 1, 1}, {3, 1, 1, 1},   {3, 2, 1, 1}, {2, 1, 0, 1}};
  const int spread[] = {1, 4, 5, 8};
  std::vector<BradleyTerryGame> spread_games;
  for (const BradleyTerryGame& g : games) {
    spread_games.push_back(
        {spread[g.first], spread[g.second], g.score, g.information});
  }
  const std::vector<EloInterval> alone = FitBradleyTerry(4, games);
  const std::vector<EloInterval> among = FitBradleyTerry(10, spread_games);
  ASSERT_EQ(among.size(), 10u);
  EXPECT_EQ(alone[3].elo, std::numeric_limits<double>::infinity());
  for (int bot = 0; bot < 4; ++bot) {
    EXPECT_EQ(among[spread[bot]].elo, alone[bot].elo) << bot;
    EXPECT_EQ(among[spread[bot]].low, alone[bot].low) << bot;
    EXPECT_EQ(among[spread[bot]].high, alone[bot].high) << bot;
  }
  for (int idle : {0, 2, 3, 6, 7, 9}) {
    EXPECT_EQ(among[idle].elo, 0) << idle;
    EXPECT_EQ(among[idle].low, -std::numeric_limits<double>::infinity());
    EXPECT_EQ(among[idle].high, std::numeric_limits<double>::infinity());
  }
}

}  // namespace
}  // namespace pyramid
