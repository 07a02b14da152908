#include "tools/tournament/schedule.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

int Choose(int n, int k) {
  long long result = 1;
  for (int i = 0; i < k; ++i) result = result * (n - i) / (i + 1);
  return static_cast<int>(result);
}

struct Counts {
  std::vector<std::vector<int>> meetings;  // [a][b]: matches with a and b.
  std::vector<std::vector<int>> seats;     // [bot][seat]: times in the seat.
};

// Checks what every schedule must satisfy and counts meetings and seats.
Counts CheckAndCount(const std::vector<ScheduledMatch>& schedule, int num_bots,
                     int seats) {
  Counts counts{
      std::vector<std::vector<int>>(num_bots, std::vector<int>(num_bots)),
      std::vector<std::vector<int>>(num_bots, std::vector<int>(seats))};
  for (size_t i = 0; i < schedule.size(); ++i) {
    const ScheduledMatch& match = schedule[i];
    EXPECT_EQ(match.index, i);
    EXPECT_EQ(match.bots.size(), static_cast<size_t>(seats));
    EXPECT_EQ(std::set<int>(match.bots.begin(), match.bots.end()).size(),
              match.bots.size())
        << "match " << i << " seats a bot twice";
    for (int seat = 0; seat < static_cast<int>(match.bots.size()); ++seat) {
      const int bot = match.bots[seat];
      EXPECT_GE(bot, 0);
      EXPECT_LT(bot, num_bots);
      if (bot < 0 || bot >= num_bots) continue;
      ++counts.seats[bot][seat];
      for (int other : match.bots) {
        if (other != bot && other >= 0 && other < num_bots) {
          ++counts.meetings[bot][other];
        }
      }
    }
  }
  return counts;
}

class ScheduleTest : public testing::TestWithParam<v1::TournamentFormat> {};

TEST_P(ScheduleTest, BalancesMeetingsAndSeats) {
  const v1::TournamentFormat format = GetParam();
  const bool gauntlet = format == v1::GAUNTLET;
  for (int seats = 2; seats <= 5; ++seats) {
    for (int num_bots = seats; num_bots <= seats + 3; ++num_bots) {
      for (int rounds = 1; rounds <= 2; ++rounds) {
        SCOPED_TRACE(testing::Message() << seats << " seats, " << num_bots
                                        << " bots, " << rounds << " rounds");
        absl::StatusOr<std::vector<ScheduledMatch>> schedule =
            MakeSchedule(format, num_bots, seats, rounds, /*seed=*/7);
        ASSERT_TRUE(schedule.ok()) << schedule.status();
        const int tables = gauntlet ? Choose(num_bots - 1, seats - 1)
                                    : Choose(num_bots, seats);
        EXPECT_EQ(schedule->size(),
                  static_cast<size_t>(rounds * tables * seats));
        const Counts counts = CheckAndCount(*schedule, num_bots, seats);
        if (gauntlet) {
          for (const ScheduledMatch& match : *schedule) {
            EXPECT_THAT(match.bots, testing::Contains(0));
          }
        }
        // Meetings: all pairs alike (gauntlet: all pairs with bot 0).
        const int expected_meetings =
            counts.meetings[0][1] > 0 ? counts.meetings[0][1] : -1;
        EXPECT_GT(expected_meetings, 0);
        for (int a = 0; a < num_bots; ++a) {
          for (int b = 0; b < num_bots; ++b) {
            if (a == b || (gauntlet && a != 0 && b != 0)) continue;
            EXPECT_EQ(counts.meetings[a][b], expected_meetings)
                << "bots " << a << " and " << b;
          }
        }
        // Seats: every bot takes every seat equally often (round robin:
        // all bots alike too).
        for (int bot = 0; bot < num_bots; ++bot) {
          for (int seat = 0; seat < seats; ++seat) {
            EXPECT_EQ(counts.seats[bot][seat], counts.seats[bot][0])
                << "bot " << bot << " seat " << seat;
            if (!gauntlet) {
              EXPECT_EQ(counts.seats[bot][seat], counts.seats[0][0]);
            }
          }
          EXPECT_GT(counts.seats[bot][0], 0) << "bot " << bot;
        }
      }
    }
  }
}

TEST_P(ScheduleTest, SeedOrdersPlayAndNothingElse) {
  const v1::TournamentFormat format = GetParam();
  absl::StatusOr<std::vector<ScheduledMatch>> a =
      MakeSchedule(format, 6, 3, 2, /*seed=*/1);
  absl::StatusOr<std::vector<ScheduledMatch>> again =
      MakeSchedule(format, 6, 3, 2, /*seed=*/1);
  absl::StatusOr<std::vector<ScheduledMatch>> b =
      MakeSchedule(format, 6, 3, 2, /*seed=*/2);
  ASSERT_TRUE(a.ok() && again.ok() && b.ok());
  auto bots = [](const std::vector<ScheduledMatch>& schedule) {
    std::vector<std::vector<int>> out;
    for (const ScheduledMatch& match : schedule) out.push_back(match.bots);
    return out;
  };
  EXPECT_EQ(bots(*a), bots(*again));
  EXPECT_NE(bots(*a), bots(*b));
  std::vector<std::vector<int>> sorted_a = bots(*a);
  std::vector<std::vector<int>> sorted_b = bots(*b);
  std::sort(sorted_a.begin(), sorted_a.end());
  std::sort(sorted_b.begin(), sorted_b.end());
  EXPECT_EQ(sorted_a, sorted_b);
}

TEST_P(ScheduleTest, RejectsImpossibleTournaments) {
  const v1::TournamentFormat format = GetParam();
  EXPECT_EQ(MakeSchedule(format, 2, 3, 1, 0).status().code(),
            absl::StatusCode::kInvalidArgument);  // Too few bots.
  EXPECT_EQ(MakeSchedule(format, 1, 2, 1, 0).status().message(),
            "the game seats 2 bots per match but only 1 is entered");
  EXPECT_EQ(MakeSchedule(format, 4, 1, 1, 0).status().code(),
            absl::StatusCode::kInvalidArgument);  // One seat.
  EXPECT_EQ(MakeSchedule(format, 4, 2, 0, 0).status().code(),
            absl::StatusCode::kInvalidArgument);  // No rounds.
}

INSTANTIATE_TEST_SUITE_P(Formats, ScheduleTest,
                         testing::Values(v1::ROUND_ROBIN, v1::GAUNTLET),
                         [](const auto& info) {
                           return info.param == v1::GAUNTLET ? "Gauntlet"
                                                             : "RoundRobin";
                         });

TEST(ScheduleTest, UnspecifiedFormatIsRoundRobin) {
  absl::StatusOr<std::vector<ScheduledMatch>> unspecified =
      MakeSchedule(v1::TOURNAMENT_FORMAT_UNSPECIFIED, 5, 3, 1, 9);
  absl::StatusOr<std::vector<ScheduledMatch>> round_robin =
      MakeSchedule(v1::ROUND_ROBIN, 5, 3, 1, 9);
  ASSERT_TRUE(unspecified.ok() && round_robin.ok());
  ASSERT_EQ(unspecified->size(), round_robin->size());
  for (size_t i = 0; i < unspecified->size(); ++i) {
    EXPECT_EQ((*unspecified)[i].bots, (*round_robin)[i].bots);
  }
}

TEST(ScheduleTest, SwissIsPairedRoundByRound) {
  absl::StatusOr<std::vector<ScheduledMatch>> schedule =
      MakeSchedule(v1::SWISS, 4, 2, 3, 0);
  EXPECT_EQ(schedule.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(schedule.status().message(),
              testing::HasSubstr("PairSwissRound"));
}

// A tournament file's rounds is a uint32: 2^31 rounds once became a
// negative int and was refused as "rounds must be >= 1".
TEST(ScheduleTest, RoundsBeyondIntAreTooManyMatches) {
  absl::StatusOr<std::vector<ScheduledMatch>> schedule =
      MakeSchedule(v1::ROUND_ROBIN, 2, 2, uint32_t{1} << 31, 0);
  EXPECT_EQ(schedule.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(schedule.status().message(),
            "the schedule would hold more than 10000000 matches (2 bots, 2 "
            "seats, 2147483648 rounds)");
  EXPECT_FALSE(MakeSchedule(v1::GAUNTLET, 3, 2, UINT32_MAX, 0).ok());
}

// Swiss rounds are bounded as a schedule is: 2^31 rounds of 2 bots once
// wrapped the runner's uint32 count of matches to 0.
TEST(ScheduleTest, SwissScheduleSizeIsBounded) {
  EXPECT_EQ(SwissScheduleSize(2, 3).value_or(0), 6u);
  EXPECT_EQ(SwissScheduleSize(7, 5).value_or(0), 30u);  // A bye a round.
  EXPECT_EQ(SwissScheduleSize(3, 5000000).value_or(0), 10000000u);
  const absl::StatusOr<uint32_t> huge = SwissScheduleSize(2, uint32_t{1} << 31);
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(huge.status().message(),
            "the schedule would hold more than 10000000 matches (2 bots, 2 "
            "seats, 2147483648 rounds)");
  EXPECT_FALSE(SwissScheduleSize(3, 5000001).ok());
  EXPECT_FALSE(SwissScheduleSize(1000, UINT32_MAX).ok());
  EXPECT_EQ(SwissScheduleSize(4, 0).status().message(), "rounds must be >= 1");
  EXPECT_EQ(SwissScheduleSize(1, 1).status().message(),
            "the game seats 2 bots per match but only 1 is entered");
}

// --- Swiss ---------------------------------------------------------------

using Matrix = std::vector<std::vector<int>>;

bool Met(const Matrix& games, int a, int b) {
  return games[a][b] > 0 || games[b][a] > 0;
}

int Rematches(const SwissRound& round, const Matrix& games) {
  int count = 0;
  for (const auto& [a, b] : round.pairs) count += Met(games, a, b) ? 1 : 0;
  return count;
}

// Enumerates every pairing of `bots` (best first) in top-down order: the
// first bot with each partner in turn, the rest recursively.
void EnumeratePairings(const std::vector<int>& bots, const Matrix& games,
                       std::vector<std::pair<int, int>>& pairs, int rematches,
                       int& fewest, std::vector<std::pair<int, int>>& best) {
  if (bots.empty()) {
    if (rematches < fewest) {
      fewest = rematches;
      best = pairs;
    }
    return;
  }
  for (size_t i = 1; i < bots.size(); ++i) {
    std::vector<int> rest;
    for (size_t j = 1; j < bots.size(); ++j) {
      if (j != i) rest.push_back(bots[j]);
    }
    pairs.emplace_back(bots[0], bots[i]);
    EnumeratePairings(rest, games, pairs,
                      rematches + (Met(games, bots[0], bots[i]) ? 1 : 0),
                      fewest, best);
    pairs.pop_back();
  }
}

// What PairSwissRound must return for the bots other than `bye`, found by
// trying every pairing: the first in top-down order among those with the
// fewest rematches.
std::vector<std::pair<int, int>> ExpectedPairs(
    const std::vector<double>& points, const Matrix& games, int bye) {
  std::vector<int> ranked;
  for (int bot = 0; bot < static_cast<int>(points.size()); ++bot) {
    if (bot != bye) ranked.push_back(bot);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&points](int a, int b) { return points[a] > points[b]; });
  std::vector<std::pair<int, int>> pairs;
  std::vector<std::pair<int, int>> best;
  int fewest = static_cast<int>(ranked.size()) + 1;
  EnumeratePairings(ranked, games, pairs, 0, fewest, best);
  return best;
}

// Checks that `round` pairs every bot but the bye exactly once.
void ExpectCoversAll(const SwissRound& round, int num_bots) {
  std::vector<int> seen(num_bots, 0);
  for (const auto& [a, b] : round.pairs) {
    ASSERT_NE(a, b);
    ++seen[a];
    ++seen[b];
  }
  if (round.bye >= 0) ++seen[round.bye];
  EXPECT_EQ(round.bye >= 0, num_bots % 2 == 1);
  EXPECT_THAT(seen, testing::Each(1));
}

TEST(SwissTest, FirstRoundPairsNeighboursByIndex) {
  const SwissRound round = PairSwissRound(std::vector<double>(6, 0.0),
                                          Matrix(6, std::vector<int>(6, 0)),
                                          std::vector<bool>(6, false));
  EXPECT_THAT(
      round.pairs,
      testing::ElementsAre(std::pair(0, 1), std::pair(2, 3), std::pair(4, 5)));
  EXPECT_EQ(round.bye, -1);
}

TEST(SwissTest, PairsByPointsThenIndex) {
  const std::vector<double> points = {0, 2, 1, 2, 0.5, 1};
  const SwissRound round = PairSwissRound(
      points, Matrix(6, std::vector<int>(6, 0)), std::vector<bool>(6, false));
  EXPECT_THAT(
      round.pairs,
      testing::ElementsAre(std::pair(1, 3), std::pair(2, 5), std::pair(4, 0)));
}

TEST(SwissTest, SkipsOpponentsAlreadyMet) {
  Matrix games(8, std::vector<int>(8, 0));
  games[0][1] = games[1][0] = 2;
  const SwissRound round = PairSwissRound({3, 3, 2, 2, 1, 1, 0, 0}, games,
                                          std::vector<bool>(8, false));
  EXPECT_THAT(round.pairs,
              testing::ElementsAre(std::pair(0, 2), std::pair(1, 3),
                                   std::pair(4, 5), std::pair(6, 7)));
}

TEST(SwissTest, BacktracksWhenTheRestWouldNeedARematch) {
  // Greedy 0-2 leaves 1-3, who have met; 0-3 with 1-2 avoids it.
  Matrix games(4, std::vector<int>(4, 0));
  games[0][1] = games[1][0] = 2;
  games[1][3] = games[3][1] = 2;
  const SwissRound round =
      PairSwissRound({3, 2, 1, 0}, games, std::vector<bool>(4, false));
  EXPECT_THAT(round.pairs,
              testing::ElementsAre(std::pair(0, 3), std::pair(1, 2)));
}

TEST(SwissTest, RematchesOnlyWhenUnavoidableAndAsFewAsPossible) {
  // Everyone has met everyone but 2-3: one rematch (0-1) is the minimum.
  Matrix games(4, std::vector<int>(4, 2));
  games[2][3] = games[3][2] = 0;
  const SwissRound round =
      PairSwissRound({0, 0, 0, 0}, games, std::vector<bool>(4, false));
  EXPECT_THAT(round.pairs,
              testing::ElementsAre(std::pair(0, 1), std::pair(2, 3)));
  EXPECT_EQ(Rematches(round, games), 1);
}

TEST(SwissTest, MatchesExhaustiveSearchOnCrowdedHistories) {
  // Deterministic pseudo-random histories of 6, 7 and 8 bots, dense enough
  // that rematches are often forced.
  uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1103515245u + 12345u;
    return state >> 16;
  };
  int forced = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 6 + trial % 3;
    Matrix games(n, std::vector<int>(n, 0));
    std::vector<double> points(n);
    std::vector<bool> had_bye(n);
    for (int a = 0; a < n; ++a) {
      points[a] = 0.5 * (next() % 8);
      had_bye[a] = next() % 2 == 0;
      for (int b = a + 1; b < n; ++b) {
        if (next() % 100 < 55) games[a][b] = games[b][a] = 2;
      }
    }
    const SwissRound round = PairSwissRound(points, games, had_bye);
    ExpectCoversAll(round, n);
    EXPECT_EQ(round.pairs, ExpectedPairs(points, games, round.bye))
        << "trial " << trial;
    forced += Rematches(round, games) > 0 ? 1 : 0;
  }
  EXPECT_GE(forced, 10);  // The histories do force rematches.
  EXPECT_LE(forced, 50);  // But not always.
}

// Plays `rounds` Swiss rounds of `num_bots` bots in which the lower index
// always wins, except that bots 2 and 5 draw, and checks every round.
void SimulateSwiss(int num_bots, int rounds) {
  std::vector<double> points(num_bots, 0.0);
  Matrix games(num_bots, std::vector<int>(num_bots, 0));
  std::vector<bool> had_bye(num_bots, false);
  std::vector<int> byes;
  uint32_t next_index = 0;
  for (int r = 0; r < rounds; ++r) {
    SCOPED_TRACE(testing::Message() << num_bots << " bots, round " << r);
    const SwissRound round = PairSwissRound(points, games, had_bye);
    ExpectCoversAll(round, num_bots);
    EXPECT_EQ(Rematches(round, games), 0);
    EXPECT_EQ(round.pairs, ExpectedPairs(points, games, round.bye));
    if (round.bye >= 0) {
      // The lowest-ranked bot without a bye gets it.
      for (int bot = 0; bot < num_bots; ++bot) {
        if (bot == round.bye || had_bye[bot]) continue;
        EXPECT_TRUE(points[bot] > points[round.bye] ||
                    (points[bot] == points[round.bye] && bot < round.bye))
            << "bot " << bot << " ranks below the bye " << round.bye;
      }
      byes.push_back(round.bye);
      had_bye[round.bye] = true;
      points[round.bye] += 1;
    }
    // Near in score: the higher-ranked first, and while the field is still
    // unsorted (two rounds here) at most one point apart.
    for (const auto& [a, b] : round.pairs) {
      EXPECT_GE(points[a], points[b]);
      if (r < 2) {
        EXPECT_LE(points[a] - points[b], 1.0) << a << " vs " << b;
      }
    }
    const std::vector<ScheduledMatch> matches =
        SwissRoundMatches(round, next_index);
    ASSERT_EQ(matches.size(), 2 * round.pairs.size());
    std::vector<std::vector<int>> seat_count(num_bots, std::vector<int>(2));
    for (const ScheduledMatch& match : matches) {
      EXPECT_EQ(match.index, next_index++);
      ASSERT_EQ(match.bots.size(), 2u);
      const int a = match.bots[0], b = match.bots[1];
      ++seat_count[a][0];
      ++seat_count[b][1];
      ++games[a][b];
      ++games[b][a];
      const bool draw = std::min(a, b) == 2 && std::max(a, b) == 5;
      points[a] += draw ? 0.5 : a < b ? 1 : 0;
      points[b] += draw ? 0.5 : b < a ? 1 : 0;
    }
    for (int bot = 0; bot < num_bots; ++bot) {
      const int expected = bot == round.bye ? 0 : 1;
      EXPECT_EQ(seat_count[bot][0], expected) << "bot " << bot;
      EXPECT_EQ(seat_count[bot][1], expected) << "bot " << bot;
    }
  }
  EXPECT_EQ(std::set<int>(byes.begin(), byes.end()).size(), byes.size());
  EXPECT_EQ(byes.size(), num_bots % 2 == 1 ? static_cast<size_t>(rounds) : 0u);
}

TEST(SwissTest, FiveRoundsOfEightBots) { SimulateSwiss(8, 5); }

TEST(SwissTest, FiveRoundsOfSevenBots) { SimulateSwiss(7, 5); }

TEST(SwissTest, ByeGoesToTheLowestRankedWithoutOne) {
  Matrix games(5, std::vector<int>(5, 0));
  EXPECT_EQ(PairSwissRound({4, 3, 2, 1, 0}, games,
                           {false, false, false, false, false})
                .bye,
            4);
  EXPECT_EQ(
      PairSwissRound({4, 3, 2, 1, 0}, games, {false, false, true, true, true})
          .bye,
      1);
  // Everyone has had one: the lowest-ranked again.
  EXPECT_EQ(
      PairSwissRound({0, 3, 2, 1, 4}, games, std::vector<bool>(5, true)).bye,
      0);
}

TEST(SwissTest, IsDeterministic) {
  Matrix games(9, std::vector<int>(9, 0));
  games[0][3] = games[3][0] = 1;
  games[4][7] = games[7][4] = 1;
  const std::vector<double> points = {1, 0, 1, 1, 0.5, 0, 1, 0.5, 0};
  const std::vector<bool> had_bye = {false, true,  false, false, false,
                                     false, false, false, false};
  const SwissRound first = PairSwissRound(points, games, had_bye);
  const SwissRound second = PairSwissRound(points, games, had_bye);
  EXPECT_EQ(first.pairs, second.pairs);
  EXPECT_EQ(first.bye, second.bye);
}

// Round `r` of the circle method for `n` (even) bots: all n - 1 rounds
// together pair every two bots exactly once.
std::vector<std::pair<int, int>> CircleRound(int n, int r) {
  std::vector<std::pair<int, int>> pairs = {{r, n - 1}};
  for (int i = 1; i < n / 2; ++i) {
    pairs.emplace_back((r + i) % (n - 1), (r - i + n - 1) % (n - 1));
  }
  return pairs;
}

// A history of `n` bots (even) that have played all but the last
// `unplayed` rounds of a complete round robin, with points scattered so
// that (for n = 8, 24, 64 and two rounds unplayed) pairing each bot from
// the top with its first new opponent would strand bots further down.
void PlayAllButLast(int n, int unplayed, Matrix& games,
                    std::vector<double>& points) {
  games.assign(n, std::vector<int>(n, 0));
  for (int r = 0; r < n - 1 - unplayed; ++r) {
    for (const auto& [a, b] : CircleRound(n, r)) {
      games[a][b] = games[b][a] = 2;
    }
  }
  points.resize(n);
  for (int bot = 0; bot < n; ++bot) points[bot] = (bot * 37) % n;
}

TEST(SwissTest, FindsTheOnlyRematchFreePairing) {
  // One round left: the unplayed round is the only pairing without a
  // rematch.
  for (int n : {8, 24, 64}) {
    SCOPED_TRACE(testing::Message() << n << " bots");
    Matrix games;
    std::vector<double> points;
    PlayAllButLast(n, 1, games, points);
    const SwissRound round =
        PairSwissRound(points, games, std::vector<bool>(n, false));
    ExpectCoversAll(round, n);
    std::set<std::pair<int, int>> expected;
    for (const auto& [a, b] : CircleRound(n, n - 2)) {
      expected.emplace(std::min(a, b), std::max(a, b));
    }
    std::set<std::pair<int, int>> actual;
    for (const auto& [a, b] : round.pairs) {
      actual.emplace(std::min(a, b), std::max(a, b));
    }
    EXPECT_EQ(actual, expected);
  }
}

TEST(SwissTest, AvoidsRematchesWhereGreedyPairingGetsStuck) {
  // Two rounds left: each bot has two new opponents, and the first one is
  // not always the right one.
  for (int n : {8, 24, 64}) {
    SCOPED_TRACE(testing::Message() << n << " bots");
    Matrix games;
    std::vector<double> points;
    PlayAllButLast(n, 2, games, points);
    const SwissRound round =
        PairSwissRound(points, games, std::vector<bool>(n, false));
    ExpectCoversAll(round, n);
    EXPECT_EQ(Rematches(round, games), 0);
    if (n == 8) {
      EXPECT_EQ(round.pairs, ExpectedPairs(points, games, round.bye));
    }
  }
}

}  // namespace
}  // namespace pyramid
