// Which bots sit where in every match of a tournament. Pure and
// deterministic: the same inputs give the same schedule.
#ifndef PYRAMID_TOOLS_TOURNAMENT_SCHEDULE_H_
#define PYRAMID_TOOLS_TOURNAMENT_SCHEDULE_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

// The most matches one tournament schedules.
inline constexpr uint64_t kMaxScheduledMatches = 10000000;

struct ScheduledMatch {
  uint32_t index = 0;
  std::vector<int> bots;  // Seat i is played by bots[i] (a bot index).
};

// ROUND_ROBIN: for each round, every `seats`-subset of the bots in every
// cyclic rotation of its seat order. GAUNTLET: the same with bot 0 in every
// subset. Each bot then meets each other bot equally often (in GAUNTLET: bot
// 0 meets each other bot equally often) and takes every seat position
// equally often. The order of play is shuffled with `seed`; indices follow
// that order. SWISS is an error: its rounds depend on earlier results and
// are paired one at a time by PairSwissRound. A schedule of more than
// kMaxScheduledMatches matches is INVALID_ARGUMENT (checked before any is
// listed), as is `rounds` 0.
absl::StatusOr<std::vector<ScheduledMatch>> MakeSchedule(
    referee::v1::TournamentFormat format, int num_bots, int seats,
    uint32_t rounds, uint64_t seed);

// The number of matches `rounds` Swiss rounds of `num_bots` bots play:
// num_bots / 2 pairs a round (the odd bot out has the bye), each playing
// both seat orders. INVALID_ARGUMENT, in MakeSchedule's words, for fewer
// than 2 bots, `rounds` 0 or more than kMaxScheduledMatches matches, so
// that a Swiss tournament is bounded as a scheduled one is.
absl::StatusOr<uint32_t> SwissScheduleSize(int num_bots, uint32_t rounds);

// One Swiss round of a two-seat game.
struct SwissRound {
  // Bot indices; the first of each pair is the higher-ranked. Listed from
  // the top of the ranking down.
  std::vector<std::pair<int, int>> pairs;
  int bye = -1;  // The bot that sits out (the runner scores it a win), or -1.
};

// Pairs the next Swiss round of points.size() bots. REQUIRES: `points`,
// `games_between` (a square matrix: games_between[a][b] > 0 when a and b
// have met) and `had_bye` have one entry per bot.
//
// The bots are ranked by points, highest first, ties by bot index. With an
// odd count the bye goes to the lowest-ranked bot that has not had one (the
// lowest-ranked bot when all have). The others are paired top-down: the
// highest-ranked unpaired bot takes the highest-ranked remaining bot it has
// not met, backtracking to the next candidate whenever the bots below could
// not all be paired without a rematch. Only when no rematch-free pairing
// exists does it take one with as few rematches (pairs that have met) as
// possible, the first such pairing in the same top-down order.
SwissRound PairSwissRound(const std::vector<double>& points,
                          const std::vector<std::vector<int>>& games_between,
                          const std::vector<bool>& had_bye);

// The matches of `round`: each pair plays both seat orders, (first, second)
// then (second, first), so every paired bot takes each seat once. Indices
// count up from `first_index`.
std::vector<ScheduledMatch> SwissRoundMatches(const SwissRound& round,
                                              uint32_t first_index);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_SCHEDULE_H_
