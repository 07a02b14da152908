// Runs a tournament: starts (or connects to) a referee, registers and starts
// the bots, plays the schedule with a bounded number of matches in flight,
// verifies every log against the referee key, and writes the standings with
// ratings, results.json and report.html. Only results whose log verifies
// are counted.
//
// Every finished match is appended to the output directory's journal
// (journal.jsonl) as soon as its log is verified. Run again on the same
// output directory, the runner resumes: it re-verifies the journal's logs,
// keeps every genuine one and plays only the rest. A finished match whose
// log is now missing or does not verify is fetched again from a running
// referee, or the resume is refused before the directory changes (unless
// RunOptions::replay_lost_logs): played again, its label would stand twice
// in the referee's transparency log. With a running referee, a match an
// interrupted run created is never created again either: its request_id
// is the same in every run, and the resume takes the referee's result of
// it (docs/tournament.md, "Resume"). The directory remembers
// its tournament (tournament.txt); resuming with a different game, bots,
// format, rounds, seats, clocks, policy, seed or SPRT is refused.
#ifndef PYRAMID_TOOLS_TOURNAMENT_RUNNER_H_
#define PYRAMID_TOOLS_TOURNAMENT_RUNNER_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

struct RunOptions {
  // Progress and notes (bot restarts, resume) go here.
  std::ostream* progress = nullptr;
  // Redraw one live progress line (a terminal) instead of printing lines.
  bool live = false;
  // How many interruptions (SIGINT, SIGTERM) were received so far. Polled
  // a few times a second, also from any thread that waits to retry a call
  // to the referee. The first one while matches are played stops new ones
  // from starting and lets those in flight finish with their bots (one
  // line says how many); a second one stops at once: the matches in
  // flight are abandoned (with the embedded referee they are played again
  // on resume; a running referee plays them on without their bots, and a
  // resume takes their results). Either way the runner then stops the
  // bots, writes the results so far and returns CANCELLED. The first one
  // also ends every wait to retry a call to a referee that does not
  // answer (the call fails, its match is left as the second one leaves
  // it), and stops at once when no match is being played: before the
  // output directory is made (a running referee's first checks) it
  // returns CANCELLED having written nothing.
  std::function<int()> interruptions = [] { return 0; };
  // With a running referee (Tournament.referee): how long to keep retrying
  // while it cannot be reached (it restarts) before a match fails.
  absl::Duration referee_retry = absl::Minutes(5);
  // With a running referee: a file of PEM roots to connect to it with TLS
  // (RefereeLink::Connect's tls_ca; --tls_ca); empty: plaintext.
  std::string tls_ca;
  // On a resume, a journaled match whose log verified when it was journaled
  // and is now missing or does not verify (and could not be fetched again
  // from a running referee) is played again, its label then standing twice
  // in the referee's transparency log, instead of the run being refused
  // (FAILED_PRECONDITION, before anything in the output directory changes).
  bool replay_lost_logs = false;
  // Called with a log file's path each time the runner reads a log of the
  // output directory and verifies it (a test counts them: a resume reads
  // and verifies each log once). The check of the whole directory at the
  // end (as `replay verify-tournament` makes it) reads every log again on
  // its own, and is not counted.
  std::function<void(const std::string& path)> log_verified;
  // Bytes of each bot's output its log (OUTPUT/bots/NAME.log) keeps in a
  // run; the rest is read and dropped, and one line at the end of the run
  // says how many bytes (BotSettings::log_limit).
  int64_t bot_log_limit = int64_t{16} << 20;
  // When set, bot number i (in the tournament's order, from 0) runs as uid
  // and gid bot_uids + i, with no supplementary groups and no way to gain
  // privileges; its token file is its own (mode 0400) in a tokens directory
  // no one else may list (0711), and every process of its uid is killed
  // before it starts and after it ends (BotSettings::uid). REQUIRED: this
  // process runs as root (else the run fails, INVALID_ARGUMENT, once the
  // output directory is made; the program checks it before), the uids
  // belong to no other process, and every bot can reach the output
  // directory (each directory above it lets others enter: o+x).
  std::optional<uid_t> bot_uids;
  // Without bot_uids: each bot's soft open-file limit (RLIMIT_NOFILE), at
  // most this process's hard limit, which is the bot's hard one
  // (BotSettings::soft_open_file_limit); 0: this process's soft limit when
  // the bot starts. The tournament program passes the soft limit it had
  // before its accept guard raised it (AcceptGuardSettings::previous_limit),
  // so that a bot starts with the limit it would have had run on its own.
  rlim_t bot_soft_open_file_limit = 0;
  // This process starts no child but the runner's bots (the tournament
  // program): the runner makes it their child subreaper (AdoptOrphans), so
  // a process a bot started that left the bot's process group and outlived
  // its parent becomes this process's child rather than init's; the runner
  // reaps such children as they end and kills what is left of them when
  // it stops the bots. Off, such a process may outlive the run.
  bool adopt_orphans = false;
};

// Plays `tournament` (validated here; INVALID_ARGUMENT for a bad one,
// which includes an embedded referee's secret key inside the output
// directory, or one that does not fit it on a resume: missing, another
// key than the one that signed its logs, two different ones; and an output
// directory that holds another tournament, found before anything in it
// changes).
absl::StatusOr<referee::v1::TournamentResults> RunTournament(
    const referee::v1::Tournament& tournament, const RunOptions& options);

// The bots of `results` that never played, in standings order: each sat in
// at least one genuine match, and in none of them did its seat commit a
// move, as their signed logs (log_file, under `output_dir`) show. The seed
// contribution (decision 0) is not a move: a seat that committed it counts
// as playing only in a match that never asked it for a move. A bot whose
// program never connected to the referee (a command that exits at once, a
// flag it refuses) is one; so is one that connected and never moved. A log
// that cannot be read counts as played (no warning on no evidence).
std::vector<std::string> BotsThatNeverPlayed(
    const referee::v1::TournamentResults& results,
    const std::string& output_dir);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_RUNNER_H_
