// The referee service's state, without gRPC: matches, bots and credentials.
// Creates matches (each writing its log under the log directory), registers
// bots, authenticates tokens, and fires deadlines. Thread-safe.
#ifndef PYRAMID_REFEREE_SERVICE_LOBBY_H_
#define PYRAMID_REFEREE_SERVICE_LOBBY_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "pyramid/referee/v1/referee_service.pb.h"
#include "referee/core/clock.h"
#include "referee/core/log_journal.h"
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/core/stop_signal.h"
#include "referee/crypto/ed25519.h"
#include "referee/service/connections.h"
#include "referee/service/deadline_scheduler.h"
#include "referee/service/delayed_runner.h"
#include "referee/service/match_host.h"
#include "referee/service/messages.h"
#include "referee/service/registry.h"
#include "referee/service/request_ids.h"
#include "referee/service/sealed_log_queue.h"
#include "referee/service/sync_pool.h"
#include "referee/service/token.h"
#include "referee/service/transparency_log.h"

namespace pyramid {

struct LobbyOptions {
  std::string log_dir;  // Must exist; logs are created inside it.
  SigningKey referee_key = SigningKey::Generate();
  std::string admin_token;  // Required: the CreateMatch/RegisterBot key.
  uint32_t checkpoint_interval = kDefaultCheckpointInterval;
  FsyncPolicy fsync = FsyncPolicy::kCheckpoints;
  // Threads that run the checkpoint syncs of running matches
  // (MatchHost::set_sync_pool); 0: each is synced on the thread that wrote
  // the checkpoint.
  int sync_threads = 16;
  // Where the pool's syncs go (FileLogSink::set_journal): one journal for
  // every log, synced once for all the checkpoints reached meanwhile,
  // instead of an fdatasync of each log (docs/durability.md, "The
  // journal"). Null: each log is synced itself.
  std::shared_ptr<LogJournal> journal;
  // How long a match may hold a step that sends only acknowledgements to
  // "batch" Play streams (seats' or bots'), for the next message to each to
  // carry them: the RevealRequest once the other seats have committed, the
  // DecisionResult once they have revealed (docs/protocol.md, "Play stream
  // features"). Its records are written with the next step's, in one
  // write(2). Zero: acknowledgements go at once.
  absl::Duration ack_hold = absl::Milliseconds(250);
  // Clocks used when a CreateMatchRequest leaves every clock at zero.
  v1::ClockSettings default_clocks;
  // Where matches, bots and hashed tokens are recorded so that a restart
  // loses none of them (Recover). The lobby keeps only its running matches
  // in memory and asks the registry about those that ended. Null: a
  // registry in memory (NewMemoryRegistry); nothing survives the process.
  std::shared_ptr<Registry> registry;
  // The transparency log every sealed match log is appended to
  // (docs/transparency-log.md). Null: none.
  std::shared_ptr<TransparencyLog> tlog;
  // A checkpoint is signed once this many sealed logs are not covered by
  // one yet (0: never on that account)...
  uint32_t checkpoint_every_matches = 100;
  // ... and at least this often while some are (0: never on that account),
  // and when the referee stops (SuspendAll). Ends the registry could not
  // record (its disk full) are tried again as often, with or without a
  // transparency log.
  absl::Duration checkpoint_every = absl::Seconds(60);
  // Live matches at once (created or resumed, not ended); CreateMatch is
  // refused UNAVAILABLE (try again later) at the limit, so that a referee asked
  // for more than its machine can play keeps to time the matches it has. 0: no
  // limit (the open-file limit still bounds them: each holds its log open).
  int max_live_matches = 0;
  // A non-empty label names at most one match that did not break: a
  // CreateMatch whose label is carried by a running or finished match is
  // refused ALREADY_EXISTS, naming it (a retry of its request_id is still
  // answered with it; a broken match frees its label for its replacement).
  // So whoever holds the admin token cannot play a match again under its
  // label until its result suits them (docs/protocol.md, "One match per
  // label"). The registry answers for the matches recorded before a
  // restart. Off by default: the tournament runner's embedded referee,
  // whose key its host holds anyway, plays a match whose log was lost
  // again under its label (--replay_lost_logs); the referee program turns
  // it on (--unique_labels).
  bool unique_labels = false;
  // Where the lobby and its matches' hosts say what no client is told (a
  // match that broke or cannot be resumed, a failure tried again later).
  // Empty: stderr, a "referee: " line each.
  MessageSink messages;
};

// What Lobby::Recover found.
struct RecoveryReport {
  int bots = 0;
  int finished = 0;   // Ended matches, served from their logs.
  int resumed = 0;    // Running matches rebuilt from their logs.
  int broken = 0;     // Running matches not resumed: ended broken (their
                      // log marked broken, or one that does not re-run).
  int entered = 0;    // Sealed logs the transparency log was missing, entered
                      // now (one that must wait is entered later, uncounted).
  int forgotten = 0;  // Running matches whose creation the referee's end cut
                      // short, before their log held its first checkpoint:
                      // never acknowledged, forgotten (ForgetUnacknowledged).
};

class Lobby {
 public:
  explicit Lobby(LobbyOptions options);
  ~Lobby();

  // Brings back everything the registry holds: bots and their tokens, every
  // ended match (answered from its log file), and every running match,
  // rebuilt by re-running its log (Match::Resume) and resumed; seats and
  // bots reconnect with the tokens they had. Call once, before serving.
  // RESOURCE_EXHAUSTED, naming the match, when a running match cannot be
  // resumed for want of file descriptors or memory (not ended broken: a
  // start with a higher open-file limit resumes it).
  absl::StatusOr<RecoveryReport> Recover();

  // RESOURCE_EXHAUSTED while match logs cannot be written (after a write
  // failure, until space returns; or no file can be opened); UNAVAILABLE
  // while LobbyOptions::max_live_matches are live.
  absl::StatusOr<v1::CreateMatchResponse> CreateMatch(
      const v1::CreateMatchRequest& request);
  absl::StatusOr<v1::RegisterBotResponse> RegisterBot(
      const v1::RegisterBotRequest& request);

  // The principal of `token`; nullopt when unknown. A seat token of a match
  // that ended is found in the registry; its route is that of the seat's
  // stream if one is still open (a new stream replaces it, as for a
  // running match), else a fresh one.
  std::optional<Principal> Authenticate(std::string_view token) const;

  // How many seats bot `bot_id` plays: those assigned to it, at least 1.
  // Seats of matches that ended may be counted until the next prune (at
  // most as many again as when the list was last pruned). Logarithmic in
  // the bots registered (a lookup in bots_, under the lobby's lock).
  size_t BotSeatCount(const std::string& bot_id) const;

  // The (match, seat) pairs a principal plays: its seat, or a bot's seats
  // in running matches.
  std::vector<std::pair<std::shared_ptr<MatchHost>, int>> SeatsOf(
      const Principal& principal);

  // The match's host, null when unknown (or still being created). A running
  // match's is the host that plays it; an ended match's is built for the
  // call from its registry entry (an archived MatchHost: its final
  // MatchInfo and log path), so that a referee that has hosted millions of
  // matches holds nothing for those that ended. In an archived host a bot's
  // seat has the bot's route, a token seat the route of its stream while
  // one is open, and `seat_of`'s seat (a seat principal of that match, when
  // given) that principal's route, so that a seat that connects is told the
  // outcome. A registry that cannot be read is reported
  // (LobbyOptions::messages) and the match taken as unknown.
  std::shared_ptr<MatchHost> FindMatch(
      const std::string& match_id, const Principal* seat_of = nullptr) const;

  absl::StatusOr<v1::ListMatchesResponse> ListMatches(
      const v1::ListMatchesRequest& request) const;

  Connections& connections() { return connections_; }
  // Matches live now: created or resumed and not ended, and creations under
  // way.
  int live_matches() const { return live_matches_.load(); }
  // The deadline scheduler of this lobby's matches (its lateness figures).
  const DeadlineScheduler& scheduler() const { return *scheduler_; }
  // Whether checkpoint syncs go through a journal (LobbyOptions::journal).
  bool journal_in_use() const {
    return options_.journal != nullptr && sync_pool_ != nullptr;
  }
  // The journal's figures (LogJournal::stats); empty when none is in use.
  std::optional<LogJournal::Stats> journal_stats() const {
    if (!journal_in_use()) return std::nullopt;
    return options_.journal->stats();
  }
  // The checkpoint sync pool's figures (SyncPool::stats); empty when
  // checkpoints sync inline (LobbyOptions::sync_threads 0).
  std::optional<SyncPool::Stats> sync_stats() const {
    if (sync_pool_ == nullptr) return std::nullopt;
    return sync_pool_->stats();
  }

  const std::string& referee_public_key() const { return public_key_; }

  // What the lobby holds in memory, to show that it does not grow with the
  // matches that ended: running matches, ended matches the registry could
  // not record (kept so that they are still answered as ended), tokens
  // (the admin's, every bot's, running matches' seats'), and request_ids
  // (of creations under way and running matches), and the routes of ended
  // matches' token seats whose streams may still be open (until the next
  // prune).
  struct Held {
    size_t running = 0;
    size_t unrecorded = 0;
    size_t tokens = 0;
    size_t request_ids = 0;
    size_t seat_routes = 0;
  };
  Held held() const;

  // For the referee's shutdown: stops the matches' deadlines (for good: no
  // deadline fires after), waits for the matches whose seals' syncs are
  // under way to end, checkpoints every running match (their logs then
  // verify as prefixes), records the ends the registry could not record
  // yet, enters every sealed log still waiting for its entry in the
  // transparency log and signs a checkpoint covering them all. Call it once
  // nothing else can play a match (no Play message can arrive: after the
  // server's Shutdown and RefereeService::Stop), or a match may still seal
  // after that checkpoint; the lobby may still answer (FindMatch,
  // ListMatches, the transparency log), until it is destroyed.
  void SuspendAll();

  // Null when the lobby keeps no transparency log.
  TransparencyLog* transparency_log() const { return options_.tlog.get(); }
  // The transparency log, for a request about its tree of `tree_size`
  // leaves (a checkpoint, a proof against it), or with 0 about the latest
  // tree: then it first enters the sealed logs still waiting for their
  // entry (as the checkpointer does), so the latest covers every one that
  // can be entered now, not only those entered by the time it was asked (a
  // log that waited on a locked database would be missing from a
  // tournament's final checkpoint, and its inclusion proof against the
  // latest tree not found). Every request of the latest tree comes through
  // here; one of a given size enters nothing (that checkpoint is already
  // signed, or never will be).
  // FAILED_PRECONDITION when the lobby keeps no transparency log.
  absl::StatusOr<TransparencyLog*> TlogAsOf(uint64_t tree_size);

 private:
  struct Bot {
    std::string name;
    std::string public_key;
    uint64_t route = 0;  // Its Principal::route.
    // (match id, seat). Seats of ended matches stay until the next prune:
    // SeatsOf, or a new seat that finds the list twice its pruned size.
    std::vector<std::pair<std::string, int>> seats;
    size_t pruned_size = 0;  // The list's size after its last prune.
  };
  // Drops the bot's seats in ended (or unknown) matches.
  void PruneLocked(Bot& bot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // CreateMatch's steps (lobby_create.cc): the match's configuration from
  // the request (all but its seats), then its seats, named, with the bot or
  // the fresh route that plays each (INVALID_ARGUMENT / NOT_FOUND as
  // CreateMatch says).
  absl::StatusOr<MatchConfig> ConfigFor(
      const v1::CreateMatchRequest& request) const;
  absl::StatusOr<std::vector<HostedSeat>> SeatsFor(
      const v1::CreateMatchRequest& request, MatchConfig& config);
  // Writes the header of a new match's log at `path`; `ids` holds the
  // match id and the referee's seed contribution.
  absl::StatusOr<std::unique_ptr<Match>> StartLog(MatchConfig config,
                                                  const std::string& path,
                                                  const std::string& ids,
                                                  const Clock* clock);
  // CreateMatch with a request_id: reserves it for a new match (nullopt),
  // or answers the match already created for it (or why not), as
  // CreateMatchRequest.request_id says. `config` and `hosted` are the match
  // the request asks for (ConfigFor, SeatsFor), compared with that one.
  absl::StatusOr<std::optional<v1::CreateMatchResponse>> ReserveRequest(
      const v1::CreateMatchRequest& request, const MatchConfig& config,
      const std::vector<HostedSeat>& hosted);
  // ReserveRequest's step for a request_id that names match `match_id`,
  // which broke (`hosted`: it is in memory) or is unknown: OK once the
  // request_id is this call's, reserved here already (`reserved_here`) or
  // taken over; first the broken match's end is recorded, else
  // RESOURCE_EXHAUSTED or UNAVAILABLE (try again later), as a restart
  // would resume it as running.
  absl::Status ReclaimBrokenRequest(const std::string& request_id,
                                    const std::string& match_id, bool hosted,
                                    bool reserved_here);
  // CreateMatch of a new match labelled `label` (not empty) under
  // LobbyOptions::unique_labels: reserves the label (labels_) for it, to be
  // released once the match is hosted or its creation failed, when no
  // match that did not break holds it; ALREADY_EXISTS naming the match that
  // does; UNAVAILABLE (try again) while another creation holds the
  // reservation, the registry cannot be read, or a match of the label is
  // recorded as running but not hosted (StatusOfRunning); RESOURCE_EXHAUSTED
  // or UNAVAILABLE when the label's match broke and its end cannot be
  // recorded yet (a restart would resume it as running:
  // ReclaimBrokenRequest).
  // A match of the label recorded as running but not hosted whose
  // request_id is `request_id` (not empty) is this request's own attempt,
  // cut short: passed over, as ReserveRequest passes it over.
  absl::Status ReserveLabel(const std::string& label,
                            const std::string& request_id);
  // The status now of a match the registry recorded as running: its host's,
  // or, not hosted, the registry's again (it ended meanwhile); UNAVAILABLE
  // (with why, to follow "match ID, ") when the registry cannot be read;
  // NOT_FOUND when it still says running (its creation failed and its entry
  // was not removed).
  // Never the lobby's lock held.
  absl::StatusOr<v1::MatchStatus> StatusOfRunning(const std::string& match_id);
  // The host of `match` (not yet hosted: Host), as `info` describes it: its
  // game, clocks, forfeit policy, creation time, request_id and label.
  std::shared_ptr<MatchHost> NewHost(std::unique_ptr<Match> match,
                                     const v1::MatchInfo& info,
                                     std::vector<HostedSeat> hosted,
                                     const std::string& log_path);
  // Makes `host` findable (and its request_id), records its end in the
  // registry, starts it. `token_ids`: its seats' tokens, forgotten (left
  // to the registry) once its end is recorded.
  void Host(std::shared_ptr<MatchHost> host,
            std::vector<std::string> token_ids);
  // What a match's host calls to set its next deadline: the scheduler's,
  // through the match's handle.
  std::function<void(absl::Time)> DeadlineSetter(const std::string& match_id);
  // Recover's steps (lobby_recovery.cc): a match the registry holds, ended
  // or running. RESOURCE_EXHAUSTED (the match left as it was) when a
  // running one cannot be resumed for want of descriptors or memory now.
  absl::Status RecoverMatch(StoredMatch& stored, RecoveryReport& report);
  void RecoverEnded(const StoredMatch& stored, RecoveryReport& report);
  // Ends as broken, for `reason`, a match the registry holds as running
  // that is not resumed (its log marked broken, or one that does not re-run,
  // or none named: `log_path` empty): its log marked broken, its end recorded,
  // or kept (unrecorded_, its request_id naming it) until it can be; counted in
  // report.broken.
  void EndUnresumed(const v1::MatchInfo& info, const std::string& reason,
                    const std::string& log_path,
                    const std::vector<HostedSeat>& hosted,
                    std::vector<std::string> token_ids, RecoveryReport& report);
  // Forgets a match the registry holds as running, not acknowledged, whose
  // log holds no signed checkpoint (`why`: what it holds), as if it had
  // never been created: the referee stopped while creating it, after the
  // registry recorded it and before its log's first checkpoint was written
  // and synced, which comes before CreateMatch answers; so no client was
  // told of it, and its request_id is free for the retry. Its log (if any)
  // goes, durably, then its registry entry with its seat tokens; what
  // cannot go now is said and left to the next start, the match unknown
  // meanwhile. Counted in report.forgotten.
  void ForgetUnacknowledged(const StoredMatch& stored,
                            const std::string& log_path, const std::string& why,
                            RecoveryReport& report);
  // The running match `stored`, rebuilt from its log at `log_path`. Sets
  // `unacknowledged` (with FAILED_PRECONDITION saying what the log holds)
  // when the log holds no signed checkpoint and the registry does not hold
  // the match acknowledged (StoredMatch::acknowledged): none was ever
  // written (ForgetUnacknowledged). An acknowledged match's log missing or
  // short is DATA_LOSS saying so (the match ends broken).
  absl::StatusOr<std::unique_ptr<Match>> ResumeLog(const StoredMatch& stored,
                                                   const std::string& log_path,
                                                   bool& unacknowledged);

  // A running match: its host, and its seats' token ids.
  struct Live {
    std::shared_ptr<MatchHost> host;
    std::vector<std::string> token_ids;
  };
  // An ended match whose end the registry could not record (it would answer
  // the match as running): what its archived host is built from.
  struct Unrecorded {
    v1::MatchInfo info;
    std::string log_path;
    std::vector<uint64_t> routes;        // Its seats' routes.
    std::vector<std::string> token_ids;  // Its seats' tokens.
  };
  // Forgets a match that ended (its final `info`), whose end the registry
  // recorded (`recorded`; then its seat tokens and request_id are left to
  // the registry) or could not (then it is kept, Unrecorded, with its
  // tokens). Called by a host's on_end, under the host's lock: takes mu_,
  // which is never held while a host's lock is taken.
  // `token_ids`: those of a match that was not hosted (RecoverMatch).
  void Archive(const v1::MatchInfo& info, std::string log_path,
               std::vector<uint64_t> routes, bool recorded,
               std::vector<std::string> token_ids = {});
  // Records in the registry the ends it could not record before
  // (unrecorded_), and forgets each one recorded as Archive does; returns
  // the first failure (the others are tried too). Tried before a match is
  // admitted (CreateMatch), by the checkpointer, by SuspendAll and when the
  // lobby goes, so that a broken match stays broken across a restart.
  absl::Status RecordUnrecorded();
  // The same for the match `match_id` alone: OK when its end is recorded
  // (or was not waiting), else the registry's failure. Says that its end
  // is recorded now when it records it (SayEndNotRecorded said it was not).
  absl::Status RecordUnrecorded(const std::string& match_id);
  // Forgets a match whose end is recorded now (what Archive forgets of a
  // match recorded at once).
  void ForgetRecordedLocked(const v1::MatchInfo& info,
                            const std::vector<uint64_t>& routes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The path of the log `stored` names, in the current log directory
  // (options_.log_dir): the registry keeps a log's file name, and only the
  // file name of what it holds counts (log_format::LogFileName: what
  // follows its last '/'), so that a data directory moved (or a relative
  // --data_dir from another working directory) finds its logs, and a copy
  // never opens the original's. DATA_LOSS, naming the match and what the
  // entry holds, when that is no file's name ("", ".", "..", a path ending
  // in '/'): there is no log to open, remove or mark.
  absl::StatusOr<std::string> LogPath(const StoredMatch& stored) const;
  // An archived host for an ended match (FindMatch says which routes).
  std::shared_ptr<MatchHost> ArchivedHost(const v1::MatchInfo& info,
                                          std::string log_path,
                                          const Principal* seat_of) const;
  // The match's host if it is running or unrecorded; null otherwise.
  std::shared_ptr<MatchHost> FindInMemoryLocked(
      const std::string& match_id) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  std::shared_ptr<MatchHost> FindRunningLocked(
      const std::string& match_id) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  void NoteWriteFailure(const std::string& reason);
  // Says `message` (LobbyOptions::messages).
  void Say(std::string_view message) const;
  // Says the failure of something tried again later; nothing when OK.
  void SayIfFailed(const absl::Status& status) const;
  // Says that the end of match `match_id` could not be recorded
  // (`recorded`, the registry's error) and when it is tried again; a full
  // disk is noted as a write failure (CheckWritable).
  void SayEndNotRecorded(const std::string& match_id,
                         const absl::Status& recorded);
  // What a client is answered when the registry could not record what it
  // asked for (`doing` the registry's `failure`): RESOURCE_EXHAUSTED, noted
  // as a write failure (CheckWritable), when its disk is full; UNAVAILABLE
  // otherwise.
  absl::Status RegistryWriteFailed(absl::string_view doing,
                                   const absl::Status& failure);
  // The checkpointer thread: every options_.checkpoint_every, records the
  // ends the registry could not record yet, enters the logs waiting for
  // their entry and signs a checkpoint if the tree grew.
  void CheckpointLoop();
  // OK unless a write failed for want of space (NoteWriteFailure) and the
  // log, journal or registry directory still has less than 1 MiB free:
  // then RESOURCE_EXHAUSTED, naming the failure and what frees space, and
  // the journal is asked to let go of its file (RetireCurrentFile). The
  // call that finds space returned forgets the failure and says so (one
  // line).
  absl::Status CheckWritable();
  // Counts a new match as live unless max_live_matches are (then
  // UNAVAILABLE, naming the limit); on_end of every hosted match
  // counts it out.
  absl::Status AdmitMatch();

  LobbyOptions options_;
  const std::string public_key_;
  // Thread-safe; mutable: the archived hosts FindMatch builds send through
  // it.
  mutable Connections connections_;
  TokenTable tokens_;

  mutable absl::Mutex mu_;
  // The running matches, until they end (Archive takes each out, to
  // unrecorded_ when the registry could not record its end). Looked up on
  // every Play message: hashed, and read under a shared lock.
  absl::flat_hash_map<std::string, Live> matches_ ABSL_GUARDED_BY(mu_);
  // Ended matches the registry could not record.
  absl::flat_hash_map<std::string, Unrecorded> unrecorded_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Bot> bots_ ABSL_GUARDED_BY(mu_);
  // The request_ids of matches being created or running; those of ended
  // matches are asked of the registry. Taken under mu_ (never the other way
  // round).
  RequestIds requests_;
  // The labels of the matches being created (LobbyOptions::unique_labels):
  // reserved, as requests_ reserves request_ids, from ReserveLabel's check
  // until the match is hosted or its creation failed, so that of two
  // concurrent creations of a label one is created and the other refused;
  // a label's matches are the registry's (FindLabelled) from then on. None
  // is ever named.
  RequestIds labels_;
  // Principal::route: the next one given out. Atomic: Authenticate gives
  // one to the seat of an ended match.
  mutable std::atomic<uint64_t> next_route_ = 1;
  // (match id, seat) -> route: the token seats of ended matches whose
  // streams may still be open (taken from the running match at its end, or
  // given by Authenticate). Pruned of routes without a stream whenever it
  // has doubled since the last prune. Mutable: Authenticate adds to it.
  mutable absl::flat_hash_map<std::pair<std::string, int>, uint64_t>
      seat_routes_ ABSL_GUARDED_BY(mu_);
  mutable size_t seat_routes_pruned_ ABSL_GUARDED_BY(mu_) = 0;
  // Adds a seat route, pruning first if the map has doubled.
  void AddSeatRouteLocked(const std::string& match_id, int seat,
                          uint64_t route) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // live_matches(). Atomic, so that the count is read without taking mu_
  // (a host's on_end counts its match out).
  std::atomic<int> live_matches_ = 0;

  absl::Mutex write_mu_;
  // The last log write failure; empty when logs can be written.
  std::string write_failure_ ABSL_GUARDED_BY(write_mu_);

  // The sealed logs entered in options_.tlog (null when it is): one that
  // cannot be entered waits for the next try, the next match's end, the
  // checkpointer's next round, a request about the latest tree
  // (TlogAsOf), SuspendAll, and at the latest recovery at the next
  // start.
  std::unique_ptr<SealedLogQueue> sealed_logs_;

  // Raised when the lobby goes: ends the checkpointer's wait between
  // rounds, which is on the monotonic clock (a step of the wall clock
  // holds back no round).
  StopSignal checkpoint_stop_;
  std::thread checkpointer_;

  // Its thread calls back into the members above, and into scheduler_
  // itself (DeadlineSetter): the destructor stops it first, and it stays
  // (stopped) until the members go. Never null.
  std::unique_ptr<DeadlineScheduler> scheduler_;
  // The matches' checkpoint syncs (MatchHost::set_sync_pool; null when
  // options_.sync_threads is 0). Its threads call back into the hosts:
  // destroyed first, it runs what it still holds.
  std::unique_ptr<SyncPool> sync_pool_;
  // Ends the matches' holds of acknowledgements (MatchHost::set_ack_holder;
  // null when options_.ack_hold is zero). Destroyed first: its thread calls
  // back into the hosts; it drops what it holds (SuspendAll ends the holds).
  std::unique_ptr<DelayedRunner> ack_holder_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_LOBBY_H_
