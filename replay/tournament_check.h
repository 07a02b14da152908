// `replay verify-tournament DIR`: a tournament's output directory
// (docs/tournament.md) checked offline against its schedule and its
// transparency-log checkpoint, with no trust in the referee beyond its key;
// and the label that ties each match's log to the schedule.
#ifndef PYRAMID_REPLAY_TOURNAMENT_CHECK_H_
#define PYRAMID_REPLAY_TOURNAMENT_CHECK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "referee/crypto/bytes.h"
#include "referee/tlog/checkpoint.h"
#include "replay/key_arguments.h"
#include "replay/seat_roster.h"
#include "replay/verifier.h"

namespace pyramid {

// The most problems a TournamentVerdict lists; any more are counted.
inline constexpr size_t kMaxListedProblems = 1000;

// The most bytes of DIR/schedule.json read; a larger one is refused unread.
// The runner writes about 140 bytes a match (two seats of short names) and
// at most 900 (ten seats of 64-byte names, skipped, a 7-digit index): 64
// MiB holds 70,000 matches of the largest and half a million of the usual.
inline constexpr uint64_t kMaxScheduleBytes = 64 << 20;
// And at most so many JSON values (each scalar, object and array one): the
// usual match is six (its object, index, label, seats and two seats'
// names), 3 million in 64 MiB; the largest fifteen, a million. A text of
// tiny values ("{}," over and over) is refused before it is parsed.
inline constexpr uint64_t kMaxScheduleValues = 4'000'000;
// DIR/results.json holds about five times the bytes of schedule.json a
// match (its outcome, verdict and file name; about 650 bytes for three
// seats) and four times the values: bounds of eight and four times.
inline constexpr uint64_t kMaxResultsBytes = 8 * kMaxScheduleBytes;
inline constexpr uint64_t kMaxResultsValues = 4 * kMaxScheduleValues;

// Whether CheckTournamentDirectory checks DIR/results.json: the runner's
// check of its own directory comes before it writes results.json (from the
// same logs), and ignores it.
enum class ResultsFile { kCheck, kIgnore };

// Which referee played the tournament, as CheckTournamentDirectory takes
// it: the runner's embedded referee, whose transparency tree holds this
// tournament's sealed logs and nothing else, or a running standalone
// referee, whose tree holds other matches too. kFromDirectory reads it
// from DIR's unsigned key-file names (referee.key.pub alone: embedded;
// referee.pub: running; neither: not known), which a host can rename;
// kEmbedded and kRunning are the auditor's word (`replay verify-tournament
// --referee=embedded|running`).
enum class RefereeMode { kFromDirectory, kEmbedded, kRunning };

struct TournamentVerdict {
  // Set when DIR is not a tournament directory at all (it holds neither
  // schedule.json nor checkpoint): what to say; nothing was checked.
  std::string not_a_tournament;
  // Empty: the directory checks out. Else the first kMaxListedProblems
  // problems found, each one line, and, when there were more, a last line
  // "and K more problems" (not one itself): `problem_count` counts them.
  std::vector<std::string> problems;
  uint64_t problem_count = 0;      // Every problem found, listed or not.
  std::vector<std::string> notes;  // Informative (e.g. ignored prefixes).
  uint64_t matches = 0;            // Sealed, included, scheduled logs.
  tlog::Checkpoint checkpoint;
  // The referee's raw public key the logs were checked against (once
  // known), and, when no key was given, the directory's files it was read
  // from ("referee.key.pub", "referee.pub" or "referee.key.pub and
  // referee.pub"): the directory then vouches for itself, and whoever
  // reads the verdict should pin the key (`replay verify-tournament
  // --key`).
  std::string referee_key;
  std::string referee_key_files;
  // Which referee the check took it to be: "embedded", "running", or ""
  // (not known: the directory holds neither key file); and where that came
  // from: "flag" (RefereeMode::kEmbedded, kRunning) or "directory".
  std::string referee;
  std::string referee_from;
  // The schedule's tournament name, run id and game (once it is read), and
  // the leaf indexes in `checkpoint` of the first and last log counted
  // (once one is).
  std::string name;
  std::string run_id;
  std::string game;
  uint64_t first_leaf = 0;
  uint64_t last_leaf = 0;
  // "N matches, all included in checkpoint SIZE ROOT as leaves FIRST..LAST:
  // tournament "NAME", run "RUN_ID", game GAME" ("as leaf F" for one match,
  // "as N of leaves FIRST..LAST" when other leaves lie between them; the
  // name and run id as QuotedText gives them, the game as PrintableText:
  // anyone's text) or the problem count ("N problems", `problem_count`).
  // The run id and the leaves tell this run from another of the same
  // tournament that a host could have played and kept back
  // (docs/transparency-log.md, "What it proves, and what not").
  std::string summary;
  // With a roster: the seats of the counted logs, every one of which is a
  // bot of the roster with the roster's key.
  uint64_t seats_matching_roster = 0;
};

// The label a tournament's match `index` carries in its log's signed
// header (Header.label): NAME/RUN_ID/INDEX (docs/tournament.md). The
// runner labels matches with it and verify-tournament checks it.
std::string TournamentLabel(std::string_view name, std::string_view run_id,
                            uint32_t index);

// A log file's verdict (VerifyLog's, the referee's key pinned) and the
// SHA-256 of the bytes it was given, known before the check.
struct KnownLog {
  Verdict verdict;
  Digest sha256;
};
// What a caller knows already of the log file at `path` (a path under
// DIR/logs or DIR/superseded) with the referee key `pinned_key` (32
// bytes): its KnownLog when the file has not changed since it was read
// (the tournament runner's, so that its check of its own directory reads
// no log it has verified), else null, and the check reads the file. Called
// from several threads at once (logs are checked in parallel).
using KnownLogs = std::function<std::shared_ptr<const KnownLog>(
    const std::string& path, const std::string& pinned_key)>;

// `replay verify-tournament DIR`: every log in DIR/logs verifies against
// the referee's key, every sealed one has DIR/proofs/NAME.tlog-proof proving
// it is in DIR/checkpoint (the same checkpoint for all), and each match of
// DIR/schedule.json (at least one) has exactly one such log, whose signed
// label and seats are the schedule's, none missing and none extra; each log
// is of the schedule's game. A match marked skipped has no log, and is one
// the runner can have skipped: DIR/tournament.txt (the tournament, in text
// format) made the schedule (below) and has an SPRT, and every skipped
// match comes after the last one played (the runner starts matches in
// index order), which one at least is. With the embedded referee
// (`referee`; by default, RefereeMode::kFromDirectory, when DIR holds
// referee.key.pub and no referee.pub: the runner writes the first with the
// embedded referee, the second with a running one), the checkpoint's size
// is the number of sealed logs in DIR/logs and DIR/superseded (distinct
// matches; those of superseded/ of this schedule's labels), since that
// tree holds this tournament's logs alone; otherwise a note says that this
// is not checked. With RefereeMode::kEmbedded, a DIR holding referee.pub
// is a problem too (its files say a running referee); with kRunning, one
// holding referee.key.pub and no referee.pub gets a note (its files say
// the embedded referee). `key` may be empty: the referee key
// is then read from DIR/referee.key.pub, else DIR/referee.pub, and the
// verdict names the file. DIR/schedule.json, of at most
// kMaxScheduleBytes, must be strict JSON of a TournamentSchedule's shape
// (CheckJsonShape). Every entry of DIR/logs must be a log, named
// MATCH.pyrlog, or the viewer page `replay html` writes beside one
// (logs/MATCH.html where logs/MATCH.pyrlog is; a note counts them, not
// checked), and every entry of DIR/proofs the proof of a log that counts:
// anything else there is a problem (a stray). A match with no log that
// counts names each sealed log of its label, which does not count. An
// unsealed prefix in DIR/logs is a note naming its label and match id,
// unless it carries a scheduled match's label and another match id than
// the log of that label that counts: a problem (the label was played
// twice). With a `roster` (not
// null; an auditor's, replay/seat_roster.h), each sealed log of the schedule's
// game must have the roster's seats and keys (JudgeSeats), else it is not
// genuine and does not count. With `known`, a log it knows is not read again.
// With ResultsFile::kCheck, DIR/results.json (at most kMaxResultsBytes,
// strict JSON of a TournamentResults' shape) must say of every match, the
// counts and the standings what the counted logs do (CheckResults,
// replay/results_check.h, with DIR/tournament.txt): each difference is a
// problem; a directory without results.json gets a note. Whatever
// `results` says and whether results.json is there, a tournament.txt that
// is unreadable or another tournament's is a problem, as is one that did
// not make schedule.json (a round robin's or gauntlet's scheduled again
// from its format, bots, seats, rounds and seed with the runner's
// MakeSchedule must be schedule.json entry by entry: index, label, seats,
// the skipped flags aside, so a schedule cut at its end is named; a Swiss
// one's first round is PairSwissRound's with no results and its rounds
// whole, at most its rounds, in both seat orders, each bot once a round,
// no second bye early; an SPRT only with 2 bots, 2 seats and the round
// robin format), naming the first difference; results.json is then
// checked without it. The runner writes tournament.txt before it plays,
// so before schedule.json and results.json: a missing one is a problem
// too (without it nobody can tell whether schedule.json lists every
// match), one problem with or without results.json. The log_file of a
// counted
// match is its file's own name (escaped only where a problem prints it).
TournamentVerdict CheckTournamentDirectory(
    const std::string& dir, CheckpointKey key,
    const SeatRoster* roster = nullptr, const KnownLogs& known = nullptr,
    ResultsFile results = ResultsFile::kCheck,
    RefereeMode referee = RefereeMode::kFromDirectory);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_TOURNAMENT_CHECK_H_
