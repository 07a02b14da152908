// `replay verify-tournament DIR`'s binding of DIR/schedule.json to
// DIR/tournament.txt, the tournament file the runner copies there
// (docs/tournament.md, "Resume"): that the file is the schedule's
// tournament, and that it made the schedule, recomputed with the runner's
// own code (tools/tournament/schedule.h: MakeSchedule for a round robin or
// gauntlet, PairSwissRound for each Swiss round from the counted logs).
// Reads tournament.txt only (TournamentFileOf); what it finds is said,
// not added to a verdict: the driver (replay/tournament_check.cc) decides
// what is a problem.
#ifndef PYRAMID_REPLAY_SCHEDULE_CHECK_H_
#define PYRAMID_REPLAY_SCHEDULE_CHECK_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "pyramid/referee/v1/tournament.pb.h"
#include "replay/results_check.h"

namespace pyramid {

// DIR/tournament.txt (`root` is DIR), the tournament file the runner
// copies into its output directory (docs/tournament.md, "Resume"), when it
// is `schedule`'s tournament (its name and game; an empty name read as the
// runner's default, "tournament"); else why not: NOT_FOUND when the
// directory holds none, else (INVALID_ARGUMENT) what is wrong with it,
// `what` ("which would show an SPRT") saying what it was read for. At most
// kMaxSmallFileBytes are read, and only from a file (ReadSmallEntry).
absl::StatusOr<referee::v1::Tournament> TournamentFileOf(
    const std::filesystem::path& root,
    const referee::v1::TournamentSchedule& schedule, absl::string_view what);

// Why `t` (DIR/tournament.txt, `schedule`'s tournament by name and game)
// is not the tournament that made `schedule` (DIR/schedule.json, whose
// counted entries the logs' signed labels and seats pin): "" when it is,
// else the first difference, after "tournament.txt (SETTINGS) is not the
// tournament that made schedule.json: ". A round robin or gauntlet is
// scheduled again from t's format, bots, seats, rounds and seed with the
// runner's own MakeSchedule and must be schedule.json entry by entry
// (index, label, seats by bot name; the skipped flags aside), its size
// counted before any match is listed; a Swiss tournament, its rounds
// whole, at most t's, each pair in both seat orders, each bot once a
// round, no second bye before every bot has had one, its first round as
// paired before any result and each later round from the counted logs
// (`counted`, by match index) while every match before it has one. The
// runner paired a round from the results it had then, which a resume may
// since have played again (`replayed`: the indexes of the matches
// superseded/ holds a sealed log of): a round that differs after such a
// match is said in `notes` (appended to), not returned, and the rounds
// after it are not recomputed. An SPRT is the runner's only with 2 bots,
// 2 seats and the round-robin format. Pure: reads nothing.
std::string WhyNotItsSchedule(const referee::v1::Tournament& t,
                              const referee::v1::TournamentSchedule& schedule,
                              const std::map<uint32_t, CountedMatch>& counted,
                              const std::set<uint32_t>& replayed,
                              std::vector<std::string>& notes);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_SCHEDULE_CHECK_H_
