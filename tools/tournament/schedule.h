// Which bots sit where in every match of a tournament. Pure and
// deterministic: the same inputs give the same schedule.
#ifndef PYRAMID_TOOLS_TOURNAMENT_SCHEDULE_H_
#define PYRAMID_TOOLS_TOURNAMENT_SCHEDULE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

struct ScheduledMatch {
  uint32_t index = 0;
  std::vector<int> bots;  // Seat i is played by bots[i] (a bot index).
};

// ROUND_ROBIN: for each round, every `seats`-subset of the bots in every
// cyclic rotation of its seat order. GAUNTLET: the same with bot 0 in every
// subset. Each bot then meets each other bot equally often and takes every
// seat position equally often. The order of play is shuffled with `seed`;
// indices follow that order.
absl::StatusOr<std::vector<ScheduledMatch>> MakeSchedule(
    referee::v1::TournamentFormat format, int num_bots, int seats,
    int rounds, uint64_t seed);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_SCHEDULE_H_
