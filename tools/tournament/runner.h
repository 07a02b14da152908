// Runs a tournament: starts (or connects to) a referee, registers and starts
// the bots, plays the schedule with a bounded number of matches in flight,
// verifies every log against the referee key, and reports standings and
// results.json. Only results whose log verifies are counted.
#ifndef PYRAMID_TOOLS_TOURNAMENT_RUNNER_H_
#define PYRAMID_TOOLS_TOURNAMENT_RUNNER_H_

#include <ostream>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

// Plays `tournament` (fields already defaulted and validated by the caller
// or not: Run validates). Progress goes to `progress` (a live line when
// `live`, plain lines otherwise).
absl::StatusOr<referee::v1::TournamentResults> RunTournament(
    const referee::v1::Tournament& tournament, std::ostream& progress,
    bool live);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_RUNNER_H_
