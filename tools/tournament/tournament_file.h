// The tournament file (proto/pyramid/referee/v1/tournament.proto, protobuf
// text format; docs/tournament.md): parsed, its defaults filled in and every
// field checked, before anything is started. Pure: no I/O.
#ifndef PYRAMID_TOOLS_TOURNAMENT_TOURNAMENT_FILE_H_
#define PYRAMID_TOOLS_TOURNAMENT_TOURNAMENT_FILE_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

// Parses `text`; INVALID_ARGUMENT naming the line and column of the first
// problem (syntax, an unknown field, a value of the wrong type).
absl::StatusOr<referee::v1::Tournament> ParseTournamentFile(
    std::string_view text);

// Fills in the defaults (name "tournament", the game's fewest seats, 1
// round, 8 matches in flight, 5 s commit and reveal timeouts, output
// directory out/NAME) and checks everything RunTournament needs:
// INVALID_ARGUMENT naming the field otherwise. The schedule itself is
// checked by MakeSchedule (its size) and the Swiss pairing.
absl::Status NormalizeTournament(referee::v1::Tournament& tournament);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_TOURNAMENT_FILE_H_
