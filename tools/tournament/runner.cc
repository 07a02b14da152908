#include "tools/tournament/runner.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "google/protobuf/text_format.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/tlog/note.h"
#include "replay/evidence.h"
#include "tools/tournament/runner_impl.h"
#include "tools/tournament/signing_key.h"
#include "tools/tournament/tournament_file.h"

namespace pyramid {
namespace runner_internal {

namespace {

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

}  // namespace

absl::StatusOr<v1::TournamentResults> Runner::Run() {
  // Every check of the input comes before the output directory is made:
  // a mistake, corrected, runs as if it had never been made.
  if (absl::Status s = Prepare(); !s.ok()) return s;
  if (t_.referee().empty()) {
    if (absl::Status s = CheckSigningKey(); !s.ok()) return s;
  } else {
    absl::StatusOr<std::unique_ptr<RefereeLink>> link = RefereeLink::Connect(
        t_.referee(), t_.referee_key(), t_.admin_token_file(),
        options_.referee_retry, options_.tls_ca);
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
        RefereeLink::StartEmbedded(
            key_files.key.string(), (out_ / "logs").string(),
            (out_ / "tlog.sqlite3").string(), (out_ / "log-journal").string(),
            [this](const std::string& path, const std::string& key) {
              return SealedLogOf(path, key);
            });
    if (!link.ok()) return link.status();
    link_ = *std::move(link);
    SetRetryHooks();
  }
  if (absl::Status s = Resume(); !s.ok()) return s;
  // A finished tournament run again starts no bot: it plays nothing, and
  // its report counts the restarts of the runs that played (bots.jsonl).
  if (!NothingLeftToPlay()) {
    if (absl::Status s = StartBots(); !s.ok()) {
      StopBots();
      return s;
    }
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
  if (!results.ok()) {
    // A write that failed (INTERNAL: a full disk, say) is worth a rerun; a
    // referee that rewrote its log (DATA_LOSS) is not.
    const absl::StatusCode code = results.status().code();
    const bool resumes = code == absl::StatusCode::kInternal ||
                         code == absl::StatusCode::kResourceExhausted;
    results = absl::Status(code, absl::StrCat(results.status().message(), "; ",
                                              MatchesSoFar(resumes)));
  }
  link_.reset();
  // The embedded referee's journal retired its files as it stopped: the
  // directory goes too (it stays if they could not be, for the next run
  // to replay).
  std::error_code ignored;
  std::filesystem::remove(out_ / "log-journal", ignored);
  if (results.ok() && halted_.load()) {
    absl::Status why;
    {
      absl::MutexLock lock(&halt_mu_);
      why = halt_reason_;
    }
    return absl::Status(
        why.code(),
        absl::StrCat(why.message(), "; ", MatchCounts(), ": ", HaltAdvice(why),
                     " (it keeps every verified match)"));
  }
  if (results.ok() && CutShort()) {
    return absl::CancelledError(absl::StrCat(
        "interrupted after ", results->verified(), " of ", results->scheduled(),
        " matches; run the same command again to "
        "resume from ",
        out_.string()));
  }
  return results;
}

absl::Status Runner::Prepare() {
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
    // Refused, as MakeSchedule refuses the other formats', when its rounds
    // would hold more than kMaxScheduledMatches matches.
    absl::StatusOr<uint32_t> size =
        SwissScheduleSize(t_.bots_size(), t_.rounds());
    if (!size.ok()) return size.status();
    swiss_per_round_ = t_.bots_size() / 2 * 2;
    scheduled_ = *size;
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<ScheduledMatch>> schedule = MakeSchedule(
      t_.format(), t_.bots_size(), t_.seats(), t_.rounds(), t_.seed());
  if (!schedule.ok()) return schedule.status();
  fixed_ = *std::move(schedule);
  scheduled_ = fixed_.size();
  return absl::OkStatus();
}

absl::Status Runner::CheckSigningKey() const {
  const SigningKeyFiles files = SigningKeyFilesOf(t_);
  if (absl::StatusOr<std::string> previous = ReadFileToString(
          (fs::path(t_.output_dir()) / "tournament.txt").string());
      previous.ok() && *previous != Identity(t_)) {
    return CheckSigningKeyPath(files);
  }
  return PlanSigningKey(files).status();
}

absl::Status Runner::CheckSameTournament() const {
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

absl::Status Runner::OpenOutput() {
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
    absl::StatusOr<std::string> run_id = ReadFileToString(run_id_file.string());
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

absl::Status Runner::CheckRefereeKey() {
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

std::string Runner::WrongKeyMessage(const std::string& actual,
                                    const std::string& source) const {
  return absl::StrCat(
      "the referee at ", t_.referee(), " signs with key ", ToHex(actual), " (",
      source, "), not the pinned referee_key ", ToHex(link_->public_key()),
      ": none of its logs would verify; pin its key (referee_key, "
      "--referee_key: the referee.key.pub of its data directory) and run "
      "again, which resumes");
}

void Runner::StopOnWrongKey(const Verdict& verdict,
                            const std::string& log_file) {
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

std::string Runner::Label(uint32_t index) const {
  return TournamentLabel(t_.name(), run_id_, index);
}

void Runner::Note(const std::string& line) {
  absl::MutexLock lock(&progress_mu_);
  if (options_.live) *options_.progress << "\r\033[K";
  *options_.progress << line << "\n" << std::flush;
}

void Runner::ProgressLoop() {
  while (!playing_done_.load()) {
    ShowProgress(false);
    for (int i = 0; i < (options_.live ? 5 : 50) && !playing_done_.load();
         ++i) {
      CheckInterrupted();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

bool Runner::CheckInterrupted() {
  if (stopped_at_once_.load()) return true;
  const int received = options_.interruptions();
  if (received <= 0) return interrupted_.load();
  bool first = false;
  bool at_once = false;
  size_t in_flight = 0;
  {
    absl::MutexLock lock(&flight_mu_);
    if (stopped_at_once_.load()) return true;
    first = !interrupted_.exchange(true);
    in_flight = in_flight_;
    // Nothing to finish: the first one stops at once too.
    at_once = received >= 2 || !playing_ || in_flight == 0;
    if (!at_once && !first) return true;
    stopped_at_once_ = at_once;
  }
  if (!at_once) {
    Note(absl::StrCat("interrupted: finishing the ", in_flight,
                      in_flight == 1 ? " match" : " matches",
                      " in flight, starting no more (interrupt again to stop "
                      "at once)"));
    return true;
  }
  link_->Cancel();
  const std::string what =
      first ? "interrupted: stopping" : "interrupted again: stopping at once";
  Note(out_.empty() ? "interrupted: stopping before anything is written"
       : t_.referee().empty()
           ? absl::StrCat(what,
                          " (matches in flight are played again on resume)")
           : absl::StrCat(
                 what,
                 " (the referee plays on the matches in flight without their "
                 "bots, whose seats forfeit at their deadlines; a resume "
                 "takes their results instead of playing them again)"));
  return true;
}

void Runner::SetRetryHooks() {
  link_->SetRetryHooks(
      [this](RefereeLink::Waiting what) {
        if (!CheckInterrupted()) return false;
        // The matches in flight finish, but not one that waits for a
        // referee that does not answer (nothing can finish meanwhile), nor
        // one that waits for a place on a full one (it is not created).
        const bool place = what == RefereeLink::Waiting::kPlace;
        if (!stopped_at_once_.load() &&
            !(place ? place_wait_ended_ : retry_ended_).exchange(true)) {
          Note(place ? absl::StrCat(
                           "interrupted: not waiting for a place on the "
                           "referee at ",
                           link_->address(),
                           link_->waits_for_space()
                               ? ", which cannot record new matches (its "
                                 "disk is full)"
                               : ", which is full (its --max_live_matches)",
                           ": a match that waits for one is not created, and "
                           "the resume plays it")
                     : absl::StrCat("interrupted: not waiting for the "
                                    "referee at ",
                                    link_->address(),
                                    ", which does not answer: a match that "
                                    "waits for it is left unfinished, as a "
                                    "second interruption leaves it"));
        }
        return true;
      },
      [this](const std::string& line) { Note(line); });
}

void Runner::ShowProgress(bool final) {
  // Done: the matches played to an end (EndedKind), in this run or one
  // before; not those the referee never created or that were not watched
  // to their end, which a resume plays or takes up.
  size_t done = 0;
  size_t played = 0;
  size_t forfeits = 0;
  size_t unverified = 0;
  size_t unplayed = 0;
  {
    absl::MutexLock lock(&results_mu_);
    done = results_.size() - unended_;
    played = ended_;
    forfeits = forfeits_;
    unverified = unverified_;
    unplayed = unplayed_;
  }
  const double seconds =
      std::max(1e-3, absl::ToDoubleSeconds(absl::Now() - start_));
  const double rate = played / seconds;
  // Unknown ("-") until a match of this run has finished.
  const std::string eta =
      done >= scheduled_ ? "0 s"
      : rate > 0         ? absl::StrFormat("%.0f s", (scheduled_ - done) / rate)
                         : "-";
  const std::string line = absl::StrFormat(
      "%zu/%u matches  %.1f matches/s  ETA %s  forfeits %zu%s%s%s", done,
      scheduled_, rate, eta, forfeits,
      unverified > 0 ? absl::StrFormat("  not verified %zu", unverified) : "",
      unplayed > 0 ? absl::StrFormat("  not played %zu", unplayed) : "",
      sprt_decided_.load() ? "  SPRT decided" : "");
  absl::MutexLock lock(&progress_mu_);
  if (options_.live) {
    *options_.progress << "\r\033[K" << line << (final ? "\n" : "")
                       << std::flush;
  } else {
    *options_.progress << line << "\n" << std::flush;
  }
}

}  // namespace runner_internal

absl::StatusOr<referee::v1::TournamentResults> RunTournament(
    const referee::v1::Tournament& tournament, const RunOptions& options) {
  runner_internal::Runner runner(tournament, options);
  return runner.Run();
}

}  // namespace pyramid
