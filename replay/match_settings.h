// The settings a match was played under, as its log's signed header says:
// its game and options, its clocks and its forfeit policy. The tournament
// runner creates every match of a tournament with the tournament's
// (docs/tournament.md), so that within one tournament directory a log whose
// settings differ from the others' was created otherwise: by a host who
// gave one match shorter clocks or another forfeit policy, say
// (`replay verify-tournament`, docs/transparency-log.md).
#ifndef PYRAMID_REPLAY_MATCH_SETTINGS_H_
#define PYRAMID_REPLAY_MATCH_SETTINGS_H_

#include <string>
#include <vector>

#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

struct MatchSettings {
  std::string key;   // Equal for equal settings (a deterministic encoding).
  std::string text;  // In protobuf text format, on one line.
};

MatchSettings SettingsOf(const referee::v1::Header& header);

// A log of a tournament directory that checked out: its name as shown
// (escaped) and its settings.
struct SettledLog {
  std::string name;
  MatchSettings settings;
};

// One problem per log whose settings are not those most of `logs` share
// (on a tie, those of the first log in `logs` that holds one of the tied
// settings), in `logs`' order; none when all agree.
std::vector<std::string> SettingsProblems(const std::vector<SettledLog>& logs);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_MATCH_SETTINGS_H_
