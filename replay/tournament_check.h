// `replay verify-tournament DIR`: a tournament's output directory
// (docs/tournament.md) checked offline against its schedule and its
// transparency-log checkpoint, with no trust in the referee beyond its key;
// and the label that ties each match's log to the schedule.
#ifndef PYRAMID_REPLAY_TOURNAMENT_CHECK_H_
#define PYRAMID_REPLAY_TOURNAMENT_CHECK_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "referee/tlog/checkpoint.h"
#include "replay/key_arguments.h"

namespace pyramid {

struct TournamentVerdict {
  // Set when DIR is not a tournament directory at all (it holds neither
  // schedule.json nor checkpoint): what to say; nothing was checked.
  std::string not_a_tournament;
  std::vector<std::string> problems;  // Empty: the directory checks out.
  std::vector<std::string> notes;     // Informative (e.g. ignored prefixes).
  uint64_t matches = 0;               // Sealed, included, scheduled logs.
  tlog::Checkpoint checkpoint;
  // The referee's raw public key the logs were checked against (once
  // known), and, when no key was given, the directory's files it was read
  // from ("referee.key.pub", "referee.pub" or "referee.key.pub and
  // referee.pub"): the directory then vouches for itself, and whoever
  // reads the verdict should pin the key (`replay verify-tournament
  // --key`).
  std::string referee_key;
  std::string referee_key_files;
  // "N matches, all included in checkpoint SIZE ROOT" or the problem count.
  std::string summary;
};

// The label a tournament's match `index` carries in its log's signed
// header (Header.label): NAME/RUN_ID/INDEX (docs/tournament.md). The
// runner labels matches with it and verify-tournament checks it.
std::string TournamentLabel(std::string_view name, std::string_view run_id,
                            uint32_t index);

// `replay verify-tournament DIR`: every log in DIR/logs verifies against
// the referee's key, every sealed one has DIR/proofs/NAME.tlog-proof proving
// it is in DIR/checkpoint (the same checkpoint for all), and each match of
// DIR/schedule.json (at least one) has exactly one such log, whose signed
// label and seats are the schedule's, none missing and none extra; each log
// is of the schedule's game. A match marked skipped has no log, and is one
// the runner can have skipped: DIR/tournament.txt (the tournament, in text
// format) has an SPRT, of the schedule's name and game, and every skipped
// match comes after the last one played (the runner starts matches in
// index order), which one at least is. With the embedded referee (DIR
// holds referee.key.pub and no referee.pub: the runner writes the first
// with the embedded referee, the second with a running one), the
// checkpoint's size is the number of sealed logs in DIR/logs and
// DIR/superseded (distinct matches; those of superseded/ of this schedule's
// labels), since that tree holds this tournament's logs alone; otherwise a
// note says that this is not checked. `key` may be empty: the referee key
// is then read from DIR/referee.key.pub, else DIR/referee.pub, and the
// verdict names the file.
TournamentVerdict CheckTournamentDirectory(const std::string& dir,
                                           CheckpointKey key);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_TOURNAMENT_CHECK_H_
