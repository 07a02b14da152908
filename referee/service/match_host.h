// One running match inside the referee service: the Match (which is not
// thread-safe) behind a mutex, plus the translation of its protocol events
// into messages for the seats' Play streams and for watchers.
//
// What is pushed, and to whom:
//   * a seat that must commit gets a DecisionRequest (its own observation,
//     legal actions, its deadline); when every commitment is in, each seat of
//     the decision gets a RevealRequest;
//   * the committing seat gets a CommitAck once the commit is in the log;
//     the revealing seat a RevealAck once the reveal is in the log and usable;
//     refused messages and faults get a PlayError;
//   * a step that sends nothing but acknowledgements to streams that take
//     them late (PlaySink::holds_acknowledgements) may be held, its records
//     not yet written and its acknowledgements not sent, for the step after
//     it: both are then written in one write(2) and their messages go out
//     together (the CommitAck with the RevealRequest, the RevealAck with the
//     DecisionResult). A hold lasts the ack holder's delay at most (see
//     set_ack_holder); any other call on the host ends it first.
//   * after every applied decision or automatic move, every seat gets a
//     DecisionResult with its own observation; at the end, MatchEnded,
//     after which a seat token's stream (which plays this match alone) is
//     closed OK, while a bot's stream (which carries its other matches)
//     stays open;
//   * a match that breaks (its log cannot be written) tells every seat why,
//     in a DATA_LOSS PlayError, after which a seat token's stream is closed
//     DATA_LOSS with the same message (a bot's stays open), as it is for a
//     seat token that connects to the match later;
//   * watchers get only public events: a snapshot of the public state when
//     they join, then decisions opened, commits (no content), faults, what
//     each move changed in the public view (a ViewDelta), the outcome. Each
//     event is serialized once for every watcher; a watcher whose queue
//     is full loses what is queued and gets a fresh snapshot instead.
// Nothing is pushed that the seat or watcher may not see: observations come
// from the game's redaction, and no reveal content is forwarded.
//
// Once a match has ended (its log sealed) and its end has been announced,
// the host lets the Match go (rules state, decision bookkeeping, config) and
// keeps only what is still asked of it: the outcome, and the summary and log
// path it holds anyway. The lobby then lets the host go too (its streams
// may hold it a while): ended matches are answered by archived hosts built
// from the registry's entry of each (see the second constructor).
#ifndef PYRAMID_REFEREE_SERVICE_MATCH_HOST_H_
#define PYRAMID_REFEREE_SERVICE_MATCH_HOST_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "pyramid/referee/v1/referee_service.pb.h"
#include "referee/core/match.h"
#include "referee/service/connections.h"
#include "referee/service/delayed_runner.h"
#include "referee/service/messages.h"
#include "referee/service/sync_pool.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

// A message for a seat's stream, serialized, waiting to be sent.
struct OutgoingMessage {
  std::shared_ptr<PlaySink> sink;
  SerializedMessage message;
  bool acknowledgement = false;  // A CommitAck or RevealAck.
  // Set for the stream's last message: the stream is closed behind it,
  // with this status.
  std::optional<absl::Status> last;
};

struct HostedSeat {
  std::string name;
  std::string bot_id;  // Empty for a seat-token seat.
  uint64_t route = 0;  // Principal::route of whoever plays it.
};

// The routes of a match's seats, in seat order (what an ended match keeps
// of them: Lobby::Archive).
std::vector<uint64_t> RoutesOf(const std::vector<HostedSeat>& seats);

class MatchHost : public std::enable_shared_from_this<MatchHost> {
 public:
  // `on_deadline` is called with the match's next deadline each time that
  // deadline changes, from the thread of whichever call changed it, under
  // the host's lock (so the last deadline it was given is always the
  // current one); it must not call back into the host.
  MatchHost(std::unique_ptr<Match> match, v1::GameConfig game,
            std::vector<HostedSeat> seats, v1::ClockSettings clocks,
            v1::ForfeitPolicy policy, std::string log_path,
            int64_t created_unix_ms, Connections* connections,
            std::function<void(absl::Time)> on_deadline);

  // A match that has ended (now, or before this process started): it
  // answers GetMatch, ListMatches, GetLog and Watch from `info` (its final
  // summary) and its log file, tells a seat that connects its outcome
  // (MatchEnded, or for a broken match the DATA_LOSS PlayError saying why,
  // to the stream of `routes[seat]`, the seat's Principal::route, which a
  // token seat's stream ends; a seat beyond `routes` is told nothing), and
  // holds nothing else.
  MatchHost(const v1::MatchInfo& info, std::string log_path,
            absl::Span<const uint64_t> routes, Connections* connections);

  // Called once, under the host's lock, when the match ends: sealed
  // (MATCH_FINISHED, with its outcome) or broken (MATCH_BROKEN, with the
  // reason). Set before Start().
  void set_on_end(std::function<void(const v1::MatchInfo&)> on_end) {
    on_end_ = std::move(on_end);
  }

  // Has the checkpoint syncs of the match's log run on `pool` instead of
  // the thread that wrote the checkpoint: what a step that wrote one sends
  // to the seats, and whatever the match sends them after it, waits until
  // the sync is done (dropped if it fails, which breaks the match). Watch
  // events do not wait. Set before Start(); the pool's owner destroys the
  // pool (which runs the syncs still queued) before the host.
  void set_sync_pool(SyncPool* pool);

  // Lets a step be held (see the top of this file) until `runner` runs
  // what it is given, at most: its delay is the longest an acknowledgement
  // waits. Null: no step is held. Set before Start(); the runner's owner
  // destroys it (dropping what it holds) before the host. Requires the
  // host to be owned by a shared_ptr.
  void set_ack_holder(DelayedRunner* runner) { ack_holder_ = runner; }

  // Where the host says that its match broke, or that its shutdown
  // checkpoint could not be written. Empty (the default): stderr. Set
  // before Start().
  void set_messages(MessageSink messages) { messages_ = std::move(messages); }

  // The CreateMatchRequest.request_id and label the match was created
  // with, reported in its MatchInfo. Set before Start() (an archived match
  // takes them from its MatchInfo).
  void set_request(std::string request_id, std::string label) {
    request_id_ = std::move(request_id);
    label_ = std::move(label);
  }
  const std::string& request_id() const { return request_id_; }

  const std::string& match_id() const { return match_id_; }
  const std::string& log_path() const { return log_path_; }
  int num_seats() const { return static_cast<int>(seats_.size()); }
  const HostedSeat& seat(int i) const { return seats_[i]; }
  const std::vector<HostedSeat>& seats() const { return seats_; }

  // Schedules the first deadline and pushes the seed decision to every seat
  // already connected. Call once, after the host is findable by match id.
  void Start();

  // Sends `seat` what the match owes it now (after a (re)connection): the
  // open decision's request, or the match's end (MatchEnded, or why it
  // broke), which a token seat's stream ends.
  void SendOwedTo(int seat);

  // A seat's commit / reveal from its Play stream. Replies go to the seat's
  // current stream. Returns false when the message was refused outright
  // (nothing logged), which the stream counts against its flood limit.
  bool Commit(int seat, const v1::CommitMove& commit);
  bool Reveal(int seat, const v1::RevealMove& reveal);

  // Applies deadlines that have passed.
  void CheckDeadlines();
  absl::Time NextDeadline() const;

  // Adds a watcher: it gets the match as it is, then (while the match runs)
  // a snapshot and every public event; it is closed after the outcome (at
  // once if the match is already over). For a spectator, `max_watchers` is
  // how many spectators this match takes (max_watchers_per_match):
  // RESOURCE_EXHAUSTED, and nothing sent, when that many already watch it.
  // For the admin token's watcher (the operator's) it is std::nullopt: that
  // watcher is neither limited nor counted among the spectators.
  absl::Status AddWatcher(std::shared_ptr<WatchSink> watcher,
                          std::optional<size_t> max_watchers);

  v1::MatchInfo Info(const Connections& connections) const;
  bool finished() const;

  // Writes a checkpoint so the log verifies as a prefix (shutdown): a
  // running match's, not a finished or broken one's. When it cannot be
  // written (a full disk, an I/O error), says so (set_messages), naming the
  // match, the error and that the next start resumes the match from its
  // log as after a crash; the match is not announced broken.
  void Suspend();

  // Calls `call` once the match is over (its end announced, or broken; at
  // once when it is already), under the host's lock: it must not call back
  // into the host. For an in-process caller that waits for the end, which
  // a watcher would make the host build a public view for at every move.
  void CallWhenOver(std::function<void()> call) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  using Op = std::function<absl::Status(Match&)>;
  // Runs one Match call and pushes everything it caused. `seat` is the seat
  // the call acts for (-1: none); `decision_id` names it in errors.
  // Returns false when the call failed without logging anything.
  bool Run(int seat, uint64_t decision_id, const Op& op)
      ABSL_LOCKS_EXCLUDED(mu_);
  // After a Match call in Run: whether the step may be held (it sends
  // only acknowledgements that their streams take late, owes no sync, and
  // the match goes on).
  bool MayHoldStepLocked(const absl::Status& status) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Holds the step; the first step held starts the hold's timer.
  void HoldStepLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The timer of hold number `hold` ran: ends it, if it is still on.
  void EndHold(uint64_t hold) ABSL_LOCKS_EXCLUDED(mu_);
  // Ends the hold, if one is on (a call that sends anything or reads the
  // match's state for a seat or watcher calls it first).
  void EndHoldLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes the batch of the steps so far (Match::EndBatch) and sends what
  // they caused: to the seats once any sync owed is done, to watchers now.
  void FinishStepLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Hands the match's next deadline to on_deadline_ if it changed.
  void HandOverDeadlineLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnRecord(const v1::LogRecord& record, std::string_view seat_note)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // OnRecord for each kind of record: what goes to the seats, and the event
  // for watchers (none when nobody watches). A move (the seed decision's
  // close, an applied decision or automatic move) sends every seat its
  // result; `closes` when it closes decision `decision_id` (not an
  // automatic move). A seat's DecisionRequests and results are built on a
  // ScratchArena.
  std::optional<v1::WatchEvent> OnDecisionOpened(
      const v1::DecisionOpened& opened) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<v1::WatchEvent> OnCommit(const v1::Commit& commit)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<v1::WatchEvent> OnFault(const v1::Fault& fault,
                                        std::string_view seat_note)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<v1::WatchEvent> OnMove(uint64_t decision_id, bool closes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FlushRevealAck() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Tells seats and watchers the match is over (after the seal).
  void AnnounceEnd() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Once the seal is durable: keeps the outcome, calls on_end_, announces
  // the end (unless the match was resumed finished) and lets the match go.
  void EndLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Tells seats and watchers the match broke, and why; closes its watchers
  // and the token seats' streams.
  void AnnounceBroken() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether the match is over for watchers and CallWhenOver: let go,
  // sealed with its end announced, or broken.
  bool OverLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Calls (and forgets) what CallWhenOver was given.
  void CallOverListenersLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A checkpoint sync on the pool is done (on the pool's thread). Once the
  // last is, what waited for them is sent; a sync that failed drops it and
  // breaks the match, but for the break notices already queued (the match
  // broke meanwhile), which are sent, so that every seat is told once.
  void OnSynced(const absl::Status& status);
  // Sends what waited for the syncs: everything is durable now.
  void SendSyncedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SendDecisionRequest(int seat) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SendRevealRequest(int seat) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SendRevealRequests() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sends the seat its MatchEnded; a token seat's stream, which has
  // nothing more to carry, ends OK behind it.
  void SendMatchEnded(int seat) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Tells the seat the match broke (announced: broken_reason_ is set), in
  // a DATA_LOSS PlayError naming `decision_id`; a token seat's stream,
  // which has nothing more to carry, ends behind it with that status.
  void SendBroken(int seat, uint64_t decision_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether the seat is a seat token's, whose stream plays this match
  // alone (not a bot's, which carries its other matches).
  bool PlaysAlone(int seat) const { return seats_[seat].bot_id.empty(); }
  // Sends `message` (serialized here, once; it may live on an arena) to
  // the seat's current stream, if any, and returns that stream. An
  // `acknowledgement` (CommitAck, RevealAck) may be held with its step.
  std::shared_ptr<PlaySink> SendToSeat(int seat,
                                       const v1::PlayResponse& message,
                                       bool acknowledgement = false)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The seat's current stream (null: none), as Connections::Find says;
  // kept while the connections' version does not change.
  std::shared_ptr<PlaySink> StreamOf(int seat)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sends `message` to `sink` (a seat's stream), as SendToSeat does: queued
  // in order behind what waits for the step's records or for a sync. A
  // stream's `last` message closes it, with that status, once it is sent.
  void SendTo(const std::shared_ptr<PlaySink>& sink,
              const v1::PlayResponse& message, bool acknowledgement = false,
              std::optional<absl::Status> last = std::nullopt)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sends `event` to every watcher (during a Match call: once its records
  // are written).
  void SendToWatchers(const v1::WatchEvent& event)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sends `events`, in order, to every watcher; one that cannot take them
  // gets a snapshot instead (and then those of them a snapshot does not
  // carry).
  void DeliverToWatchers(absl::Span<const v1::WatchEvent> events)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The public state as WatchSnapshot says (the host must still have its
  // Match).
  v1::WatchEvent SnapshotLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Forgets watchers whose streams are gone, and the watched view with the
  // last of them.
  void PruneWatchersLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sends the seat a PlayError; `last`: its stream's last message, which
  // closes the stream with `status` behind it.
  void SendError(int seat, uint64_t decision_id, const absl::Status& status,
                 bool faulted, bool last = false)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  v1::MatchInfo InfoLocked(const Connections& connections) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  const v1::Outcome& OutcomeLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string match_id_;
  const v1::GameConfig game_;
  const std::vector<HostedSeat> seats_;
  const v1::ClockSettings clocks_;
  const v1::ForfeitPolicy policy_;
  const std::string log_path_;
  const int64_t created_unix_ms_;
  std::string request_id_;  // Set before Start(); constant after.
  std::string label_;       // Likewise.
  Connections* const connections_;
  const std::function<void(absl::Time)> on_deadline_;
  std::function<void(const v1::MatchInfo&)> on_end_;
  // An archived match's status (FINISHED or BROKEN; its reason is
  // broken_reason_).
  v1::MatchStatus archived_status_ = v1::MATCH_FINISHED;

  mutable absl::Mutex mu_;
  // Null once the match has ended (sealed, not broken) and its end was
  // announced; `outcome_` then holds its outcome.
  std::unique_ptr<Match> match_ ABSL_GUARDED_BY(mu_);
  v1::Outcome outcome_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<WatchSink>> watchers_ ABSL_GUARDED_BY(mu_);
  // Those of `watchers_` counted against AddWatcher's `max_watchers` (not
  // the admin token's), and maybe some gone since: AddWatcher drops the
  // closed ones before it counts.
  std::vector<std::weak_ptr<const WatchSink>> spectators_ ABSL_GUARDED_BY(mu_);
  std::vector<std::function<void()>> over_listeners_ ABSL_GUARDED_BY(mu_);
  // While anyone watches: the public view watchers were last sent (deltas
  // are taken against it).
  std::optional<v1::Observation> watched_view_ ABSL_GUARDED_BY(mu_);
  // The decision id of the last applied move (0: the seed decision or an
  // automatic move), and the last decision closed (applied), if any: the
  // Match still shows it as open while its Applied record is reported.
  uint64_t last_applied_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<uint64_t> closed_ ABSL_GUARDED_BY(mu_);
  // During Run: the reveal just logged (seat, decision id) that may be acked
  // once no fault follows it; and whether the call logged anything. The
  // decision id is kept because the ack may be flushed after the decision
  // closed (e.g. at the outcome of a forfeit).
  std::optional<std::pair<int, uint64_t>> pending_reveal_ack_
      ABSL_GUARDED_BY(mu_);
  bool logged_ ABSL_GUARDED_BY(mu_) = false;
  // During a Match call in Run, and while a step is held: what it sends
  // waits here, in order, until the records it logged are written
  // (Match::EndBatch); nothing is sent for a record that is not in the log.
  bool deferring_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<OutgoingMessage> outbox_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::WatchEvent> watch_outbox_ ABSL_GUARDED_BY(mu_);
  // set_ack_holder's runner (null: no step is held); whether a step is
  // held (its records unwritten, its acknowledgements in outbox_); and how
  // many holds have started (the number of the latest).
  DelayedRunner* ack_holder_ = nullptr;
  bool step_held_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t holds_ ABSL_GUARDED_BY(mu_) = 0;
  // set_sync_pool's pool (null: checkpoints sync inline); the syncs it has
  // not finished; whether what is sent to seats waits for them (from the
  // first step that owes one until all are done); and what waits, in order.
  SyncPool* sync_pool_ = nullptr;
  MessageSink messages_;  // set_messages's (empty: stderr).
  int syncs_pending_ ABSL_GUARDED_BY(mu_) = 0;
  bool awaiting_sync_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<OutgoingMessage> sync_outbox_ ABSL_GUARDED_BY(mu_);
  // When the match broke while awaiting a sync: where in sync_outbox_ what
  // was sent from then on begins (the break notices, refusals since). It
  // rests on no record, so a sync that fails still sends it.
  std::optional<size_t> broken_in_sync_outbox_ ABSL_GUARDED_BY(mu_);
  // During Run, per seat: the "observation-once" stream that got the seat's
  // last DecisionResult, whose observation a DecisionRequest on the same
  // stream may then leave out (the position cannot change in between).
  std::vector<std::shared_ptr<PlaySink>> result_streams_ ABSL_GUARDED_BY(mu_);
  // Outcome logged, not announced (until the seal's sync is done).
  bool end_unannounced_ ABSL_GUARDED_BY(mu_) = false;
  std::string broken_reason_ ABSL_GUARDED_BY(mu_);  // Once announced.
  // Per seat (sized at the first use): its stream, and the connections'
  // version it was found at (StreamOf); let go with the match.
  struct CachedStream {
    std::shared_ptr<PlaySink> sink;
    uint64_t version = ~uint64_t{0};
  };
  std::vector<CachedStream> streams_ ABSL_GUARDED_BY(mu_);
  // The deadline last handed to on_deadline_ (to avoid repeats).
  absl::Time scheduled_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_MATCH_HOST_H_
