#include "tools/tournament/runner.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/clock_settings.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/games/registry.h"
#include "referee/service/directory_lock.h"
#include "referee/tlog/note.h"
#include "replay/evidence.h"
#include "replay/html_page.h"
#include "replay/ordered_pool.h"
#include "replay/verifier.h"
#include "tools/tournament/bot_process.h"
#include "tools/tournament/journal.h"
#include "tools/tournament/ratings.h"
#include "tools/tournament/referee_link.h"
#include "tools/tournament/report.h"
#include "tools/tournament/schedule.h"
#include "tools/tournament/signing_key.h"
#include "tools/tournament/sprt.h"
#include "tools/tournament/standings.h"
#include "tools/tournament/tournament_file.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
namespace fs = std::filesystem;

constexpr char kGenuine[] = "genuine";

absl::Status WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  if (!out)
    return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  return absl::OkStatus();
}

// The bot's command with the placeholders filled in (or the connection
// flags appended when it names none).
std::vector<std::string> BotArgv(const v1::TournamentBot& bot,
                                 const std::string& referee,
                                 const std::string& token_file) {
  std::vector<std::string> argv;
  bool placeholders = false;
  for (std::string arg : bot.command()) {
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::string>>{
             {"{referee}", referee},
             {"{token_file}", token_file},
             {"{key_file}", bot.key_file()}}) {
      for (size_t at; (at = arg.find(name)) != std::string::npos;) {
        arg.replace(at, name.size(), value);
        placeholders = placeholders || name != "{key_file}";
      }
    }
    argv.push_back(std::move(arg));
  }
  if (!placeholders) {
    argv.push_back("--referee=" + referee);
    argv.push_back("--token_file=" + token_file);
  }
  return argv;
}

// The clocks of each match: the tournament's, and unless it sets the seed
// decision's deadline (ClockSettings.seed_timeout_ms), that decision gives
// the seats as long as a bot's longest restart backoff (RestartBackoff::max)
// when the commit deadline is shorter. The runner creates matches as soon
// as it has started the bots, and while one restarts: a program that takes
// longer to start than a commit deadline (an interpreter loading its gRPC
// library on a busy machine) would otherwise forfeit its first matches.
v1::ClockSettings MatchClocks(v1::ClockSettings clocks) {
  const uint32_t grace_ms =
      static_cast<uint32_t>(absl::ToInt64Milliseconds(RestartBackoff().max));
  if (clocks.seed_timeout_ms() == 0 && clocks.commit_timeout_ms() != 0 &&
      clocks.commit_timeout_ms() < grace_ms) {
    clocks.set_seed_timeout_ms(grace_ms);
  }
  return clocks;
}

// What identifies a tournament across runs on one output directory: the
// whole file except where and how fast it runs.
v1::Tournament IdentityOf(v1::Tournament t) {
  t.clear_concurrency();
  t.clear_referee();
  t.clear_admin_token_file();
  t.clear_referee_key();
  t.clear_output_dir();
  t.clear_signing_key_file();
  return t;
}

// IdentityOf(t) as the output directory's tournament.txt records it.
std::string Identity(const v1::Tournament& t) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(IdentityOf(t), &text);
  return text;
}

// The top-level field `field` of `t` in one line of text format ("2",
// "{ game: \"x\" }", a list for a repeated field).
std::string FieldText(const v1::Tournament& t,
                      const google::protobuf::FieldDescriptor* field) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  auto value = [&](int index) {
    std::string text;
    printer.PrintFieldValueToString(t, field, index, &text);
    absl::StripTrailingAsciiWhitespace(&text);
    return field->cpp_type() ==
                   google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE
               ? absl::StrCat("{ ", text, " }")
               : text;
  };
  std::string text;
  if (!field->is_repeated()) {
    const bool absent =
        field->cpp_type() ==
            google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE &&
        !t.GetReflection()->HasField(t, field);
    text = absent ? "none" : value(-1);
  } else {
    const int n = t.GetReflection()->FieldSize(t, field);
    for (int i = 0; i < n; ++i) absl::StrAppend(&text, i ? ", " : "", value(i));
    if (n == 0) text = "none";
  }
  return text;
}

// `text`, cut to at most 160 characters for a message.
std::string Shortened(std::string text) {
  constexpr size_t kMax = 160;
  if (text.size() > kMax) text = absl::StrCat(text.substr(0, kMax - 3), "...");
  return text;
}

// What differs between the tournament recorded in an output directory
// (`recorded`, its tournament.txt) and `now` (an IdentityOf): each
// top-level field that differs, "rounds: 2 in the directory, 3 now".
std::string IdentityDifferences(const std::string& recorded,
                                const v1::Tournament& now) {
  v1::Tournament before;
  if (!google::protobuf::TextFormat::ParseFromString(recorded, &before)) {
    return "its record is not a tournament this runner reads";
  }
  std::vector<std::string> differences;
  const google::protobuf::Descriptor* descriptor = now.GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = descriptor->field(i);
    const std::string was = FieldText(before, field);
    const std::string is = FieldText(now, field);
    if (was != is) {
      differences.push_back(absl::StrCat(field->name(), ": ", Shortened(was),
                                         " in the directory, ", Shortened(is),
                                         " now"));
    }
  }
  if (differences.empty()) return "the same fields, written differently";
  return absl::StrJoin(differences, "; ");
}

// +1 per other seat ranked below `seat`, +0.5 per seat sharing its rank.
double PairwisePoints(const v1::Outcome& outcome, int seat) {
  double points = 0;
  for (int j = 0; j < outcome.seats_size(); ++j) {
    if (j == seat) continue;
    const uint32_t mine = outcome.seats(seat).rank();
    const uint32_t theirs = outcome.seats(j).rank();
    points += theirs > mine ? 1.0 : theirs == mine ? 0.5 : 0.0;
  }
  return points;
}

class Runner {
 public:
  Runner(v1::Tournament t, const RunOptions& options)
      : t_(std::move(t)), options_(options) {}

  absl::StatusOr<v1::TournamentResults> Run() {
    // Every check of the input comes before the output directory is made:
    // a mistake, corrected, runs as if it had never been made.
    if (absl::Status s = Prepare(); !s.ok()) return s;
    if (t_.referee().empty()) {
      if (absl::Status s = CheckSigningKey(); !s.ok()) return s;
    } else {
      absl::StatusOr<std::unique_ptr<RefereeLink>> link =
          RefereeLink::Connect(t_.referee(), t_.referee_key(),
                               t_.admin_token_file(), options_.referee_retry);
      if (!link.ok()) return link.status();
      link_ = *std::move(link);
      SetRetryHooks();
      // A wrong token would fail at the first bot's registration, after
      // the output directory is made.
      if (absl::Status s = link_->CheckAdminToken(); !s.ok()) return s;
      // Before Resume, which would set aside every log the wrong key fails.
      if (absl::Status s = CheckRefereeKey(); !s.ok()) return s;
    }
    if (absl::Status s = CheckSameTournament(); !s.ok()) return s;
    if (absl::Status s = CheckLostLogs(); !s.ok()) return s;
    if (absl::Status s = OpenOutput(); !s.ok()) return s;
    if (t_.referee().empty()) {
      const SigningKeyFiles key_files = SigningKeyFilesOf(t_);
      if (absl::Status s = PlaceSigningKey(
              key_files, [this](std::string line) { Note(line); });
          !s.ok()) {
        return s;
      }
      absl::StatusOr<std::unique_ptr<RefereeLink>> link =
          RefereeLink::StartEmbedded(key_files.key.string(),
                                     (out_ / "logs").string(),
                                     (out_ / "tlog.sqlite3").string(),
                                     (out_ / "log-journal").string());
      if (!link.ok()) return link.status();
      link_ = *std::move(link);
      SetRetryHooks();
    }
    if (absl::Status s = Resume(); !s.ok()) return s;
    if (absl::Status s = StartBots(); !s.ok()) {
      StopBots();
      return s;
    }
    PlayAll();
    StopBots();
    if (wrong_key_.load()) {
      // Nothing is reported against the wrong key; the journal keeps what
      // was played, for a run with the right one.
      absl::MutexLock lock(&results_mu_);
      return absl::FailedPreconditionError(wrong_key_error_);
    }
    absl::StatusOr<v1::TournamentResults> results = Report();
    link_.reset();
    // The embedded referee's journal retired its files as it stopped: the
    // directory goes too (it stays if they could not be, for the next run
    // to replay).
    std::error_code ignored;
    std::filesystem::remove(out_ / "log-journal", ignored);
    if (results.ok() && interrupted_.load()) {
      return absl::CancelledError(
          absl::StrCat("interrupted after ", results->verified(), " of ",
                       results->scheduled(),
                       " matches; run the same command again to "
                       "resume from ",
                       out_.string()));
    }
    return results;
  }

 private:
  // Defaults, validation, and the fixed part of the schedule.
  // INVALID_ARGUMENT for a bad tournament.
  absl::Status Prepare() {
    if (absl::Status s = NormalizeTournament(t_); !s.ok()) return s;
    // Before the output directory records the tournament: a mistyped
    // command or key file, corrected, runs again in the same directory.
    for (const v1::TournamentBot& bot : t_.bots()) {
      if (absl::StatusOr<std::string> program = FindProgram(bot.command(0));
          !program.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("bot ", bot.name(), ": ", program.status().message()));
      }
      std::string public_key;
      if (!bot.key_file().empty()) {
        absl::StatusOr<SigningKey> key = ReadSigningKey(bot.key_file());
        if (!key.ok()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "bot ", bot.name(), ": key_file: ", key.status().message()));
        }
        public_key = key->public_key();
      }
      bot_public_keys_.push_back(std::move(public_key));
    }
    for (const v1::TournamentBot& bot : t_.bots()) names_.push_back(bot.name());
    if (t_.format() == v1::SWISS) {
      swiss_per_round_ = t_.bots_size() / 2 * 2;
      scheduled_ = swiss_per_round_ * t_.rounds();
      return absl::OkStatus();
    }
    absl::StatusOr<std::vector<ScheduledMatch>> schedule = MakeSchedule(
        t_.format(), t_.bots_size(), t_.seats(), t_.rounds(), t_.seed());
    if (!schedule.ok()) return schedule.status();
    fixed_ = *std::move(schedule);
    scheduled_ = fixed_.size();
    return absl::OkStatus();
  }

  // Before anything is made: what PlaceSigningKey will do with the
  // embedded referee's secret key (signing_key.h) is possible. Of a
  // directory that holds another tournament, only what the command alone
  // decides is checked: that the directory is another tournament's is
  // OpenOutput's to name, not that its key files disagree.
  absl::Status CheckSigningKey() const {
    const SigningKeyFiles files = SigningKeyFilesOf(t_);
    if (absl::StatusOr<std::string> previous = ReadFileToString(
            (fs::path(t_.output_dir()) / "tournament.txt").string());
        previous.ok() && *previous != Identity(t_)) {
      return CheckSigningKeyPath(files);
    }
    return PlanSigningKey(files).status();
  }

  // INVALID_ARGUMENT (the command's mistake, exit status 2) when the output
  // directory records another tournament than this one.
  absl::Status CheckSameTournament() const {
    const fs::path identity_file = fs::path(t_.output_dir()) / "tournament.txt";
    if (!fs::exists(identity_file)) return absl::OkStatus();
    absl::StatusOr<std::string> previous =
        ReadFileToString(identity_file.string());
    if (!previous.ok()) return previous.status();
    if (*previous == Identity(t_)) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        t_.output_dir(), " holds another tournament (", identity_file.string(),
        "): ", IdentityDifferences(*previous, IdentityOf(t_)),
        "; choose another output_dir or remove it"));
  }

  // Creates the output directory, or checks that it holds this tournament.
  absl::Status OpenOutput() {
    // Before anything in it is made or changed; again under the lock.
    if (absl::Status s = CheckSameTournament(); !s.ok()) return s;
    out_ = t_.output_dir();
    std::error_code error;
    for (const char* sub : {"logs", "bots", "tokens"}) {
      fs::create_directories(out_ / sub, error);
      if (error) {
        return absl::InternalError(
            absl::StrCat((out_ / sub).string(), ": ", error.message()));
      }
    }
    chmod((out_ / "tokens").c_str(), 0700);
    // Held while the runner lives: no second run on this directory.
    absl::StatusOr<DirectoryLock> lock = DirectoryLock::Acquire(out_.string());
    if (!lock.ok()) return lock.status();
    lock_.emplace(*std::move(lock));
    const fs::path identity_file = out_ / "tournament.txt";
    if (absl::Status s = CheckSameTournament(); !s.ok()) return s;
    if (!fs::exists(identity_file)) {
      // Whole or absent, whenever the run is killed: a torn copy would
      // make the directory "hold another tournament" on the next run.
      if (absl::Status s =
              WriteFileAtomically(identity_file.string(), Identity(t_));
          !s.ok()) {
        return s;
      }
    }
    // The run's id, part of every match label (kept across resumes).
    const fs::path run_id_file = out_ / "run_id";
    if (fs::exists(run_id_file)) {
      absl::StatusOr<std::string> run_id =
          ReadFileToString(run_id_file.string());
      if (!run_id.ok()) return run_id.status();
      run_id_ = std::string(absl::StripAsciiWhitespace(*run_id));
    } else {
      run_id_ = ToHex(SystemRandomBytes(8));
      if (absl::Status s =
              WriteFileAtomically(run_id_file.string(), run_id_ + "\n");
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

  // Fails when the running referee's transparency log checkpoints are
  // signed with another key than the pinned one (Tournament.referee_key):
  // its logs are signed with the same key, so none of them would verify.
  // A referee that gives no checkpoint (it keeps no transparency log, or
  // cannot sign one now) or one without a readable verifier key is checked
  // on its first log instead (StopOnWrongKey); one that cannot be reached
  // (UNAVAILABLE, after the link's retries) fails the run.
  absl::Status CheckRefereeKey() {
    absl::StatusOr<v1::TlogCheckpoint> checkpoint = link_->GetCheckpoint();
    if (checkpoint.status().code() == absl::StatusCode::kUnavailable ||
        checkpoint.status().code() == absl::StatusCode::kCancelled) {
      return checkpoint.status();
    }
    if (!checkpoint.ok()) return absl::OkStatus();
    absl::StatusOr<tlog::NoteVerifier> verifier =
        tlog::ParseVerifierKey(checkpoint->verifier_key());
    if (verifier.ok() && verifier->public_key != link_->public_key()) {
      return absl::FailedPreconditionError(WrongKeyMessage(
          verifier->public_key, "its transparency log checkpoint"));
    }
    return absl::OkStatus();
  }

  // Why a tournament stops on a referee whose key is `actual`, as `source`
  // shows, where the pinned key is another.
  std::string WrongKeyMessage(const std::string& actual,
                              const std::string& source) const {
    return absl::StrCat(
        "the referee at ", t_.referee(), " signs with key ", ToHex(actual),
        " (", source, "), not the pinned referee_key ",
        ToHex(link_->public_key()),
        ": none of its logs would verify; pin its key (referee_key, "
        "--referee_key: the referee.key.pub of its data directory) and run "
        "again, which resumes");
  }

  // Stops the tournament (no more matches start; those in flight are
  // abandoned, played again on resume) when `verdict`, not genuine, is on
  // a log whose header names another referee key than the pinned one.
  void StopOnWrongKey(const Verdict& verdict, const std::string& log_file) {
    const std::optional<std::string> key =
        WrongRefereeKey(verdict, link_->public_key());
    if (!key.has_value()) return;
    {
      absl::MutexLock lock(&results_mu_);
      if (wrong_key_.load()) return;
      wrong_key_error_ = WrongKeyMessage(*key, "the header of " + log_file);
      wrong_key_ = true;
    }
    link_->Cancel();
  }

  // The label match `index` is created with (its log's Header.label).
  std::string Label(uint32_t index) const {
    return TournamentLabel(t_.name(), run_id_, index);
  }

  // A journaled match whose log was genuine when it was journaled and now
  // is missing or does not verify (none of its journal entries' logs
  // does): played again, its label would stand twice in the referee's
  // transparency log, which is what a result replayed until it suited
  // someone looks like. It is never played again silently.
  struct LostLog {
    v1::TournamentMatchResult entry;  // Its last genuine journal entry.
    std::string reason;               // "missing", or why it does not verify.
  };

  // Sorts the genuine journal `entries` of scheduled matches by their logs
  // under `dir`, verified against `key`: each match's first entry whose log
  // verifies goes into `kept` (its outcome and moves from the log), the
  // others' last entry into the result.
  std::map<uint32_t, LostLog> SortJournal(
      const std::vector<v1::TournamentMatchResult>& entries,
      const fs::path& dir, const std::string& key,
      std::map<uint32_t, v1::TournamentMatchResult>& kept) const {
    std::map<uint32_t, LostLog> lost;
    for (v1::TournamentMatchResult entry : entries) {
      if (entry.verdict() != kGenuine || entry.index() >= scheduled_ ||
          kept.contains(entry.index())) {
        continue;
      }
      const fs::path file = dir / entry.log_file();
      absl::StatusOr<Verdict> verdict = VerifyFileWith(file, key);
      if (!verdict.ok()) {
        const std::string reason = fs::exists(file)
                                       ? std::string(verdict.status().message())
                                       : "missing";
        lost[entry.index()] = LostLog{entry, reason};
        continue;
      }
      Judge(*verdict, entry);
      lost.erase(entry.index());
      kept.emplace(entry.index(), std::move(entry));
    }
    return lost;
  }

  // `lost` in a line of the refusal: "match 3 (logs/F, match id ID):
  // missing".
  static std::string LostLogText(const LostLog& lost) {
    return absl::StrCat("match ", lost.entry.index(), " (",
                        lost.entry.log_file(), ", match id ",
                        lost.entry.match_id(), "): ", lost.reason);
  }

  // Why a resume stops on the lost logs `problems` (LostLogText each);
  // `unchanged` when that is before anything in the directory changed.
  std::string LostLogsError(const std::vector<std::string>& problems,
                            bool unchanged) const {
    const bool one = problems.size() == 1;
    return absl::StrCat(
        "resuming would play again ", problems.size(),
        one ? " match whose log was genuine when it was journaled but is now "
              "missing or does not verify"
            : " matches whose logs were genuine when they were journaled but "
              "are now missing or do not verify",
        ", and the label of each would then stand twice in the referee's "
        "transparency log: ",
        absl::StrJoin(problems, "; "), ".",
        unchanged
            ? absl::StrCat(" Nothing in ", t_.output_dir(), " was changed.")
            : "",
        " Restore ", one ? "the log" : "each log",
        " (from a backup, or from a running referee: refctl get-log MATCH_ID "
        "--out=",
        (fs::path(t_.output_dir()) / "LOG_FILE").string(),
        ") and run the same command again, or run it with --replay_lost_logs "
        "to play ",
        one ? "it" : "them", " again");
  }

  // Before anything in the output directory changes: the journal's lost
  // logs (LostLog). With a running referee each is fetched again by its
  // match id and kept in memory when genuine (Resume writes it); any other
  // stops the run (FAILED_PRECONDITION naming each, and what to do),
  // unless RunOptions::replay_lost_logs. Nothing is checked here (Resume
  // checks under the lock) for a directory not made yet, one another run
  // holds (OpenOutput says so), one whose journal does not read (Resume
  // says so), or, with the embedded referee, one without referee.key.pub
  // or whose log journal is left to replay after a power loss (which may
  // restore logs).
  absl::Status CheckLostLogs() {
    const fs::path out = t_.output_dir();
    if (!fs::exists(out / "tournament.txt")) return absl::OkStatus();
    std::string key;
    if (!t_.referee().empty()) {
      key = link_->public_key();
    } else {
      std::error_code error;
      if (!fs::is_empty(out / "log-journal", error) && !error) {
        return absl::OkStatus();
      }
      absl::StatusOr<std::string> pinned =
          ParsePublicKey((out / "referee.key.pub").string());
      if (!pinned.ok()) return absl::OkStatus();
      key = *std::move(pinned);
    }
    // Shared, read-only: no run plays in the directory while it is checked,
    // and the lock file (the last holder's pid) stays as it is.
    const int lock_fd = open((out / "lock").c_str(), O_RDONLY | O_CLOEXEC);
    const bool in_use = lock_fd >= 0 && flock(lock_fd, LOCK_SH | LOCK_NB) != 0;
    absl::Cleanup close_lock = [lock_fd] {
      if (lock_fd >= 0) close(lock_fd);
    };
    if (in_use) return absl::OkStatus();
    absl::StatusOr<std::vector<v1::TournamentMatchResult>> entries =
        Journal::Read((out / "journal.jsonl").string());
    if (!entries.ok()) return absl::OkStatus();
    std::map<uint32_t, v1::TournamentMatchResult> kept;
    std::vector<std::string> problems;
    for (auto& [index, lost] : SortJournal(*entries, out, key, kept)) {
      if (!t_.referee().empty()) {
        absl::StatusOr<std::string> fetched = Refetch(lost.entry, key);
        if (fetched.status().code() == absl::StatusCode::kCancelled) {
          return fetched.status();
        }
        if (fetched.ok()) {
          refetched_[index] = *std::move(fetched);
          continue;
        }
        absl::StrAppend(&lost.reason, "; fetching it again from the referee: ",
                        fetched.status().message());
      }
      problems.push_back(LostLogText(lost));
    }
    if (problems.empty() || options_.replay_lost_logs) return absl::OkStatus();
    return absl::FailedPreconditionError(
        LostLogsError(problems, /*unchanged=*/true));
  }

  // The running referee's log of `entry`'s match, fetched again, when it
  // verifies against `key` as that match's; why not otherwise.
  absl::StatusOr<std::string> Refetch(const v1::TournamentMatchResult& entry,
                                      const std::string& key) {
    absl::StatusOr<std::string> bytes = link_->GetLog(entry.match_id());
    if (!bytes.ok()) return bytes.status();
    VerifyOptions options;
    options.pinned_key = key;
    const Verdict verdict = VerifyLog(*bytes, options);
    if (verdict.kind != Verdict::Kind::kGenuine) {
      return absl::DataLossError(WhyNot(verdict));
    }
    if (ToHex(verdict.header.match_id()) != entry.match_id()) {
      return absl::DataLossError(absl::StrCat(
          "it sent the log of match ", ToHex(verdict.header.match_id())));
    }
    return bytes;
  }

  // Keeps the journal's matches whose logs still verify, and those whose
  // log CheckLostLogs fetched again; a lost log (LostLog) otherwise stops
  // the run, or with RunOptions::replay_lost_logs is played again, its
  // file (if any) moved to superseded/.
  absl::Status Resume() {
    const std::string path = (out_ / "journal.jsonl").string();
    absl::StatusOr<std::vector<v1::TournamentMatchResult>> entries =
        Journal::Read(path);
    if (!entries.ok()) return entries.status();
    std::map<uint32_t, v1::TournamentMatchResult> kept;
    std::map<uint32_t, LostLog> lost =
        SortJournal(*entries, out_, link_->public_key(), kept);
    std::vector<std::string> problems;
    for (auto& [index, l] : lost) {
      const std::string said =
          l.reason == "missing"
              ? absl::StrCat("match ", index, "'s log ", l.entry.log_file(),
                             " was missing")
              : absl::StrCat("match ", index, "'s log ", l.entry.log_file(),
                             " did not verify: ", l.reason);
      const fs::path file = out_ / l.entry.log_file();
      if (const auto it = refetched_.find(index); it != refetched_.end()) {
        if (absl::Status s = WriteFileAtomically(file.string(), it->second);
            !s.ok()) {
          return s;
        }
        if (Verify(l.entry) == kGenuine) {
          Note(absl::StrCat("resuming: ", said,
                            "; fetched it again from the referee"));
          kept.emplace(index, l.entry);
          continue;
        }
      }
      if (!options_.replay_lost_logs) {
        problems.push_back(LostLogText(l));
        continue;
      }
      Note(absl::StrCat("resuming: ", said,
                        "; playing it again (--replay_lost_logs): its label ",
                        Label(index),
                        " will stand twice in the referee's transparency log"));
      if (fs::exists(file)) {
        std::error_code error;
        fs::create_directories(out_ / "superseded", error);
        fs::rename(file, out_ / "superseded" / file.filename(), error);
        Note(absl::StrCat("resuming: ", l.entry.log_file(),
                          " failed verification (", l.reason,
                          "); moved to superseded/"));
      }
    }
    if (!problems.empty()) {
      return absl::FailedPreconditionError(
          LostLogsError(problems, /*unchanged=*/false));
    }
    uint32_t kept_count = 0;
    absl::MutexLock lock(&results_mu_);
    for (auto& [index, entry] : kept) {
      ++kept_count;
      Count(entry);
      results_.emplace(index, std::move(entry));
    }
    if (kept_count > 0) {
      Note(absl::StrCat("resuming: ", kept_count, " of ", scheduled_,
                        " matches already played and verified; ",
                        kept_count >= scheduled_ ? "nothing left to play"
                        : sprt_decided_.load()
                            ? "the SPRT has decided: nothing left to play"
                            : "playing the rest"));
    }
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        Journal::OpenForAppend(path);
    if (!journal.ok()) return journal.status();
    journal_ = *std::move(journal);
    AdoptOrSetAsideUnjournaledLogs();
    return absl::OkStatus();
  }

  // The logs in OUTPUT/logs that the journal does not name: left by a run
  // killed after a match's log was sealed (or fetched) but before it was
  // journaled, or cut short with the match. A genuine log labelled as a
  // scheduled match not yet kept, with that match's seats, is adopted
  // (journaled, not played again: nothing recorded is lost); any other is
  // moved to OUTPUT/superseded/, so that logs/ holds one log per match.
  void AdoptOrSetAsideUnjournaledLogs()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(results_mu_) {
    std::set<std::string> journaled;
    for (const auto& [index, result] : results_) {
      journaled.insert(result.log_file());
    }
    std::vector<fs::path> files;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(out_ / "logs", error)) {
      if (entry.path().extension() == ".pyrlog") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      const std::string log_file = "logs/" + file.filename().string();
      if (journaled.contains(log_file)) continue;
      std::optional<v1::TournamentMatchResult> adopted = Adoptable(file);
      if (adopted.has_value()) {
        // Sealed, so public: the interruption may have come before the
        // referee made it so.
        if (absl::Status s = MakeLogPublic(file.string()); !s.ok()) {
          Note(std::string(s.message()));
        }
        adopted->set_log_file(log_file);
        if (absl::Status s = journal_->Append(*adopted); !s.ok()) {
          Note(std::string(s.message()));
        }
        Note(absl::StrCat("resuming: match ", adopted->index(), " (", log_file,
                          ") was sealed before the interruption; "
                          "kept, not played again"));
        Count(*adopted);
        results_.emplace(adopted->index(), *std::move(adopted));
        continue;
      }
      fs::create_directories(out_ / "superseded", error);
      fs::rename(file, out_ / "superseded" / file.filename(), error);
      Note(absl::StrCat("resuming: ", log_file,
                        " is not a kept match's log "
                        "(cut short, or superseded); moved to superseded/"));
    }
  }

  // The result of the log `file` when it is a genuine log of a scheduled
  // match not yet kept, with the schedule's seats; nullopt otherwise.
  std::optional<v1::TournamentMatchResult> Adoptable(const fs::path& file) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(results_mu_) {
    absl::StatusOr<Verdict> genuine = VerifyFile(file);
    if (!genuine.ok()) return std::nullopt;
    const Verdict& verdict = *genuine;
    for (uint32_t index = 0; index < fixed_.size(); ++index) {
      if (verdict.header.label() != Label(index)) continue;
      if (results_.contains(index)) return std::nullopt;
      const ScheduledMatch& scheduled = fixed_[index];
      if (verdict.header.seats_size() !=
          static_cast<int>(scheduled.bots.size())) {
        return std::nullopt;
      }
      v1::TournamentMatchResult result;
      result.set_index(index);
      result.set_match_id(ToHex(verdict.header.match_id()));
      for (size_t seat = 0; seat < scheduled.bots.size(); ++seat) {
        const std::string& name = names_[scheduled.bots[seat]];
        if (verdict.header.seats(seat).name() != name) return std::nullopt;
        result.add_seats(name);
      }
      *result.mutable_outcome() = verdict.outcome;
      result.set_moves(verdict.moves);
      result.set_verdict(kGenuine);
      return result;
    }
    return std::nullopt;  // Swiss rounds are paired afresh: played again.
  }

  absl::Status StartBots() {
    for (int i = 0; i < t_.bots_size(); ++i) {
      const v1::TournamentBot& bot = t_.bots(i);
      v1::RegisterBotRequest request;
      request.set_name(bot.name());
      // Read by Prepare, before anything was made.
      if (!bot_public_keys_[i].empty()) {
        request.set_public_key(bot_public_keys_[i]);
      }
      absl::StatusOr<v1::RegisterBotResponse> registered =
          link_->RegisterBot(request);
      if (!registered.ok()) return registered.status();
      bot_ids_.push_back(registered->bot_id());
      const fs::path token_file = out_ / "tokens" / (bot.name() + ".token");
      if (absl::Status s = WriteSecretFile(token_file.string(),
                                           registered->bot_token() + "\n");
          !s.ok()) {
        return s;
      }
      auto process = std::make_unique<BotProcess>(
          bot.name(), BotArgv(bot, link_->address(), token_file.string()),
          std::map<std::string, std::string>{
              {"PYRAMID_REFEREE", link_->address()},
              {"PYRAMID_TOKEN_FILE", token_file.string()}},
          (out_ / "bots" / (bot.name() + ".log")).string());
      if (absl::Status s = process->Start(); !s.ok()) return s;
      bots_.push_back(std::move(process));
    }
    supervisor_ = std::thread([this] { Supervise(); });
    return absl::OkStatus();
  }

  // Restarts bots that die while the tournament runs, with exponential
  // backoff (BotProcess::NextStart), one line per step. A match a bot was
  // playing goes on without it: it forfeits at its deadline (a restarted
  // bot has lost the salt of any commitment it made), as the log records.
  void Supervise() {
    std::vector<absl::Time> next_start(bots_.size(), absl::InfinitePast());
    while (!stopping_.load()) {
      const absl::Time now = absl::Now();
      for (size_t i = 0; i < bots_.size() && !stopping_.load(); ++i) {
        BotProcess& bot = *bots_[i];
        if (const std::string how = bot.Exited(); !how.empty()) {
          next_start[i] = bot.NextStart(now);
          Note(next_start[i] == absl::InfiniteFuture()
                   ? absl::StrCat("bot ", bot.name(), " ended (", how,
                                  "); giving up on it after ", bot.starts() - 1,
                                  " restarts")
                   : absl::StrCat("bot ", bot.name(), " ended (", how,
                                  "); restarting in ",
                                  absl::FormatDuration(next_start[i] - now)));
        } else if (next_start[i] != absl::InfinitePast() &&
                   next_start[i] != absl::InfiniteFuture() &&
                   now >= next_start[i]) {
          next_start[i] = absl::InfinitePast();
          if (absl::Status s = bot.Start(); !s.ok()) {
            next_start[i] = absl::InfiniteFuture();
            Note(absl::StrCat("bot ", bot.name(), ": ", s.message(),
                              "; giving up on it"));
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // Stops every bot, then deletes their tokens: each run registers the
  // bots again, and the output directory is published as the evidence.
  void StopBots() {
    stopping_ = true;
    if (supervisor_.joinable()) supervisor_.join();
    for (auto& bot : bots_) bot->Stop();
    std::error_code ignored;
    fs::remove_all(out_ / "tokens", ignored);
  }

  void Note(const std::string& line) {
    absl::MutexLock lock(&progress_mu_);
    if (options_.live) *options_.progress << "\r\033[K";
    *options_.progress << line << "\n" << std::flush;
  }

  // True when no more matches should start.
  bool Stopped() const {
    return interrupted_.load() || sprt_decided_.load() || wrong_key_.load();
  }

  void PlayAll() {
    start_ = absl::Now();
    std::thread reporter([this] { ProgressLoop(); });
    if (t_.format() == v1::SWISS) {
      for (uint32_t round = 0; round < t_.rounds() && !Stopped(); ++round) {
        PlayBatch(SwissMatches(round));
      }
    } else {
      PlayBatch(fixed_);
    }
    playing_done_ = true;
    reporter.join();
    ShowProgress(/*final=*/true);
  }

  // Swiss round `round`, paired from the verified results of earlier
  // rounds (so a resumed tournament pairs every round exactly as before).
  std::vector<ScheduledMatch> SwissMatches(uint32_t round) {
    const int n = t_.bots_size();
    std::vector<double> points(n, 0);
    std::vector<std::vector<int>> games(n, std::vector<int>(n, 0));
    std::map<std::string, int> index;
    for (int i = 0; i < n; ++i) index[names_[i]] = i;
    {
      absl::MutexLock lock(&results_mu_);
      for (const auto& [i, result] : results_) {
        if (i >= round * swiss_per_round_) continue;
        const int a = index[result.seats(0)];
        const int b = index[result.seats(1)];
        ++games[a][b];
        ++games[b][a];
        if (result.verdict() != kGenuine) continue;
        points[a] += PairwisePoints(result.outcome(), 0);
        points[b] += PairwisePoints(result.outcome(), 1);
      }
    }
    // A bye is worth the two games the bot would have played.
    for (int bot : swiss_byes_) points[bot] += 2;
    std::vector<bool> had_bye(n, false);
    for (int bot : swiss_byes_) had_bye[bot] = true;
    const SwissRound pairing = PairSwissRound(points, games, had_bye);
    if (pairing.bye >= 0) swiss_byes_.push_back(pairing.bye);
    return SwissRoundMatches(pairing, round * swiss_per_round_);
  }

  // Plays every match of `batch` not already done, `concurrency` at a time.
  void PlayBatch(const std::vector<ScheduledMatch>& batch) {
    for (const ScheduledMatch& match : batch) {
      scheduled_matches_[match.index] = match;
    }
    std::vector<const ScheduledMatch*> todo;
    {
      absl::MutexLock lock(&results_mu_);
      for (const ScheduledMatch& match : batch) {
        if (!results_.contains(match.index)) todo.push_back(&match);
      }
    }
    std::atomic<size_t> next{0};
    std::vector<std::thread> workers;
    const size_t n = std::min<size_t>(t_.concurrency(), todo.size());
    for (size_t i = 0; i < n; ++i) {
      workers.emplace_back([&] {
        for (size_t k; !Stopped() && (k = next.fetch_add(1)) < todo.size();) {
          std::optional<v1::TournamentMatchResult> result = Play(*todo[k]);
          if (result.has_value()) Record(*std::move(result));
        }
      });
    }
    for (auto& w : workers) w.join();
  }

  // Plays one match; nullopt when interrupted before it finished.
  std::optional<v1::TournamentMatchResult> Play(
      const ScheduledMatch& scheduled) {
    v1::TournamentMatchResult result;
    result.set_index(scheduled.index);
    v1::CreateMatchRequest request;
    *request.mutable_game() = t_.game();
    for (int bot : scheduled.bots) {
      request.add_seats()->set_bot_id(bot_ids_[bot]);
      result.add_seats(names_[bot]);
    }
    *request.mutable_clocks() = MatchClocks(t_.clocks());
    request.set_forfeit_policy(t_.forfeit_policy());
    request.set_label(Label(scheduled.index));
    // Fresh for this attempt, the same for the link's retries of it: an
    // answer lost to a restarting referee does not leave a second match
    // under the same label.
    request.set_request_id(ToHex(SystemRandomBytes(16)));
    absl::StatusOr<v1::CreateMatchResponse> created =
        link_->CreateMatch(request);
    if (created.status().code() == absl::StatusCode::kCancelled) {
      return std::nullopt;
    }
    if (!created.ok()) {
      result.set_verdict(
          absl::StrCat("not played: ", created.status().message()));
      return result;
    }
    result.set_match_id(created->match_id());
    if (absl::Status s = link_->AwaitEnd(created->match_id()); !s.ok()) {
      if (s.code() == absl::StatusCode::kCancelled) return std::nullopt;
      result.set_verdict(absl::StrCat("not finished: ", s.message()));
      return result;
    }
    const std::string file =
        RefereeLink::LogFileName(t_.game().game(), created->match_id());
    result.set_log_file("logs/" + file);
    if (absl::Status s = link_->FetchLog(created->match_id(),
                                         (out_ / "logs").string(), file);
        !s.ok()) {
      if (s.code() == absl::StatusCode::kCancelled) return std::nullopt;
      result.set_verdict(absl::StrCat("log not fetched: ", s.message()));
      return result;
    }
    VerifyAndShow(result);
    return result;
  }

  // Verifies `result`'s log file (the verdict and, when genuine, its
  // outcome and moves go into `result`) and writes its viewer page: the
  // log is read and verified once for both.
  void VerifyAndShow(v1::TournamentMatchResult& result) {
    absl::StatusOr<std::string> bytes =
        ReadFileToString((out_ / result.log_file()).string());
    if (!bytes.ok()) {
      result.set_verdict(std::string(bytes.status().message()));
      return;
    }
    const MatchPage page = RenderMatchPage(*bytes, PinnedOptions());
    result.set_verdict(Judge(page.verdict, result));
    StopOnWrongKey(page.verdict, result.log_file());
    WritePage(result.log_file(), page);
  }

  // The match viewer page (`replay html`) of `result`'s log, at
  // ViewerPageOf(log_file) (in OUTPUT/matches/), for a genuine log or not;
  // the report links it. Nothing when the log is absent; a page that cannot
  // be written is noted.
  void WriteViewerPage(const v1::TournamentMatchResult& result) {
    if (result.log_file().empty()) return;
    absl::StatusOr<std::string> bytes =
        ReadFileToString((out_ / result.log_file()).string());
    if (!bytes.ok()) return;
    WritePage(result.log_file(), RenderMatchPage(*bytes, PinnedOptions()));
  }

  // Writes `page`, the viewer page of `log_file`; notes a failure.
  void WritePage(const std::string& log_file, const MatchPage& page) {
    const fs::path path = out_ / ViewerPageOf(log_file);
    std::error_code error;
    fs::create_directories(path.parent_path(), error);
    if (absl::Status s = WriteFile(path, page.html); !s.ok()) {
      Note(std::string(s.message()));
    }
  }

  // Verification with the referee's key pinned.
  VerifyOptions PinnedOptions() const {
    VerifyOptions options;
    options.pinned_key = link_->public_key();
    return options;
  }

  // The verdict on the log file `path`, the referee's key pinned, when it
  // is genuine; otherwise why not (the error's message).
  absl::StatusOr<Verdict> VerifyFile(const fs::path& path) const {
    return VerifyFileWith(path, link_->public_key());
  }

  // VerifyFile against the referee key `key` (32 bytes).
  static absl::StatusOr<Verdict> VerifyFileWith(const fs::path& path,
                                                const std::string& key) {
    absl::StatusOr<std::string> bytes = ReadFileToString(path.string());
    if (!bytes.ok()) return bytes.status();
    VerifyOptions options;
    options.pinned_key = key;
    Verdict verdict = VerifyLog(*bytes, options);
    if (verdict.kind != Verdict::Kind::kGenuine) {
      return absl::DataLossError(WhyNot(verdict));
    }
    return verdict;
  }

  static std::string WhyNot(const Verdict& verdict) {
    return absl::StrCat(VerdictKindName(verdict.kind), " at record ",
                        verdict.bad_record, ": ", verdict.reason);
  }

  // `verdict` on `result`'s log: when genuine, fills its outcome and moves
  // and returns kGenuine; otherwise returns why not.
  static std::string Judge(const Verdict& verdict,
                           v1::TournamentMatchResult& result) {
    if (verdict.kind != Verdict::Kind::kGenuine) return WhyNot(verdict);
    *result.mutable_outcome() = verdict.outcome;
    result.set_moves(verdict.moves);
    return kGenuine;
  }

  // Verifies `result`'s log file; on success fills its outcome and moves.
  // Returns kGenuine or why not.
  std::string Verify(v1::TournamentMatchResult& result) const {
    absl::StatusOr<Verdict> verdict = VerifyFile(out_ / result.log_file());
    if (!verdict.ok()) return std::string(verdict.status().message());
    return Judge(*verdict, result);
  }

  void Record(v1::TournamentMatchResult result) {
    absl::MutexLock lock(&results_mu_);
    if (absl::Status s = journal_->Append(result); !s.ok()) {
      Note(std::string(s.message()));
    }
    ++played_;
    Count(result);
    results_[result.index()] = std::move(result);
  }

  // Tallies `result` into the progress and SPRT counters.
  void Count(const v1::TournamentMatchResult& result) {
    if (result.outcome().termination() == v1::TERMINATION_FORFEIT) ++forfeits_;
    if (!t_.has_sprt() || result.verdict() != kGenuine) return;
    const int first = result.seats(0) == names_[0] ? 0 : 1;
    const uint32_t mine = result.outcome().seats(first).rank();
    const uint32_t theirs = result.outcome().seats(1 - first).rank();
    (mine < theirs    ? sprt_wins_
     : mine == theirs ? sprt_draws_
                      : sprt_losses_)++;
    if (sprt_decided_.load()) return;
    const std::string decision =
        EvaluateSprt(t_.sprt(), sprt_wins_, sprt_draws_, sprt_losses_)
            .decision();
    if (decision != "inconclusive") {
      sprt_decision_ = decision;
      sprt_decided_ = true;
    }
  }

  // Shows progress until every match is played; notices an interruption.
  void ProgressLoop() {
    while (!playing_done_.load()) {
      ShowProgress(false);
      for (int i = 0; i < (options_.live ? 5 : 50) && !playing_done_.load();
           ++i) {
        CheckInterrupted();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  }

  // True once RunOptions::interrupted has said so; the first time, stops
  // the link (every wait for a match's end or for a retry ends) and says so.
  bool CheckInterrupted() {
    if (interrupted_.load()) return true;
    if (!options_.interrupted()) return false;
    if (!interrupted_.exchange(true)) {
      link_->Cancel();
      Note(out_.empty() ? "interrupted: stopping before anything is written"
                        : "interrupted: stopping (matches in flight are "
                          "played again on resume)");
    }
    return true;
  }

  // An interruption ends the link's waits to retry a referee that does not
  // answer, which say each wait in a line, from the first call on (the
  // checks of the admin token and the referee's key come before
  // ProgressLoop runs).
  void SetRetryHooks() {
    link_->SetRetryHooks([this] { return CheckInterrupted(); },
                         [this](const std::string& line) { Note(line); });
  }

  void ShowProgress(bool final) {
    size_t done = 0;
    size_t played = 0;
    size_t forfeits = 0;
    {
      absl::MutexLock lock(&results_mu_);
      done = results_.size();
      played = played_;
      forfeits = forfeits_;
    }
    const double seconds =
        std::max(1e-3, absl::ToDoubleSeconds(absl::Now() - start_));
    const double rate = played / seconds;
    // Unknown ("-") until a match of this run has finished.
    const std::string eta =
        done >= scheduled_ ? "0 s"
        : rate > 0 ? absl::StrFormat("%.0f s", (scheduled_ - done) / rate)
                   : "-";
    const std::string line = absl::StrFormat(
        "%zu/%u matches  %.1f matches/s  ETA %s  forfeits %zu%s", done,
        scheduled_, rate, eta, forfeits,
        sprt_decided_.load() ? "  SPRT decided" : "");
    absl::MutexLock lock(&progress_mu_);
    if (options_.live) {
      *options_.progress << "\r\033[K" << line << (final ? "\n" : "")
                         << std::flush;
    } else {
      *options_.progress << line << "\n" << std::flush;
    }
  }

  absl::StatusOr<v1::TournamentResults> Report() {
    v1::TournamentResults results;
    results.set_name(t_.name());
    *results.mutable_game() = t_.game();
    results.set_referee_public_key(ToHex(link_->public_key()));
    *results.mutable_clocks() = MatchClocks(t_.clocks());
    results.set_forfeit_policy(t_.forfeit_policy() ==
                                       v1::FORFEIT_POLICY_UNSPECIFIED
                                   ? v1::FORFEIT_POLICY_FORFEIT
                                   : t_.forfeit_policy());
    results.set_scheduled(scheduled_);
    std::vector<v1::TournamentMatchResult> matches;
    {
      absl::MutexLock lock(&results_mu_);
      for (const auto& [index, result] : results_) matches.push_back(result);
    }
    uint32_t verified = 0;
    for (const auto& r : matches) verified += r.verdict() == kGenuine;
    results.set_verified(verified);
    if (sprt_decided_.load()) results.set_skipped(scheduled_ - matches.size());
    // Swiss: a bye leaves a bot fewer matches, not a worse rank.
    std::vector<v1::TournamentStanding> standings = ComputeStandings(
        names_, matches,
        t_.format() == v1::SWISS ? StandingsOrder::kPointsPerMatch
                                 : StandingsOrder::kPoints);
    for (v1::TournamentStanding& s : standings) {
      for (const auto& bot : bots_) {
        if (bot->name() == s.bot())
          s.set_restarts(std::max(0, bot->starts() - 1));
      }
    }
    results.set_rating_model(
        ApplyRatings(names_, matches, t_.seats(), standings));
    for (auto& s : standings) *results.add_standings() = std::move(s);
    if (t_.has_sprt()) {
      absl::MutexLock lock(&results_mu_);
      *results.mutable_sprt() =
          EvaluateSprt(t_.sprt(), sprt_wins_, sprt_draws_, sprt_losses_);
      // The decision taken when the ratio first reached a bound stands.
      if (sprt_decided_.load())
        results.mutable_sprt()->set_decision(sprt_decision_);
    }
    if (!interrupted_.load()) {
      if (absl::Status s = Publish(matches, results); !s.ok()) return s;
    }
    // Pages of matches kept from an earlier run that left none.
    for (const auto& r : matches) {
      if (!r.log_file().empty() &&
          !fs::exists(out_ / ViewerPageOf(r.log_file()))) {
        WriteViewerPage(r);
      }
    }
    for (auto& r : matches) *results.add_matches() = std::move(r);
    std::string json;
    google::protobuf::util::JsonPrintOptions json_options;
    json_options.add_whitespace = true;
    json_options.preserve_proto_field_names = true;
    json_options.always_print_primitive_fields = true;
    (void)google::protobuf::util::MessageToJsonString(results, &json,
                                                      json_options);
    if (absl::Status s = WriteFile(out_ / "results.json", json); !s.ok()) {
      return s;
    }
    if (absl::Status s = WriteFile(
            out_ / "report.html",
            RenderHtmlReport(results,
                             BotsThatNeverPlayed(results, out_.string())));
        !s.ok()) {
      return s;
    }
    return results;
  }

  // The transparency evidence (docs/tournament.md): the referee's
  // checkpoint covering every match played, one inclusion proof per sealed
  // log, the schedule; then checks the directory as `replay
  // verify-tournament` does and records its verdict.
  absl::Status Publish(const std::vector<v1::TournamentMatchResult>& matches,
                       v1::TournamentResults& results) {
    absl::StatusOr<v1::TlogCheckpoint> checkpoint = link_->GetCheckpoint();
    if (!checkpoint.ok()) return checkpoint.status();
    if (absl::Status s = WriteFileAtomically((out_ / "checkpoint").string(),
                                             checkpoint->note());
        !s.ok()) {
      return s;
    }
    if (t_.referee().empty()) {
      // referee.key.pub is there already.
    } else if (absl::Status s =
                   WriteFileAtomically((out_ / "referee.pub").string(),
                                       ToHex(link_->public_key()) + "\n");
               !s.ok()) {
      return s;
    }
    std::error_code error;
    fs::remove_all(out_ / "proofs", error);
    fs::create_directories(out_ / "proofs", error);
    if (error) return absl::InternalError(error.message());
    std::vector<const v1::TournamentMatchResult*> genuine;
    for (const v1::TournamentMatchResult& match : matches) {
      if (match.verdict() == kGenuine) genuine.push_back(&match);
    }
    // A proof is a call to the referee and a file: two per core at once
    // keep both busy (a 10,000-match tournament spent a fifth of its time
    // here, one at a time). The first failure, in match order, is the
    // answer.
    std::vector<absl::Status> written(genuine.size());
    RunInOrder(
        genuine.size(), 2 * PoolSize(genuine.size()),
        [&](size_t i) {
          const v1::TournamentMatchResult& match = *genuine[i];
          absl::StatusOr<v1::InclusionProof> proof = link_->GetInclusionProof(
              match.match_id(), checkpoint->tree_size());
          written[i] =
              proof.ok()
                  ? WriteFile(out_ / "proofs" /
                                  (fs::path(match.log_file()).stem().string() +
                                   ".tlog-proof"),
                              proof->tlog_proof())
                  : proof.status();
          return JobOutput();
        },
        [](size_t, const JobOutput&) {});
    for (const absl::Status& s : written) {
      if (!s.ok()) return s;
    }
    v1::TournamentSchedule schedule;
    schedule.set_name(t_.name());
    schedule.set_game(t_.game().game());
    schedule.set_run_id(run_id_);
    std::set<uint32_t> done;
    for (const v1::TournamentMatchResult& match : matches) {
      done.insert(match.index());
    }
    for (const auto& [index, scheduled] : scheduled_matches_) {
      v1::ScheduleEntry* entry = schedule.add_matches();
      entry->set_index(index);
      entry->set_label(Label(index));
      for (int bot : scheduled.bots) entry->add_seats(names_[bot]);
      entry->set_skipped(sprt_decided_.load() && !done.contains(index));
    }
    std::string json;
    google::protobuf::util::JsonPrintOptions json_options;
    json_options.add_whitespace = true;
    json_options.preserve_proto_field_names = true;
    (void)google::protobuf::util::MessageToJsonString(schedule, &json,
                                                      json_options);
    if (absl::Status s = WriteFile(out_ / "schedule.json", json); !s.ok()) {
      return s;
    }
    const TournamentVerdict verdict = CheckTournamentDirectory(
        out_.string(), CheckpointKey{"", link_->public_key()});
    results.set_checkpoint(checkpoint->note());
    std::string text = verdict.summary;
    for (const std::string& problem : verdict.problems) {
      absl::StrAppend(&text, "\n", problem);
    }
    results.set_transparency_verdict(text);
    results.set_transparency_problems(verdict.problems.size());
    return absl::OkStatus();
  }

  v1::Tournament t_;
  const RunOptions& options_;
  std::string run_id_;
  // Every match scheduled so far, by index (Swiss rounds as paired).
  std::map<uint32_t, ScheduledMatch> scheduled_matches_;
  fs::path out_;
  std::optional<DirectoryLock> lock_;  // On out_.
  std::vector<std::string> names_;
  // Each bot's public key from its key_file, or "" (Prepare).
  std::vector<std::string> bot_public_keys_;
  uint32_t scheduled_ = 0;
  std::vector<ScheduledMatch> fixed_;  // Every format but Swiss.
  uint32_t swiss_per_round_ = 0;
  std::vector<int> swiss_byes_;  // Bye of each Swiss round so far.

  std::unique_ptr<RefereeLink> link_;
  // Lost logs (LostLog) fetched again from a running referee, genuine, by
  // match index (CheckLostLogs), for Resume to write.
  std::map<uint32_t, std::string> refetched_;
  std::unique_ptr<Journal> journal_;
  std::vector<std::string> bot_ids_;
  std::vector<std::unique_ptr<BotProcess>> bots_;
  std::thread supervisor_;
  std::atomic<bool> stopping_{false};

  absl::Time start_;
  std::atomic<bool> playing_done_{false};
  std::atomic<bool> interrupted_{false};
  std::atomic<bool> sprt_decided_{false};
  // A log named another referee key than the pinned one (StopOnWrongKey).
  std::atomic<bool> wrong_key_{false};
  absl::Mutex results_mu_;
  std::map<uint32_t, v1::TournamentMatchResult> results_
      ABSL_GUARDED_BY(results_mu_);
  size_t played_ ABSL_GUARDED_BY(results_mu_) = 0;  // This run.
  size_t forfeits_ ABSL_GUARDED_BY(results_mu_) = 0;
  int sprt_wins_ = 0;  // Bot 0's record against bot 1 (under results_mu_).
  int sprt_draws_ = 0;
  int sprt_losses_ = 0;
  std::string sprt_decision_;  // Once sprt_decided_.
  std::string wrong_key_error_ ABSL_GUARDED_BY(results_mu_);
  absl::Mutex progress_mu_;
};

}  // namespace

absl::StatusOr<v1::TournamentResults> RunTournament(
    const v1::Tournament& tournament, const RunOptions& options) {
  Runner runner(tournament, options);
  return runner.Run();
}

std::vector<std::string> BotsThatNeverPlayed(
    const v1::TournamentResults& results, const std::string& output_dir) {
  // Each bot with a genuine match: whether its seat committed in one.
  std::map<std::string, bool> played;
  for (const v1::TournamentMatchResult& match : results.matches()) {
    if (match.verdict() != kGenuine) continue;
    for (const std::string& bot : match.seats()) played.emplace(bot, false);
  }
  for (const v1::TournamentMatchResult& match : results.matches()) {
    if (match.verdict() != kGenuine) continue;
    // Read only while one of its bots has not been seen playing: a bot
    // that plays costs one log.
    if (std::all_of(match.seats().begin(), match.seats().end(),
                    [&](const std::string& bot) { return played[bot]; })) {
      continue;
    }
    absl::StatusOr<std::string> bytes =
        ReadFileToString((fs::path(output_dir) / match.log_file()).string());
    if (!bytes.ok()) {
      for (const std::string& bot : match.seats()) played[bot] = true;
      continue;
    }
    for (const RawRecord& raw : SplitLog(*bytes).records) {
      v1::LogRecord record;
      if (!record.ParseFromArray(raw.bytes.data(),
                                 static_cast<int>(raw.bytes.size())) ||
          !record.has_commit()) {
        continue;
      }
      const uint32_t seat = record.commit().seat();
      if (seat < static_cast<uint32_t>(match.seats_size())) {
        played[match.seats(seat)] = true;
      }
    }
  }
  std::vector<std::string> never;
  for (const v1::TournamentStanding& s : results.standings()) {
    const auto it = played.find(s.bot());
    if (it != played.end() && !it->second) never.push_back(s.bot());
  }
  return never;
}

}  // namespace pyramid
