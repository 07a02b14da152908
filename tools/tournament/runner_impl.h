// The tournament runner's internals, not an API: RunTournament (runner.h)
// is the runner's one entry point. Runner plays one tournament; its member
// functions are defined by purpose:
//   runner.cc         Run, the order of a run's steps; the checks of the
//                     tournament, the output directory and the keys before
//                     anything changes (Prepare, CheckSigningKey,
//                     CheckSameTournament, OpenOutput, CheckRefereeKey,
//                     StopOnWrongKey); the progress line and interruption.
//   runner_resume.cc  Resuming from the journal: lost logs (CheckLostLogs,
//                     Refetch), Resume, adopting or setting aside the
//                     logs the journal does not name, and finding the
//                     matches an earlier run created on a running referee
//                     (created.jsonl, EarlierMatch).
//   runner_bots.cc    Registering, starting, supervising and stopping the
//                     bots.
//   runner_play.cc    Playing the schedule (Swiss rounds paired as they
//                     come), each match, and its viewer page.
//   runner_verify.cc  Verifying a log against the referee's key, and
//                     recording and counting a result.
//   runner_report.cc  The report: results.json, report.html, and the
//                     transparency evidence (checkpoint, proofs, schedule);
//                     BotsThatNeverPlayed.
#ifndef PYRAMID_TOOLS_TOURNAMENT_RUNNER_IMPL_H_
#define PYRAMID_TOOLS_TOURNAMENT_RUNNER_IMPL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "pyramid/referee/v1/log.pb.h"
#include "pyramid/referee/v1/referee_service.pb.h"
#include "pyramid/referee/v1/tournament.pb.h"
#include "referee/crypto/bytes.h"
#include "referee/service/directory_lock.h"
#include "replay/html_page.h"
#include "replay/tournament_check.h"
#include "replay/verifier.h"
#include "tools/tournament/bot_process.h"
#include "tools/tournament/header_check.h"
#include "tools/tournament/match_journal.h"
#include "tools/tournament/match_verdict.h"
#include "tools/tournament/referee_link.h"
#include "tools/tournament/runner.h"
#include "tools/tournament/schedule.h"

namespace pyramid {
namespace runner_internal {

namespace v1 = ::pyramid::referee::v1;
namespace fs = std::filesystem;

// Writes `bytes` to `path`, replacing it whole: written beside it as
// PATH.tmp and renamed over it, so a reader sees the old file or the new
// one, never a part, even when the run is killed or the disk fills
// meanwhile; INTERNAL when it cannot (runner_report.cc). Every file the
// runner publishes is written so. Not synced one by one (a fsync each cost
// ~10 ms, 10,000 proofs and viewer pages minutes): each is made again from
// the journal and the logs by the next run, and the results sync the
// output's file system once (syncfs) before the checkpoint and once at the
// end (SyncFileSystemOf).
absl::Status WriteFile(const fs::path& path, const std::string& bytes);

// Syncs the file system that holds `dir` (syncfs); INTERNAL when it cannot.
absl::Status SyncFileSystemOf(const fs::path& dir);

// The clocks of each match: the tournament's, and unless it sets the seed
// decision's deadline (ClockSettings.seed_timeout_ms), that decision gives
// the seats as long as a bot's longest restart backoff (RestartBackoff::max)
// when the commit deadline is shorter. The runner creates matches as soon
// as it has started the bots, and while one restarts: a program that takes
// longer to start than a commit deadline (an interpreter loading its gRPC
// library on a busy machine) would otherwise forfeit its first matches.
// (runner_play.cc)
v1::ClockSettings MatchClocks(v1::ClockSettings clocks);

// The runner's verdicts on the log files of the output directory, so that
// a resume reads and verifies each log once: the check of the lost logs
// before anything changes, the embedded referee's start (which enters the
// sealed logs its transparency log lacks), the resume, the adoption of
// unjournaled logs, the verification of each match played and the final
// check of the directory (CheckTournamentDirectory's KnownLogs) all ask
// for the same files. A verdict is kept with the
// file's identity when it was read (device, inode, size, modification and
// change times); a file whose identity has changed since, or that changed
// while it was read, is read and verified again. Thread-safe.
class VerifiedLogs {
 public:
  // VerifyLog's verdict, the key pinned (genuine or not), and the
  // SHA-256 of the bytes verified.
  using Entry = KnownLog;

  // `on_read` (may be empty) is called with the path of each file read and
  // verified (RunOptions::log_verified).
  explicit VerifiedLogs(std::function<void(const std::string&)> on_read)
      : on_read_(std::move(on_read)) {}

  // The verdict on the log file `path` with the referee key `key` (32
  // bytes) pinned, read and verified unless it was already with that key
  // and its file is unchanged; the read's error when it cannot be read.
  absl::StatusOr<std::shared_ptr<const Entry>> Get(const fs::path& path,
                                                   const std::string& key);

  // The verdict Get would give without reading the file: null unless it
  // was kept with `key` and the file is unchanged.
  std::shared_ptr<const Entry> Find(const fs::path& path,
                                    const std::string& key);

 private:
  // What tells whether a file changed: equal before and after a change
  // only for a file rewritten within the file system's time granularity
  // with the same size and inode.
  struct Identity {
    uint64_t device = 0, inode = 0, size = 0;
    int64_t modified_ns = 0, changed_ns = 0;
    bool operator==(const Identity&) const = default;
  };
  static std::optional<Identity> IdentityOf(const fs::path& path);
  // The verdict kept on `path` with `key` when it was read as `identity`.
  std::shared_ptr<const Entry> KeptAs(const fs::path& path,
                                      const std::string& key,
                                      const Identity& identity);

  struct Kept {
    Identity identity;
    std::string key;
    std::shared_ptr<const Entry> entry;
  };
  const std::function<void(const std::string&)> on_read_;
  absl::Mutex mu_;
  std::map<std::string, Kept> kept_ ABSL_GUARDED_BY(mu_);
};

// One tournament, played by RunTournament: Run, once.
class Runner {
 public:
  Runner(v1::Tournament t, const RunOptions& options)
      : t_(std::move(t)),
        options_(options),
        verified_logs_(options.log_verified) {}

  absl::StatusOr<v1::TournamentResults> Run();

 private:
  // ----------------------------------------------------------------------
  // runner.cc: the checks before anything changes, the output directory,
  // the referee's key; notes, progress and interruption.

  // Defaults, validation, and the fixed part of the schedule.
  // INVALID_ARGUMENT for a bad tournament.
  absl::Status Prepare();

  // Before anything is made: what PlaceSigningKey will do with the
  // embedded referee's secret key (signing_key.h) is possible. Of a
  // directory that holds another tournament, only what the command alone
  // decides is checked: that the directory is another tournament's is
  // OpenOutput's to name, not that its key files disagree.
  absl::Status CheckSigningKey() const;

  // INVALID_ARGUMENT (the command's mistake, exit status 2) when the output
  // directory records another tournament than this one.
  absl::Status CheckSameTournament() const;

  // Creates the output directory, or checks that it holds this tournament.
  absl::Status OpenOutput();

  // Fails when the running referee's transparency log checkpoints are
  // signed with another key than the pinned one (Tournament.referee_key):
  // its logs are signed with the same key, so none of them would verify.
  // A referee that gives no checkpoint (it keeps no transparency log, or
  // cannot sign one now) or one without a readable verifier key is checked
  // on its first log instead (StopOnWrongKey); one that cannot be reached
  // (UNAVAILABLE, after the link's retries) fails the run.
  absl::Status CheckRefereeKey();

  // Why a tournament stops on a referee whose key is `actual`, as `source`
  // shows, where the pinned key is another.
  std::string WrongKeyMessage(const std::string& actual,
                              const std::string& source) const;

  // Stops the tournament (no more matches start; those in flight are
  // abandoned: on resume, their results are taken from the referee, see
  // EarlierMatch) when `verdict`, not genuine, is on a log whose header
  // names another referee key than the pinned one.
  void StopOnWrongKey(const Verdict& verdict, const std::string& log_file);

  // The label match `index` is created with (its log's Header.label).
  std::string Label(uint32_t index) const;

  void Note(const std::string& line);

  // Shows progress until every match is played; notices interruptions.
  void ProgressLoop();

  // True once RunOptions::interruptions has said so. The first one while
  // matches are played (playing_) stops new ones from starting (Stopped)
  // and lets those in flight finish, said in a line with their number; a
  // second one, or the first when no match is in flight or being played
  // (the checks, the resume, the start of the bots, the report), stops at
  // once: the link is cancelled (every wait for a match's end or for a
  // retry ends; the matches in flight are abandoned), said in a line.
  bool CheckInterrupted();

  // An interruption ends the link's waits to retry a referee that does not
  // answer (the first one too: nothing can finish meanwhile), which say
  // each wait in a line, from the first call on (the checks of the admin
  // token and the referee's key come before ProgressLoop runs).
  void SetRetryHooks();

  void ShowProgress(bool final);

  // ----------------------------------------------------------------------
  // runner_resume.cc: resuming from the journal.

  // A journaled match whose log was genuine when it was journaled and now
  // is missing, does not verify, or is another match's genuine log (none
  // of its journal entries' logs is its own): played again, its label
  // would stand twice in the referee's transparency log, which is what a
  // result replayed until it suited someone looks like. It is never
  // played again silently.
  struct LostLog {
    v1::TournamentMatchResult entry;  // Its last genuine journal entry.
    // "missing", why it does not verify, or "not its log: it is the log of
    // match ID".
    std::string reason;
    // The match id in the header of the genuine log found instead, if so.
    std::string other_match;
  };

  // Sorts the genuine journal `entries` of scheduled matches by their logs
  // under `dir`, verified against `key`: each match's first entry whose log
  // verifies and is its match's (the header's match id is the journaled
  // one) goes into `kept` (its outcome and moves from the log), the
  // others' last entry into the result. The rest of the header was checked
  // against what the runner asked for when the match was journaled, and is
  // not again: a bot's key_file may hold a new key now.
  std::map<uint32_t, LostLog> SortJournal(
      const std::vector<v1::TournamentMatchResult>& entries,
      const fs::path& dir, const std::string& key,
      std::map<uint32_t, v1::TournamentMatchResult>& kept);

  // `lost` in a line of the refusal: "match 3 (logs/F, match id ID):
  // missing".
  static std::string LostLogText(const LostLog& lost);

  // Why a resume stops on the lost logs `problems` (LostLogText each);
  // `unchanged` when that is before anything in the directory changed.
  std::string LostLogsError(const std::vector<std::string>& problems,
                            bool unchanged) const;

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
  absl::Status CheckLostLogs();

  // The running referee's log of `entry`'s match, fetched again, when it
  // verifies against `key` as that match's; why not otherwise.
  absl::StatusOr<std::string> Refetch(const v1::TournamentMatchResult& entry,
                                      const std::string& key);

  // Keeps the journal's matches whose logs still verify, and those whose
  // log CheckLostLogs fetched again; a lost log (LostLog) otherwise stops
  // the run, or with RunOptions::replay_lost_logs is played again, its
  // file (if any) moved to superseded/. Then opens the journal for
  // appending, adopts or sets aside the logs it does not name, and opens
  // created.jsonl and bots.jsonl (OpenBotJournal). Its steps follow.
  absl::Status Resume();

  // How a resume says what became of `lost`: "match 3's log logs/F was
  // missing" (is the log of match ID, did not verify: WHY).
  static std::string LostLogNote(const LostLog& lost);

  // Settles each of the journal's lost logs `lost` (SortJournal;
  // `entries` the journal's): one fetched again is kept (RestoreRefetched);
  // any other is played again with RunOptions::replay_lost_logs
  // (PlayLostAgain) and otherwise named in a FAILED_PRECONDITION
  // (LostLogsError) once all are settled. The error of a write or a move
  // that failed.
  absl::Status SettleLostLogs(
      const std::vector<v1::TournamentMatchResult>& entries,
      std::map<uint32_t, LostLog>& lost,
      std::map<uint32_t, v1::TournamentMatchResult>& kept);

  // When CheckLostLogs found `lost`'s log genuine on the referee
  // (refetchable_): fetches it again into its file (FetchLog), and when it
  // then verifies, puts `lost.entry` (its outcome and moves filled) into
  // `kept` and says so in a line: true. False otherwise (why appended to
  // `lost.reason`); CANCELLED when interrupted.
  absl::StatusOr<bool> RestoreRefetched(
      LostLog& lost, std::map<uint32_t, v1::TournamentMatchResult>& kept);

  // With RunOptions::replay_lost_logs: `lost`'s match is played again under
  // an attempt of its own (attempts_: its genuine entries among the
  // journal's `entries`), said in a line; its file, if any, is moved to
  // superseded/ (Supersede, whose error is returned).
  absl::Status PlayLostAgain(
      const std::vector<v1::TournamentMatchResult>& entries,
      const LostLog& lost);

  // Every match below the highest index in `kept` or created.jsonl
  // (created_before_) was started by an earlier run, matches starting in
  // index order: that bound, at most the matches scheduled.
  uint32_t StartedBelow(
      const std::map<uint32_t, v1::TournamentMatchResult>& kept) const;

  // Takes the journal's matches `kept` as results, counted (Count);
  // returns how many.
  uint32_t TakeKept(std::map<uint32_t, v1::TournamentMatchResult> kept)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(results_mu_);

  // Says in a line how many of the scheduled matches a resume kept
  // (`kept_count`) and what is left to play, matches below `started_below`
  // finishing after a decided SPRT.
  void NoteResumed(uint32_t kept_count, uint32_t started_below)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(results_mu_);

  // Opens the journal at `path` for appending as journal_.
  absl::Status OpenJournal(const std::string& path);

  // The logs in OUTPUT/logs that the journal does not name: left by a run
  // killed after a match's log was sealed (or fetched) but before it was
  // journaled, or cut short with the match. A genuine log labelled as a
  // scheduled match not yet kept, with that match's seats, is adopted
  // (journaled, not played again: nothing recorded is lost); any other is
  // moved to OUTPUT/superseded/, so that logs/ holds one log per match.
  // The error of a move that failed (Supersede).
  absl::Status AdoptOrSetAsideUnjournaledLogs()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(results_mu_);

  // Moves the log `file` (F.pyrlog) to OUTPUT/superseded/, never replacing
  // a file there: under the first free name of F.pyrlog, F.1.pyrlog,
  // F.2.pyrlog, ... (an earlier resume may have set aside a log of that
  // name). Returns where it went, relative to OUTPUT
  // ("superseded/F.1.pyrlog"); INTERNAL, saying so, when it cannot (the
  // resume then stops: the file would stay where a match played again may
  // write its log).
  absl::StatusOr<std::string> Supersede(const fs::path& file);

  // The result of the log `file` when it is a genuine log of a scheduled
  // match not yet kept, with the schedule's seats (a Swiss round's as
  // recorded, ReadPairings); nullopt otherwise.
  std::optional<v1::TournamentMatchResult> Adoptable(const fs::path& file) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(results_mu_);

  // Match `index` as scheduled: fixed_'s, or a Swiss round's once paired
  // (scheduled_matches_); null when it is not (yet).
  const ScheduledMatch* ScheduledAt(uint32_t index) const;

  // Swiss: reads the rounds an earlier run paired from OUTPUT/pairings.jsonl
  // (RecordPairing) into scheduled_matches_, swiss_byes_ and
  // swiss_recorded_rounds_, so that a resume knows the seats of every match
  // an earlier run may have created: a sealed log of one is adopted, and
  // its round is played as paired then even when a result it was paired
  // from is played again now. None for a directory without the file (new,
  // or from a runner that did not record pairings). DATA_LOSS for a file
  // that does not parse or is not whole rounds of scheduled matches with
  // two of the tournament's bots each (it is only ever replaced whole).
  absl::Status ReadPairings();

  // Swiss: records the pairing `matches` of the next round in
  // OUTPUT/pairings.jsonl (index and seats, a line per match, as the
  // journal writes them) after the rounds recorded before, replacing the
  // file whole and durably (WriteFileAtomically) before any of the round's
  // matches is created. The write's error when it cannot: the round must
  // then not be played.
  absl::Status RecordPairing(const std::vector<ScheduledMatch>& matches);

  // A running referee: reads OUTPUT/created.jsonl (the matches earlier runs
  // created, NoteCreated) into created_before_; refused as a damaged
  // journal is. OpenCreated then opens it for appending.
  absl::Status ReadCreated();
  absl::Status OpenCreated();

  // A running referee: appends `created` (index, match id, seats) to
  // OUTPUT/created.jsonl as soon as the referee has answered its
  // CreateMatch, so that a resume finds the match without a search.
  void NoteCreated(const v1::TournamentMatchResult& created);

  // The match the running referee holds for `request_id` (match `index`'s,
  // RequestId), which an earlier run created and did not record the end
  // of (an interruption, SIGKILL included; a log it could not fetch): the
  // referee answered this run's CreateMatch with FAILED_PRECONDITION, since
  // its seats name the earlier run's bots. Found by the match ids
  // created.jsonl holds for `index`, else (a run killed between the
  // referee's answer and that line) among the referee's matches, newest
  // first, in one search shared by every match (ListMatches). Never a
  // broken one (for which the referee would have made a new match).
  // NOT_FOUND when there is none; CANCELLED when interrupted.
  absl::StatusOr<v1::MatchInfo> EarlierMatch(uint32_t index,
                                             const std::string& request_id);

  // ----------------------------------------------------------------------
  // runner_bots.cc: the bots.

  absl::Status StartBots();

  // True when every scheduled match is already played (or the SPRT has
  // decided and those started before it are): a run that finds so after
  // Resume starts no bot.
  bool NothingLeftToPlay();
  // Interrupted with matches left to play: the run reports what it has and
  // says how to resume, without the transparency evidence. (An
  // interruption during the last matches, which then finish, leaves the
  // tournament complete.)
  bool CutShort();

  // Restarts bots that die while the tournament runs, with exponential
  // backoff (BotProcess::NextStart), one line per step, said on the
  // progress stream and in the bot's own log (bots/NAME.log), each end and
  // restart journaled in OUTPUT/bots.jsonl (RecordBotEvent). A match a bot
  // was playing goes on without it: it forfeits at its deadline (a
  // restarted bot has lost the salt of any commitment it made), as the log
  // records.
  void Supervise();

  // Reads OUTPUT/bots.jsonl (the ends and restarts of the bots' programs
  // in earlier runs) into bot_events_ and opens it for appending
  // (Resume's last step). DATA_LOSS naming a damaged line.
  absl::Status OpenBotJournal();

  // Appends `event` to OUTPUT/bots.jsonl and keeps it in bot_events_. A
  // line that cannot be appended is said once (the run goes on: the
  // journal of matches halts it on the same full disk).
  void RecordBotEvent(v1::TournamentBotEvent event);

  // Each bot's restarts and ends over every run (bot_events_): the
  // standings' restarts and ends. With no OUTPUT/bots.jsonl at the start
  // (a directory of a runner older than it) and no bot started, the
  // restarts of that runner's results.json (EarlierRestarts).
  void FillRestarts(std::vector<v1::TournamentStanding>& standings);

  // Stops every bot, then deletes their tokens: each run registers the
  // bots again, and the output directory is published as the evidence.
  void StopBots();

  // ----------------------------------------------------------------------
  // runner_play.cc: playing the schedule.

  // True when no more matches should start.
  bool Stopped() const;
  // The run cannot record what it plays: its journal cannot be appended to
  // (the output directory's disk is full, say), or the embedded referee
  // cannot record new matches (the same disk). No more matches start (the
  // matches in flight finish, as after an interruption), `why` is said
  // once, and Run ends with an error saying so (exit status 1); running it
  // again resumes.
  void Halt(const absl::Status& why);
  // What to do after a halt for `why`: "once there is room (a full disk;
  // once the cause is mended otherwise), run the same command again to
  // resume from OUTPUT".
  std::string HaltAdvice(const absl::Status& why) const;

  // The index in `todo` of the next match to play, from `next` (advanced;
  // under flight_mu_), counted in flight until Done; nullopt when none is
  // left or no more should start (Stopped), except that a decided SPRT
  // still lets a match below started_below_ start: one started before the
  // decision, in an earlier run, and never finished (matches in flight
  // finish and count; docs/tournament.md, "When the runner stops"). An
  // interruption (CheckInterrupted) is decided under the same lock: a
  // match is either in flight at an interruption, and counted, or never
  // started.
  std::optional<size_t> Start(size_t& next,
                              const std::vector<const ScheduledMatch*>& todo);
  void Done();

  void PlayAll();

  // Swiss round `round` (every earlier one paired already), paired from
  // the results of earlier rounds and the byes so far. A round recorded before
  // (ReadPairings) is taken as recorded; a new one is recorded (RecordPairing)
  // before it is returned, its error returned when it cannot be (no match of
  // the round may start then).
  absl::StatusOr<std::vector<ScheduledMatch>> SwissMatches(uint32_t round);

  // Plays every match of `batch` not already done, `concurrency` at a time.
  void PlayBatch(const std::vector<ScheduledMatch>& batch);

  // The CreateMatchRequest.request_id of match `index`: the same in every
  // run of the tournament (its run id and the match's index, and the
  // attempt of a match played again on purpose, --replay_lost_logs), so
  // that a resume's CreateMatch for a match the referee already created
  // names that match (docs/protocol.md, "Retrying CreateMatch") instead of
  // creating a second one under the same label.
  std::string RequestId(uint32_t index) const;

  // What every request_id of this tournament begins with.
  std::string RequestIdPrefix() const;
  // Whether `request_id` is one this run asks for: RequestId(index) of a
  // scheduled match.
  bool AsksFor(const std::string& request_id) const;

  // Plays one match; nullopt when interrupted before it finished. A match
  // the referee already holds for its request_id (EarlierMatch) is not
  // created again: its result is taken (TakeOver).
  std::optional<v1::TournamentMatchResult> Play(
      const ScheduledMatch& scheduled);

  // `result` (index and seats set) as the match `earlier`, which an
  // earlier run created for it: waits for its end (its seats name that
  // run's bots, which this run's, registered anew, cannot play: they
  // forfeit at their deadlines), fetches and verifies its log, and says so
  // in a line. A genuine result with a seat that forfeited is marked
  // unhosted_forfeit (journaled with it): no run hosted the match's bots
  // to its end, so its forfeits may be the host's. nullopt when
  // interrupted.
  std::optional<v1::TournamentMatchResult> TakeOver(
      v1::TournamentMatchResult result, const v1::MatchInfo& earlier);

  // Waits for the end of `result`'s match (its match_id set), fetches its
  // log and verifies it; nullopt when interrupted.
  std::optional<v1::TournamentMatchResult> Finish(
      v1::TournamentMatchResult result);

  // Verifies `result`'s log file (the verdict and, when genuine, its
  // outcome and moves go into `result`) and writes its viewer page: the
  // log is read and verified once for both.
  void VerifyAndShow(v1::TournamentMatchResult& result);

  // The match viewer page (`replay html`) of `result`'s log, at
  // ViewerPageOf(log_file) (in OUTPUT/matches/), for a genuine log or not;
  // the report links it. Nothing when the log is absent; a page that cannot
  // be written is noted.
  void WriteViewerPage(const v1::TournamentMatchResult& result);

  // Writes `page`, the viewer page of `log_file`; notes a failure.
  void WritePage(const std::string& log_file, const MatchPage& page);

  // ----------------------------------------------------------------------
  // runner_verify.cc: verifying, recording and counting results.

  // Verification with the referee's key pinned.
  VerifyOptions PinnedOptions() const;

  // The verdict on the log file `path`, the referee's key pinned, when it
  // is genuine; otherwise why not (the error's message). Read and verified
  // once while the file is unchanged (verified_logs_).
  absl::StatusOr<Verdict> VerifyFile(const fs::path& path) const;

  // VerifyFile against the referee key `key` (32 bytes).
  absl::StatusOr<Verdict> VerifyFileWith(const fs::path& path,
                                         const std::string& key) const;

  // The embedded referee's start reads the directory's logs through this
  // (RefereeLink::LogReader): those the resume's checks verified already
  // are not read again.
  std::optional<RefereeLink::SealedLog> SealedLogOf(
      const std::string& path, const std::string& key) const;

  // Says that the runner read and verified the log at `path`
  // (RunOptions::log_verified).
  void LogVerified(const fs::path& path) const;

  static std::string WhyNot(const Verdict& verdict);

  // `verdict` on `result`'s log: when genuine, fills its outcome and moves
  // and returns kGenuineVerdict; otherwise returns why not.
  static std::string Judge(const Verdict& verdict,
                           v1::TournamentMatchResult& result);
  // What the runner asked the referee for in `result`'s match (its seats
  // named), which its log's header must say (HeaderDiffers).
  ExpectedMatch Expected(const v1::TournamentMatchResult& result) const;

  // Verifies `result`'s log file; on success fills its outcome and moves.
  // Returns kGenuineVerdict or why not.
  std::string Verify(v1::TournamentMatchResult& result) const;

  // Journals `result` and tallies it (Count); a result that does not
  // count is said (Note) with its verdict, as the summary says it.
  void Record(v1::TournamentMatchResult result);

  // Said after the error of a run whose results could not all be written:
  // how many matches were verified, and of the others how many for each
  // reason (UncountedKind), and not journaled (their journal line could
  // not be written); with `resumes` (a write that failed: a full disk),
  // that a rerun resumes.
  std::string MatchesSoFar(bool resumes);
  // How many of the scheduled matches were verified, and of the others
  // how many for each reason they do not count (UncountedKind), as each
  // one's line says it, and not journaled ("27 of 180 matches verified, 3
  // not finished (...), 150 not played").
  std::string MatchCounts();

  // Tallies `result` into the progress and SPRT counters.
  void Count(const v1::TournamentMatchResult& result);

  // Why a result does not count, by its verdict: the match was never
  // created (Play's "not played: ..."), was not watched to its end
  // (Finish's "not finished: ...": the referee could not be reached, or
  // went silent), broke ("not finished: the match broke: ..."), its log
  // was not fetched or not written ("log not fetched: ..."), or its log
  // did not verify or is not the match asked for.
  enum class Uncounted {
    kNone,  // Genuine: it counts.
    kNotPlayed,
    kNotFinished,
    kBroke,
    kNotFetched,
    kNotVerified
  };
  static Uncounted UncountedKind(const v1::TournamentMatchResult& result);
  // Whether `result`'s match was played to an end (genuine or not): the
  // progress line's done and rate count only these.
  static bool EndedKind(const v1::TournamentMatchResult& result);

  // ----------------------------------------------------------------------
  // runner_report.cc: the report and the transparency evidence.

  absl::StatusOr<v1::TournamentResults> Report();

  // Each bot's restarts in the output directory's results.json, if it
  // reads; none otherwise.
  std::map<std::string, uint32_t> EarlierRestarts() const;

  // The transparency evidence (docs/tournament.md): the referee's
  // checkpoint covering every match played, one inclusion proof per sealed
  // log, the schedule; then checks the directory as `replay
  // verify-tournament` does and records its verdict. The proofs are made
  // durable (SyncFileSystemOf) before the checkpoint they prove against is
  // written. Its steps follow.
  absl::Status Publish(const std::vector<v1::TournamentMatchResult>& matches,
                       v1::TournamentResults& results);

  // Publishes in OUTPUT/proofs/ the inclusion proof of each genuine match
  // of `matches` in the referee's `checkpoint`, and no other file: the
  // published ones kept, only those missing or different written, when
  // they stand against it already; otherwise made whole in
  // OUTPUT/proofs.new/ and renamed over proofs/. Not synced.
  absl::Status PublishProofs(
      const std::vector<v1::TournamentMatchResult>& matches,
      const v1::TlogCheckpoint& checkpoint);

  // Fetches from the referee the inclusion proof of each match of
  // `genuine` in its tree of `tree_size` logs and writes it in `made`, or
  // with `keep_published` over the one in `proofs` only when that differs.
  // Two per core at once; the first failure in match order.
  absl::Status WriteProofs(
      const std::vector<const v1::TournamentMatchResult*>& genuine,
      uint64_t tree_size, bool keep_published, const fs::path& proofs,
      const fs::path& made);

  // A running referee's public key as OUTPUT/referee.pub (hex, a line);
  // nothing for the embedded referee, whose referee.key.pub is there.
  absl::Status PublishRefereeKey() const;

  // OUTPUT/schedule.json: every match scheduled, skipped when the SPRT
  // decided and it is not among `matches` (those with a result).
  std::string ScheduleJson(
      const std::vector<v1::TournamentMatchResult>& matches) const;

  // Checks the output directory as `replay verify-tournament` does and
  // records its verdict, and `checkpoint`'s note, in `results`.
  void RecordTransparencyVerdict(const v1::TlogCheckpoint& checkpoint,
                                 v1::TournamentResults& results) const;
  // OK when the directory has published no checkpoint yet, or when the
  // referee's `checkpoint` extends the one it published (a consistency
  // proof from the referee; from a published checkpoint of 0 logs, which
  // every tree extends, the proof of no hashes, made here); DATA_LOSS
  // naming both otherwise (a referee that rewrote its transparency log),
  // before anything is written.
  absl::Status CheckExtendsPublished(const v1::TlogCheckpoint& checkpoint);

  // ----------------------------------------------------------------------
  // The run's state.

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
  // Swiss rounds paired and recorded in OUTPUT/pairings.jsonl (by this run
  // or an earlier one), and that file's text.
  uint32_t swiss_recorded_rounds_ = 0;
  std::string pairings_;

  // Until the resume is over (then cleared: a match played now is read
  // and verified once by VerifyAndShow).
  mutable VerifiedLogs verified_logs_;
  std::unique_ptr<RefereeLink> link_;
  // Lost logs (LostLog) that a running referee serves genuine, by match
  // index (CheckLostLogs), for Resume to fetch again into their files.
  std::set<uint32_t> refetchable_;
  std::unique_ptr<MatchJournal> journal_;
  // The attempt of each match played again on purpose (--replay_lost_logs;
  // RequestId): how many matches were journaled as genuine for it.
  std::map<uint32_t, uint32_t> attempts_;
  // A running referee: the match ids OUTPUT/created.jsonl held for each
  // index when the run began (ReadCreated), in the order created.
  std::map<uint32_t, std::vector<std::string>> created_before_;
  absl::Mutex created_mu_;
  std::unique_ptr<MatchJournal> created_ ABSL_GUARDED_BY(created_mu_);
  // EarlierMatch's search of the referee's matches: those of this
  // tournament found so far (by request_id, the newest of each), where the
  // next page starts, and whether the search reached the oldest.
  absl::Mutex search_mu_;
  std::map<std::string, v1::MatchInfo> searched_ ABSL_GUARDED_BY(search_mu_);
  std::string search_page_ ABSL_GUARDED_BY(search_mu_);
  bool search_done_ ABSL_GUARDED_BY(search_mu_) = false;
  std::vector<std::string> bot_ids_;
  std::vector<std::unique_ptr<BotProcess>> bots_;
  // OUTPUT/bots.jsonl: whether it was there when the run began, its
  // events (earlier runs' and this one's, in order) and the file.
  bool bot_journal_existed_ = false;
  absl::Mutex bot_events_mu_;
  std::vector<v1::TournamentBotEvent> bot_events_
      ABSL_GUARDED_BY(bot_events_mu_);
  std::unique_ptr<MatchJournal> bot_journal_ ABSL_GUARDED_BY(bot_events_mu_);
  bool bot_journal_failed_ ABSL_GUARDED_BY(bot_events_mu_) = false;
  std::thread supervisor_;
  std::atomic<bool> stopping_{false};

  absl::Time start_;
  std::atomic<bool> playing_done_{false};
  // Interrupted (CheckInterrupted): no more matches start; and stopped at
  // once: the link is cancelled, the matches in flight abandoned.
  std::atomic<bool> interrupted_{false};
  std::atomic<bool> stopped_at_once_{false};
  // Halted (Halt), and why (the first reason).
  std::atomic<bool> halted_{false};
  absl::Mutex halt_mu_;
  absl::Status halt_reason_ ABSL_GUARDED_BY(halt_mu_);
  // A first interruption ended a wait to retry the referee, or a wait for
  // a place on a full one (each said once).
  std::atomic<bool> retry_ended_{false};
  std::atomic<bool> place_wait_ended_{false};
  absl::Mutex flight_mu_;
  // Whether PlayAll is playing the schedule, and the matches it has in
  // flight (Start, Done).
  bool playing_ ABSL_GUARDED_BY(flight_mu_) = false;
  size_t in_flight_ ABSL_GUARDED_BY(flight_mu_) = 0;
  // Every match of a lower index has been started, in this run or an
  // earlier one (a resume takes it from the journal and created.jsonl):
  // matches start in index order.
  uint32_t started_below_ ABSL_GUARDED_BY(flight_mu_) = 0;
  std::atomic<bool> sprt_decided_{false};
  // A log named another referee key than the pinned one (StopOnWrongKey).
  std::atomic<bool> wrong_key_{false};
  absl::Mutex results_mu_;
  std::map<uint32_t, v1::TournamentMatchResult> results_
      ABSL_GUARDED_BY(results_mu_);
  size_t forfeits_ ABSL_GUARDED_BY(results_mu_) = 0;
  // Results whose verdict is not genuine (of matches played: created on
  // the referee), those never created ("not played: ..."), and those this
  // run could not append to the journal.
  size_t unverified_ ABSL_GUARDED_BY(results_mu_) = 0;
  // Results by why they do not count (UncountedKind).
  std::map<Uncounted, size_t> uncounted_ ABSL_GUARDED_BY(results_mu_);
  size_t unplayed_ ABSL_GUARDED_BY(results_mu_) = 0;
  // Results of matches not played to an end (EndedKind), and those this
  // run recorded that were (the progress line's rate).
  size_t unended_ ABSL_GUARDED_BY(results_mu_) = 0;
  size_t ended_ ABSL_GUARDED_BY(results_mu_) = 0;
  size_t unjournaled_ ABSL_GUARDED_BY(results_mu_) = 0;
  int sprt_wins_ = 0;  // Bot 0's record against bot 1 (under results_mu_).
  int sprt_draws_ = 0;
  int sprt_losses_ = 0;
  std::string sprt_decision_;  // Once sprt_decided_.
  std::string wrong_key_error_ ABSL_GUARDED_BY(results_mu_);
  absl::Mutex progress_mu_;
};

}  // namespace runner_internal
}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_RUNNER_IMPL_H_
