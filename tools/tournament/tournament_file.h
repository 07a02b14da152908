// The tournament file (proto/pyramid/referee/v1/tournament.proto, protobuf
// text format; docs/tournament.md): parsed, its defaults filled in and every
// field checked, before anything is started. Pure but for ReadTournamentFile,
// its one reader.
#ifndef PYRAMID_TOOLS_TOURNAMENT_TOURNAMENT_FILE_H_
#define PYRAMID_TOOLS_TOURNAMENT_TOURNAMENT_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/text_format.h"
#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

// The most read of a tournament file: a few KiB of text, even with many
// bots; a larger file is not one.
inline constexpr uint64_t kMaxTournamentFileBytes = 16 << 20;

// The text of the tournament file at `path`: a regular file or a pipe
// (`tournament <(generate)`) of at most kMaxTournamentFileBytes, read
// through referee/files/bounded_read.h (never waiting on a FIFO with no
// writer). Refused ("cannot read PATH: WHY"): a device (/dev/zero would be
// read without end), a directory or a socket, and a FIFO with no writer
// and nothing in it (FAILED_PRECONDITION); a file larger than the bound,
// unread when it says its size ("it is N bytes, more than the 16 MiB a
// tournament file may hold"), else once that much came (RESOURCE_EXHAUSTED);
// "cannot open PATH: WHY" when it cannot be opened (NOT_FOUND when there is
// no such file, PERMISSION_DENIED when not ours).
absl::StatusOr<std::string> ReadTournamentFile(const std::string& path);

// Where each field a tournament file sets stands in its text, as protobuf's
// text parser records it (lines and columns from 0).
using TournamentFileLocations = google::protobuf::TextFormat::ParseInfoTree;

// Parses `text`; INVALID_ARGUMENT naming the line and column of the first
// problem (syntax, an unknown field, a value of the wrong type): "not a
// Tournament in text format: line L column C: WHAT" (both from 1). When
// `locations` is not null (and empty), where each field stands goes there,
// for NormalizeTournament to name the place of a mistake.
absl::StatusOr<referee::v1::Tournament> ParseTournamentFile(
    std::string_view text, TournamentFileLocations* locations = nullptr);

// Fills in the defaults (name "tournament", the game's fewest seats, 1
// round, 8 matches in flight, 5 s commit and reveal timeouts, output
// directory out/NAME) and checks everything RunTournament needs:
// INVALID_ARGUMENT naming the field otherwise ("seats: ..."). The schedule
// itself is checked by MakeSchedule and SwissScheduleSize (its size) and
// the Swiss pairing.
//
// With `locations` (ParseTournamentFile's of the text `tournament` was
// parsed from, and nothing changed since), a mistake in a field the text
// sets starts with where the field stands, "line L column C: seats: ..."
// (from 1, as a syntax error's place), the field being the one at fault
// (the second bot of a name, not the first) or the nearest enclosing one
// the text sets (the bot without a command); a mistake in a field the text
// leaves out (a missing game) has no place. Without, no place is named.
absl::Status NormalizeTournament(
    referee::v1::Tournament& tournament,
    const TournamentFileLocations* locations = nullptr);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_TOURNAMENT_FILE_H_
