// tournament: hosts a bot competition from one command.
//
//   tournament TOURNAMENT_FILE [--concurrency=N] [--rounds=N]
//              [--output_dir=DIR] [--seed=N]
//              [--format=round_robin|gauntlet|swiss]
//              [--sprt=ELO0,ELO1[,ALPHA,BETA]]
//              [--referee=ADDR --referee_key=HEX|FILE --admin_token_file=F
//               --tls_ca=PEM]
//              [--signing_key_file=FILE] [--referee_retry_s=N]
//              [--replay_lost_logs] [--bot_log_mib=N] [--bot_uids=FIRST]
//
// TOURNAMENT_FILE is a pyramid.referee.v1.Tournament in protobuf text format
// (proto/pyramid/referee/v1/tournament.proto; docs/tournament.md). Prints
// progress, then the standings with ratings; writes journal.jsonl,
// results.json, report.html, every log, its match viewer page (matches/)
// and each bot's output under the output directory. Run again on the same
// output directory, it resumes. The first SIGINT (Ctrl-C) or SIGTERM starts
// no more matches and lets those in flight finish; a second one stops at
// once, abandoning them; either way it ends cleanly, resumable, with status
// 130 (docs/tournament.md, "Interrupting a tournament").
// With --referee and no admin token file, $PYRAMID_ADMIN_TOKEN holds the
// admin token, which the runner checks with the referee before it makes
// anything.
// Exit status: 0 when every scheduled match was played (or skipped by a decided
// SPRT) and its log verified, and every bot played (a bot that committed no
// action in any of its matches is named in a warning); 1 otherwise (a wrong
// admin token or referee key too, and a resume that would play again a
// finished match whose log is lost, without --replay_lost_logs); 2 for a bad
// tournament file or flag (an unknown flag, a value of the wrong type, a field
// or flag out of range, a bot command that cannot run, a key or token file that
// cannot be read, a signing key file inside the output directory or, on a
// resume, missing or not the key that signed its logs, an output directory that
// holds another tournament), found before the output directory is made or
// changed; 130 when interrupted.
//
// --bot_uids=FIRST (as root) runs bot number i of the file as uid and gid
// FIRST+i, so that no bot can read another's token or key, or signal or
// trace another, or take the embedded referee's connections from another
// (docs/tournament.md, "Hosting bots you do not trust").
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/marshalling.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/text_format.h"
#include "referee/cli/accept_guard.h"
#include "referee/cli/library_log.h"
#include "referee/cli/peer_quota.h"
#include "referee/cli/program.h"
#include "referee/core/log_sink.h"
#include "referee/service/messages.h"
#include "tools/tournament/bot_process.h"
#include "tools/tournament/report.h"
#include "tools/tournament/runner.h"
#include "tools/tournament/signing_key.h"
#include "tools/tournament/standings.h"
#include "tools/tournament/tournament_file.h"

namespace pyramid {

// A flag that overrides a field of the tournament file: unset (or empty),
// the file's value stands (and --help says so, where std::optional showed
// "default: ;" and std::string 'default: ""').
template <typename T>
struct FileOverride {
  std::optional<T> value;
};

// How an unset FileOverride reads: --help shows it as the default (which
// Abseil requires to parse back).
constexpr absl::string_view kFileValue = "the tournament file's value";

template <typename T>
bool AbslParseFlag(absl::string_view text, FileOverride<T>* flag,
                   std::string* error) {
  if (text.empty() || text == kFileValue) {
    flag->value.reset();
    return true;
  }
  T value;
  if (!absl::ParseFlag(text, &value, error)) return false;
  flag->value = value;
  return true;
}

template <typename T>
std::string AbslUnparseFlag(const FileOverride<T>& flag) {
  return flag.value.has_value() ? absl::UnparseFlag(*flag.value)
                                : std::string(kFileValue);
}

}  // namespace pyramid

ABSL_FLAG(pyramid::FileOverride<int>, concurrency, {},
          "Matches in flight at once, at least 1 (overrides the tournament "
          "file's concurrency; the file's default is 8).");
ABSL_FLAG(pyramid::FileOverride<int>, rounds, {},
          "Times the schedule is played, at least 1 (overrides the "
          "tournament file's rounds; the file's default is 1).");
ABSL_FLAG(pyramid::FileOverride<std::string>, output_dir, {},
          "Output directory (overrides the tournament file's output_dir; the "
          "file's default is out/NAME).");
ABSL_FLAG(pyramid::FileOverride<int64_t>, seed, {},
          "Order seed, 0 or more (overrides the tournament file's seed; the "
          "file's default is 0).");
ABSL_FLAG(pyramid::FileOverride<std::string>, format, {},
          "round_robin, gauntlet or swiss (overrides the tournament file's "
          "format; the file's default is round_robin).");
ABSL_FLAG(pyramid::FileOverride<std::string>, sprt, {},
          "ELO0,ELO1[,ALPHA,BETA]: run an SPRT between the two bots "
          "(overrides the tournament file's sprt).");
ABSL_FLAG(pyramid::FileOverride<std::string>, referee, {},
          "Use this running referee (overrides the tournament file's "
          "referee; with neither, the runner embeds its own).");
ABSL_FLAG(pyramid::FileOverride<std::string>, referee_key, {},
          "Its public key (overrides the tournament file's referee_key).");
ABSL_FLAG(pyramid::FileOverride<std::string>, admin_token_file, {},
          "The file of its admin token (overrides the tournament file's "
          "admin_token_file; with neither, $PYRAMID_ADMIN_TOKEN holds the "
          "token, as for refctl).");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM roots: connect to the running referee (--referee) with TLS, "
          "as refctl and the bot do (default: plaintext).");
ABSL_FLAG(pyramid::FileOverride<std::string>, signing_key_file, {},
          "The embedded referee's secret key file (overrides the tournament "
          "file's signing_key_file; with neither, OUTPUT.referee.key, beside "
          "the output directory; refused in it). Created, and named on "
          "stderr, when no such file exists.");
ABSL_FLAG(int, referee_retry_s, 300,
          "While the running referee cannot be reached (it restarts), retry "
          "with backoff for at most this many seconds (0 or more) before a "
          "match fails. Also bounds a wait for a place on a referee at its "
          "--max_live_matches that other clients' matches hold: after this "
          "many seconds in which none of the tournament's matches ended or "
          "was created, the matches waiting are not played (the "
          "tournament's own matches holding every place are waited for, "
          "however long they play).");
ABSL_FLAG(bool, replay_lost_logs, false,
          "On a resume, play again a finished match whose kept log is now "
          "missing or does not verify (and, with a running referee, could "
          "not be fetched again): its label then stands twice in the "
          "referee's transparency log. Without it such a resume is refused "
          "(exit status 1) before anything in the output directory changes.");

ABSL_FLAG(int64_t, bot_log_mib, 16,
          "MiB of each bot's output kept in its log (OUTPUT/bots/NAME.log) per "
          "run, 0 or more; the rest is read and dropped, and one line at the "
          "end says how many bytes.");
ABSL_FLAG(int64_t, bot_uids, 0,
          "Run bot number i of the tournament file (from 0) as uid and gid "
          "FIRST+i, with no supplementary groups, each reading only its own "
          "token, every process of its uid killed when it stops, each "
          "holding at most its share of the embedded referee's connections "
          "(the runner must run as root; the ids must belong to nothing "
          "else: one that is an account's or a group's, or the sudo user's, "
          "is refused). "
          "0: every bot runs as the runner's user.");

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// The largest --bot_log_mib: a TiB.
constexpr int64_t kMaxBotLogMib = int64_t{1} << 20;

// INVALID_ARGUMENT, naming them, when a user id from `first` to `last` is
// an account's (getpwuid), or a group id a group's (getgrgid; each bot's
// gid is its uid), or the id of the user who ran sudo (SUDO_UID): every
// process of a bot's uid is killed, and a bot in group 42 (shadow) reads
// /etc/shadow.
absl::Status CheckBotUidsUnused(int64_t first, int64_t last) {
  std::vector<std::string> taken;
  const char* sudo_uid = getenv("SUDO_UID");
  int64_t sudoer = -1;
  if (sudo_uid == nullptr || !absl::SimpleAtoi(sudo_uid, &sudoer)) sudoer = -1;
  for (int64_t id = first; id <= last; ++id) {
    if (const passwd* user = getpwuid(static_cast<uid_t>(id))) {
      taken.push_back(absl::StrCat("uid ", id, " is user ", user->pw_name));
    } else if (id == sudoer) {
      taken.push_back(absl::StrCat("uid ", id, " is the one sudo ran as"));
    }
    if (const group* g = getgrgid(static_cast<gid_t>(id))) {
      taken.push_back(absl::StrCat("gid ", id, " is group ", g->gr_name));
    }
  }
  if (taken.empty()) return absl::OkStatus();
  constexpr size_t kNamed = 8;
  std::string named = absl::StrJoin(
      taken.begin(), taken.begin() + std::min(taken.size(), kNamed), ", ");
  if (taken.size() > kNamed) {
    absl::StrAppend(&named, " and ", taken.size() - kNamed, " more");
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--bot_uids=", first, " runs the bots as uids and gids ", first, " to ",
      last, ", and some are taken (", named,
      "): every process of a bot's uid is killed, and a bot has its "
      "group's rights. Pick ids no account or group uses, e.g. from 60000 "
      "up (check with getent passwd ID and getent group ID)"));
}

// Checks --bot_uids against `tournament` (INVALID_ARGUMENT, saying what to
// do): the runner runs as root, the uids fit and belong to no account,
// group or the user who ran sudo (CheckBotUidsUnused), each key_file
// belongs to its bot's uid alone and is readable by it, and no bot's uid
// can read the runner's admin token file or signing key.
absl::Status CheckBotUids(const v1::Tournament& tournament, int64_t first) {
  if (first == 0) return absl::OkStatus();
  const int64_t last = first + tournament.bots_size() - 1;
  if (first < 1 || last > int64_t{0xfffffffe}) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--bot_uids must be at least 1 and leave room for ",
        tournament.bots_size(), " uids below 4294967295, not ", first));
  }
  if (geteuid() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--bot_uids needs the tournament to run as root (it runs "
                     "as uid ",
                     geteuid(), "): only root can start bots as other users"));
  }
  if (absl::Status s = CheckBotUidsUnused(first, last); !s.ok()) return s;
  for (int i = 0; i < tournament.bots_size(); ++i) {
    const v1::TournamentBot& bot = tournament.bots(i);
    const uid_t uid = static_cast<uid_t>(first + i);
    if (bot.key_file().empty()) continue;
    struct stat st;
    if (stat(bot.key_file().c_str(), &st) != 0) continue;  // Said later.
    const std::string fix =
        absl::StrCat("chown ", uid, ":", uid, " ", bot.key_file(),
                     " && chmod 0400 ", bot.key_file());
    if (st.st_uid != uid || (st.st_mode & 077) != 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "bot %s runs as uid %u (--bot_uids): its key_file %s must belong "
          "to that uid and be readable by it alone (%s); it belongs to uid "
          "%u, mode %04o",
          bot.name(), uid, bot.key_file(), fix, st.st_uid, st.st_mode & 07777));
    }
    if (absl::Status s = CheckAccessAs(uid, uid, bot.key_file(), R_OK);
        !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bot ", bot.name(), " runs as uid ", uid,
          " (--bot_uids) and cannot read its key_file ", bot.key_file(), ": ",
          s.message(), "; every directory above it must let others enter it"));
    }
  }
  // The runner's own secrets, which no bot may read: the admin token of
  // the referee it plays on (with it a bot could download a running
  // match's log, seed and all), and the embedded referee's signing key
  // (with it a bot could sign logs of matches never played), when it
  // exists already (a new one is written owner-only).
  std::vector<std::pair<std::string, std::string>> secrets;
  if (!tournament.referee().empty()) {
    if (!tournament.admin_token_file().empty()) {
      secrets.push_back({"admin_token_file", tournament.admin_token_file()});
    }
  } else {
    secrets.push_back({"signing_key_file (the embedded referee's key)",
                       SigningKeyFilesOf(tournament).key.string()});
  }
  for (const auto& [what, path] : secrets) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) continue;  // Said later, if needed.
    for (int i = 0; i < tournament.bots_size(); ++i) {
      const uid_t uid = static_cast<uid_t>(first + i);
      if (CheckAccessAs(uid, uid, path, R_OK).ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "bot ", tournament.bots(i).name(), " runs as uid ", uid,
            " (--bot_uids) and could read the ", what, " ", path,
            ": make it readable by its owner alone (chmod 0600 ", path,
            "), or keep it in a directory others cannot enter"));
      }
    }
  }
  return absl::OkStatus();
}

// The connections each bot may hold at once under --bot_uids (its uid's
// quota in the accept guard: peer_quota.h), of the `ceiling` the guard lets
// connections have descriptors below: half of it shared out among the
// `bots`, the other half left for the runner's own descriptors below it
// (its bots' pipes, the journal, the databases, the logs of the matches in
// flight: 75 descriptors in all, connections included, for 8 bots at
// concurrency 8) and its own connections.
// At least 8, so that a bot can connect again while its old connections
// close; at most 256, for each connection holds some of the runner's memory
// and a bot needs one (or one per match it plays at once). So each bot can
// connect however many the others hold, while 8 per bot fits in half the
// ceiling.
constexpr int kMinBotConnections = 8;
constexpr int kMaxBotConnections = 256;

int BotConnectionQuota(int ceiling, int bots) {
  return std::clamp(ceiling / 2 / std::max(bots, 1), kMinBotConnections,
                    kMaxBotConnections);
}

// SIGINT and SIGTERM received (RunOptions::interruptions): both count the
// same, a service manager's SIGTERM being a request to stop cleanly too.
std::atomic<int> interruptions{0};
static_assert(std::atomic<int>::is_always_lock_free,
              "a signal handler may only use a lock-free atomic");

void OnSignal(int) { interruptions.fetch_add(1, std::memory_order_relaxed); }

// Parses --sprt into `tournament`; false for a malformed value.
bool ApplySprtFlag(const std::string& flag, v1::Tournament& tournament) {
  if (flag.empty()) return true;
  std::vector<std::string> parts = absl::StrSplit(flag, ',');
  if (parts.size() != 2 && parts.size() != 4) return false;
  double values[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!absl::SimpleAtod(parts[i], &values[i])) return false;
  }
  v1::SprtSettings* sprt = tournament.mutable_sprt();
  sprt->set_elo0(values[0]);
  sprt->set_elo1(values[1]);
  sprt->set_alpha(values[2]);
  sprt->set_beta(values[3]);
  return true;
}

// OK when the numeric flag `name`, if given, is at least `least`.
template <typename T>
absl::Status CheckAtLeast(const char* name, const std::optional<T>& value,
                          T least) {
  if (!value.has_value() || *value >= least) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", name, " must be at least ", least, ", not ", *value));
}

// A text flag that overrides a field of the tournament file: empty when
// unset.
std::string FileValue(const absl::Flag<FileOverride<std::string>>& flag) {
  return absl::GetFlag(flag).value.value_or("");
}

// The flags that override the tournament file, applied to `tournament`.
// INVALID_ARGUMENT for a bad value: --concurrency or --rounds below 1, a
// negative --seed or --referee_retry_s, a bad --format or --sprt.
absl::Status ApplyFlags(v1::Tournament& tournament) {
  const std::optional<int> concurrency = absl::GetFlag(FLAGS_concurrency).value;
  const std::optional<int> rounds = absl::GetFlag(FLAGS_rounds).value;
  const std::optional<int64_t> seed = absl::GetFlag(FLAGS_seed).value;
  for (absl::Status s :
       {CheckAtLeast("concurrency", concurrency, 1),
        CheckAtLeast("rounds", rounds, 1),
        CheckAtLeast<int64_t>("seed", seed, 0),
        CheckAtLeast("referee_retry_s",
                     std::optional<int>(absl::GetFlag(FLAGS_referee_retry_s)),
                     0)}) {
    if (!s.ok()) return s;
  }
  if (concurrency.has_value()) tournament.set_concurrency(*concurrency);
  if (rounds.has_value()) tournament.set_rounds(*rounds);
  if (!FileValue(FLAGS_output_dir).empty()) {
    tournament.set_output_dir(FileValue(FLAGS_output_dir));
  }
  if (seed.has_value()) tournament.set_seed(*seed);
  const std::string format = FileValue(FLAGS_format);
  if (format == "round_robin") {
    tournament.set_format(v1::ROUND_ROBIN);
  } else if (format == "gauntlet") {
    tournament.set_format(v1::GAUNTLET);
  } else if (format == "swiss") {
    tournament.set_format(v1::SWISS);
  } else if (!format.empty()) {
    return absl::InvalidArgumentError(
        "--format is round_robin, gauntlet or swiss");
  }
  if (!ApplySprtFlag(FileValue(FLAGS_sprt), tournament)) {
    return absl::InvalidArgumentError(
        "--sprt is ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA");
  }
  if (!FileValue(FLAGS_referee).empty()) {
    tournament.set_referee(FileValue(FLAGS_referee));
  }
  if (!FileValue(FLAGS_referee_key).empty()) {
    tournament.set_referee_key(FileValue(FLAGS_referee_key));
  }
  if (!FileValue(FLAGS_admin_token_file).empty()) {
    tournament.set_admin_token_file(FileValue(FLAGS_admin_token_file));
  }
  if (!FileValue(FLAGS_signing_key_file).empty()) {
    tournament.set_signing_key_file(FileValue(FLAGS_signing_key_file));
  }
  // The embedded referee serves plaintext on loopback: roots for it are a
  // mistake (a --referee left out).
  if (!absl::GetFlag(FLAGS_tls_ca).empty() && tournament.referee().empty()) {
    return absl::InvalidArgumentError(
        "--tls_ca is for a running referee's TLS, and no referee is set");
  }
  return absl::OkStatus();
}

// The tournament file at `path`, with the flags applied; exits 2 on error.
absl::StatusOr<v1::Tournament> LoadTournament(const std::string& path) {
  absl::StatusOr<std::string> text = ReadTournamentFile(path);
  if (!text.ok()) return text.status();
  TournamentFileLocations locations;
  absl::StatusOr<v1::Tournament> parsed =
      ParseTournamentFile(*text, &locations);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", parsed.status().message()));
  }
  const v1::Tournament file_alone = *parsed;
  if (absl::Status s = ApplyFlags(*parsed); !s.ok()) return s;
  // The file's other mistakes ("seats: ...", "bots: ...") name it and the
  // place of the field at fault, as its syntax errors do; a mistake the
  // flags made does not. The runner checks the same again, on its own copy.
  v1::Tournament normalized = *parsed;
  if (absl::Status s = NormalizeTournament(normalized); !s.ok()) {
    v1::Tournament file_normalized = file_alone;
    if (NormalizeTournament(file_normalized).message() != s.message()) {
      return s;
    }
    file_normalized = file_alone;
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": ",
        NormalizeTournament(file_normalized, &locations).message()));
  }
  return parsed;
}

// The output directory the runner wrote.
std::string OutputDir(const v1::Tournament& tournament,
                      const v1::TournamentResults& results) {
  return tournament.output_dir().empty() ? "out/" + results.name()
                                         : tournament.output_dir();
}

// The summary printed at the end: standings, SPRT, uncounted matches, the
// transparency verdict, where everything is, and last the matches whose
// forfeits came while the runner was not hosting them (UnhostedForfeitsText).
void PrintSummary(const v1::Tournament& tournament,
                  const v1::TournamentResults& results) {
  std::cout << "\n"
            << results.name() << " (" << results.game().game()
            << "): " << results.verified() << " of " << results.scheduled()
            << " match logs verified against referee key "
            << results.referee_public_key() << "\n\n";
  std::vector<v1::TournamentStanding> standings(results.standings().begin(),
                                                results.standings().end());
  std::cout << StandingsOrderText(tournament.format()) << "\n\n"
            << FormatStandings(standings);
  if (results.has_sprt()) {
    const v1::SprtOutcome& sprt = results.sprt();
    std::cout << absl::StrFormat(
        "\nSPRT: %s (LLR %s, bounds [%.3f, %.3f]); %s vs %s: +%u =%u "
        "-%u, Elo %s [%s, %s]; %u matches skipped\n",
        sprt.decision(), FixedText(sprt.llr(), 3), sprt.lower_bound(),
        sprt.upper_bound(), tournament.bots(0).name(),
        tournament.bots(1).name(), sprt.wins(), sprt.draws(), sprt.losses(),
        FixedText(sprt.elo(), 1), FixedText(sprt.elo_low(), 1),
        FixedText(sprt.elo_high(), 1), results.skipped());
  }
  for (const v1::TournamentMatchResult& match : results.matches()) {
    if (!IsGenuine(match)) {
      std::cout << "match " << match.index() << " (" << match.match_id()
                << ") not counted: " << match.verdict() << "\n";
    }
  }
  const std::string out = OutputDir(tournament, results);
  std::cout << "\n" << results.transparency_verdict() << "\n";
  std::cout << "\nlogs, proofs, checkpoint, schedule.json, results.json, "
               "report.html and the match viewer pages (matches/) in "
            << out << " (check them with: replay verify-tournament " << out
            << ")\n";
  // Last: forfeits that count but may be the host's, not the bots'.
  if (const std::string unhosted = UnhostedForfeitsText(results);
      !unhosted.empty()) {
    std::cout << "\n"
              << unhosted
              << "; they count as any forfeit does (marked in results.json "
                 "and report.html; docs/tournament.md, \"Matches left on a "
                 "running referee\")\n";
  }
}

// Opens /dev/null onto whichever of descriptors 0, 1 and 2 is closed (a
// runner started with `<&-`): else the first files the runner opens would
// take those numbers, and a bot would get them as its standard input or
// output, or write to the journal through "standard error".
void OpenClosedStdio() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    // The lowest free descriptor: `fd`, those below it being open.
    const int opened = open("/dev/null", O_RDWR);
    if (opened >= 0 && opened != fd) close(opened);
  }
}

// `guard`: what the accept guard settled; the bots start with its
// previous_limit, the soft RLIMIT_NOFILE this process had before the guard
// raised it, and under --bot_uids each may hold its share of the guard's
// ceiling in connections (BotConnectionQuota).
int Main(const std::string& path, const AcceptGuardSettings& guard) {
  absl::StatusOr<v1::Tournament> tournament = LoadTournament(path);
  if (!tournament.ok()) {
    std::cerr << "tournament: " << tournament.status().message() << "\n";
    return 2;
  }
  const int64_t bot_log_mib = absl::GetFlag(FLAGS_bot_log_mib);
  if (bot_log_mib < 0 || bot_log_mib > kMaxBotLogMib) {
    std::cerr << "tournament: --bot_log_mib must be from 0 to " << kMaxBotLogMib
              << ", not " << bot_log_mib << "\n";
    return 2;
  }
  const int64_t bot_uids = absl::GetFlag(FLAGS_bot_uids);
  if (absl::Status s = CheckBotUids(*tournament, bot_uids); !s.ok()) {
    std::cerr << "tournament: " << s.message() << "\n";
    return 2;
  }
  if (bot_uids != 0 && tournament->referee().empty()) {
    // Each bot a uid of its own: a bot holding every connection it can
    // leaves the others theirs (without --bot_uids the bots are the
    // runner's uid, one to the kernel). Only the embedded referee's: with
    // --referee the bots connect to that referee, whose limits apply. A
    // kernel that does not tell a connection's uid would let a bot take
    // every connection (or, the quota failing closed, refuse them all).
    if (absl::Status s = SetPeerQuota(
            {.first_uid = static_cast<uid_t>(bot_uids),
             .uids = static_cast<uint32_t>(tournament->bots_size()),
             .per_uid =
                 BotConnectionQuota(guard.ceiling, tournament->bots_size())});
        !s.ok()) {
      std::cerr << "tournament: --bot_uids cannot limit the connections "
                   "each bot may hold to the embedded referee: "
                << s.message() << "\n";
      return 2;
    }
  }
  struct sigaction action = {};
  action.sa_handler = OnSignal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // Output piped into a program that ends first (`tournament ... | head`,
  // a pager quit early) must not kill the run with SIGPIPE at its next
  // progress line: the run goes on, its results written to OUT. (Bots get
  // every signal's default back before they start: BotProcess.)
  signal(SIGPIPE, SIG_IGN);
  RunOptions options;
  options.progress = &std::cerr;
  options.live = isatty(STDERR_FILENO) == 1;
  options.interruptions = [] {
    return interruptions.load(std::memory_order_relaxed);
  };
  options.referee_retry = absl::Seconds(absl::GetFlag(FLAGS_referee_retry_s));
  options.tls_ca = absl::GetFlag(FLAGS_tls_ca);
  options.replay_lost_logs = absl::GetFlag(FLAGS_replay_lost_logs);
  options.bot_log_limit = bot_log_mib << 20;
  if (bot_uids != 0) options.bot_uids = static_cast<uid_t>(bot_uids);
  options.bot_soft_open_file_limit = guard.previous_limit;
  // This program starts no child but the bots.
  options.adopt_orphans = true;
  absl::StatusOr<v1::TournamentResults> results =
      RunTournament(*tournament, options);
  if (!results.ok()) {
    std::cerr << "tournament: " << results.status().message() << "\n";
    switch (results.status().code()) {
      case absl::StatusCode::kInvalidArgument:
        return 2;
      case absl::StatusCode::kCancelled:
        return 130;
      default:
        return 1;
    }
  }
  PrintSummary(*tournament, *results);
  // Last, where a terminal shows it: a bot that never played is a broken
  // entry (a command that exits at once), not a weak one.
  const std::string out = OutputDir(*tournament, *results);
  const std::vector<std::string> never_played =
      BotsThatNeverPlayed(*results, out);
  for (const v1::TournamentStanding& s : results->standings()) {
    if (std::find(never_played.begin(), never_played.end(), s.bot()) !=
        never_played.end()) {
      std::cerr << "tournament: warning: " << NeverPlayedText(s)
                << "; its output: " << out << "/bots/" << s.bot() << ".log\n";
    }
  }
  return results->verified() + results->skipped() == results->scheduled() &&
                 results->transparency_problems() == 0 && never_played.empty()
             ? 0
             : 1;
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  pyramid::OpenClosedStdio();
  std::vector<char*> rest = pyramid::InitProgram(
      argc, argv,
      "Hosts a bot competition: tournament TOURNAMENT_FILE [flags]");
  if (rest.size() != 2) {
    std::cerr << "usage: tournament TOURNAMENT_FILE [flags]\n";
    return 2;
  }
  // Before any thread starts, as in the referee: the embedded referee's
  // listener, which every bot can reach, kept through a bot that opens
  // connections until no descriptor is left, and the descriptors the
  // runner's own files need kept from connections (accept_guard.h), the
  // bots starting with the soft open-file limit from before the guard
  // raised it (and, under --bot_uids, each limited to its share of the
  // connections: Main); the messages of protobuf and gRPC, which a bot can
  // cause, rate-limited (library_log.h).
  const pyramid::AcceptGuardSettings guard = pyramid::InstallAcceptGuard();
  pyramid::LimitLibraryLogs();
  const int status = pyramid::Main(rest[1], guard);
  pyramid::FlushAcceptGuardReport(/*final=*/true);
  pyramid::FlushLibraryLogs();
  pyramid::FlushMessages();
  return status;
}
