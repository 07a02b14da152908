// One match run by the referee: rules state + decision bookkeeping +
// commit-reveal + deadlines + the signed log (DESIGN.md, docs/protocol.md).
// Knows nothing of gRPC, so tests, benchmarks and tools run it in-process.
//
// The match opens decision 0 (the seed decision) on creation. Seats then
// Commit and Reveal; the match closes each decision once every seat of it has
// a usable reveal or a fault, applies it, takes automatic moves, and opens the
// next decision, until the game ends; then it writes the outcome and the
// seal. Every accepted protocol event is appended to the log before the call
// that caused it returns (between BeginBatch and EndBatch: written by
// EndBatch, before which the caller acts on none of them).
//
// Deadlines are checked against the injected Clock by CheckDeadlines() and
// at the start of Commit/Reveal. Not thread-safe: the caller serialises calls.
#ifndef PYRAMID_REFEREE_CORE_MATCH_H_
#define PYRAMID_REFEREE_CORE_MATCH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/clock.h"
#include "referee/core/decision.h"
#include "referee/core/game_session.h"
#include "referee/core/log_writer.h"
#include "referee/crypto/ed25519.h"
#include "referee/games/game.h"

namespace pyramid {

// Called with every record the match appends to its log (after the append
// succeeded), except checkpoints and the seal. Runs under the caller's call
// into the Match; must not call back into it. `seat_note`, for a Fault
// record, is what its seat alone is told after the fault's detail (what its
// client likely got wrong, e.g. CommitmentMistake); empty when there is
// nothing to add, and for every other record. It is never logged.
using RecordListener = std::function<void(const v1::LogRecord& record,
                                          std::string_view seat_note)>;

// Fills a buffer with random bytes. The default is the operating system's
// randomness; tests inject a deterministic source.
using EntropySource = std::function<void(char* out, size_t size)>;
EntropySource SystemEntropy();
// Gives `bytes` in order, then zeros: a match made again with the match id
// and referee contribution it was first made with (a re-run, a match whose
// ids were drawn ahead).
EntropySource FixedEntropy(std::string bytes);

// Records between signed checkpoints when the referee is told no other
// number (MatchConfig, LobbyOptions and the programs' --checkpoint_interval).
inline constexpr uint32_t kDefaultCheckpointInterval = 64;

// A field added here is written to the log's header by HeaderFor and read
// back by ConfigFromHeader, unless it is the writer's own (fsync).
struct MatchConfig {
  v1::GameConfig game;
  std::vector<v1::Seat> seats;  // Seat i is seats[i].
  v1::ClockSettings clocks;
  v1::ForfeitPolicy forfeit_policy = v1::FORFEIT_POLICY_FORFEIT;
  uint32_t checkpoint_interval = kDefaultCheckpointInterval;
  FsyncPolicy fsync = FsyncPolicy::kCheckpoints;
  std::string label;  // Header.label.
};

// The log header's part that `config` gives (game, seats, clocks, forfeit
// policy, checkpoint interval, label) and the format version; the match
// fills in the rest (rules version, match id, referee key and commitment,
// creation time). ConfigFromHeader reads that part back.
v1::Header HeaderFor(const MatchConfig& config);
// The configuration `header` records; `fsync` is the writer's own (no log
// records it).
MatchConfig ConfigFromHeader(const v1::Header& header, FsyncPolicy fsync);

// What the open decision asks for: a copy, which the service takes several
// times per message, so it holds up to kInlineSeats seats without touching
// the heap.
struct DecisionView {
  static constexpr size_t kInlineSeats = 10;  // Every game's most seats.
  uint64_t id = 0;
  absl::InlinedVector<int, kInlineSeats> seats;  // Ascending.
  bool simultaneous = false;
  bool reveal_phase = false;  // False: collecting commits.
  // Per seat (indexed like `seats`): when its current phase closes for it;
  // InfiniteFuture when there is no deadline.
  absl::InlinedVector<absl::Time, kInlineSeats> deadlines;
};

class Match {
 public:
  // Creates the match, writes its header and opens the seed decision.
  static absl::StatusOr<std::unique_ptr<Match>> Create(
      MatchConfig config, SigningKey referee_key, std::unique_ptr<LogSink> sink,
      const Clock* clock, EntropySource entropy = SystemEntropy());

  // Rebuilds a match from its log and resumes it (the referee's restart;
  // docs/durability.md). `log` holds complete records only (the caller cuts
  // a torn tail off first): the header gives the configuration, and
  // `referee_contribution` must be the secret its commitment binds. The
  // match is re-run: created again, then every commit, reveal, timeout,
  // forced checkpoint and restart the log records is applied again at the
  // time the log records for it, through the same calls that made it. It
  // must write exactly the log's bytes again (DATA_LOSS naming the first
  // record that does not follow otherwise). Then, unless the log already
  // holds the outcome, a Restart record is appended and the open decision
  // reopens with full deadlines from `clock`'s now. Writing goes on into
  // `sink`, which must append to the same file after `log`'s bytes.
  static absl::StatusOr<std::unique_ptr<Match>> Resume(
      std::string_view log, std::string_view referee_contribution,
      SigningKey referee_key, FsyncPolicy fsync, std::unique_ptr<LogSink> sink,
      const Clock* clock);

  const std::string& match_id() const { return match_id_; }
  // The seed contribution the header commits to; secret until the seed
  // decision closes (the referee keeps it to resume the match).
  const std::string& referee_contribution() const {
    return referee_contribution_;
  }
  // SHA-256 of the stored bytes of the log's header (record 0), which the
  // seed decision's requests carry for the seats to name in their
  // contributions (DecisionRequest.header_hash).
  const Digest& header_hash() const { return header_hash_; }
  int num_seats() const { return static_cast<int>(config_.seats.size()); }
  bool finished() const { return finished_; }

  // The open decision; nullopt once finished.
  std::optional<DecisionView> decision() const;
  // The earliest deadline of a seat that still owes something in the open
  // decision; InfiniteFuture when none (or finished). CheckDeadlines() is due
  // then.
  absl::Time NextDeadline() const;
  // Whether `seat` owes a commit / a reveal in the open decision now.
  bool AwaitsCommit(int seat) const;
  bool AwaitsReveal(int seat) const;
  // Whether `seat`'s commitment to the open decision is in the log.
  bool HasCommitted(int seat) const;

  // A seat's commitment for decision `decision_id`.
  //   FAILED_PRECONDITION: match over, decision not open, seat not in it,
  //                        commit phase over;
  //   ALREADY_EXISTS: the seat already committed;
  //   INVALID_ARGUMENT: commitment not 32 bytes, bad or missing signature.
  absl::Status Commit(int seat, uint64_t decision_id,
                      std::string_view commitment,
                      std::string_view signature = {});

  // A seat's reveal. A reveal that does not match the commitment or holds an
  // illegal action is still accepted and logged, and the seat is faulted per
  // the forfeit policy; the call then returns INVALID_ARGUMENT saying so.
  //   FAILED_PRECONDITION: match over, decision not open, seat not in it,
  //                        reveal before every commitment is in, seat
  //                        faulted already;
  //   ALREADY_EXISTS: the seat already revealed;
  //   INVALID_ARGUMENT: salt not 32 bytes or an action longer than the
  //                     game's max_action_bytes (neither logged: the seat
  //                     still owes its reveal), or a fault as above.
  absl::Status Reveal(int seat, uint64_t decision_id, std::string_view salt,
                      std::string_view action_bytes);

  // Faults every seat whose deadline has passed and moves the match on.
  absl::Status CheckDeadlines();

  // Writes a checkpoint now and makes the log durable, so everything written
  // so far verifies as a prefix (used at shutdown). No-op once finished.
  absl::Status Checkpoint();

  // Batches the records of the calls between BeginBatch and EndBatch into
  // one write (LogWriter::BeginBatch). The listener still hears each record
  // as it is logged, but none is written until EndBatch returns OK: act on
  // none before. An EndBatch error breaks the match (broken()).
  void BeginBatch();
  absl::Status EndBatch();
  // Checkpoint syncs within a batch, and the seal's, are handed to the
  // caller (see LogWriter::DeferCheckpointSyncs): after EndBatch,
  // TakeOwedSync returns the job that pays the one owed, if any, and nothing
  // of the batch (the end of the match included) may be acted on until it
  // has run and returned OK; a job that fails must be reported with Break.
  void DeferCheckpointSyncs();
  std::optional<SyncJob> TakeOwedSync();
  // Whether a sync is owed: TakeOwedSync would return a job (within a
  // batch too, once a checkpoint in it owes one).
  bool OwesSync() const;
  // Breaks the match with `status` (a sync that failed), unless it is
  // broken already. Nothing more is logged.
  void Break(const absl::Status& status);

  void set_listener(RecordListener listener) {
    listener_ = std::move(listener);
  }

  // What `seat` may see now / what anyone may see. Before the seed decision
  // closes there is no game state and these are empty. ObservationInto
  // builds into an empty `observation`, which may live on an arena
  // (State::ObservationInto).
  v1::Observation ObservationFor(int seat) const;
  void ObservationInto(int seat, v1::Observation& observation) const;
  v1::Observation PublicView() const;
  // The legal actions of `seat` in the open decision (the seed decision has
  // none listed: any 32 bytes). LegalActionsInto builds them into an empty
  // `out`, which may live on an arena (State::LegalActionsInto).
  std::vector<v1::Action> LegalActions(int seat) const;
  void LegalActionsInto(
      int seat, google::protobuf::RepeatedPtrField<v1::Action>& out) const;
  // Whether LegalActions lists every legal action (false in the seed
  // decision and for games that do not list them).
  bool ListsLegalActions() const;
  // The game's default action for `seat` in the open decision (what a fault
  // plays under the default-action policy); empty in the seed decision.
  v1::Action DefaultActionFor(int seat) const;

  // The outcome, once finished.
  const v1::Outcome& outcome() const { return outcome_; }
  // A non-OK status once the log could not be written; the match is then
  // stopped and every call returns this status.
  const absl::Status& broken() const { return broken_; }

 private:
  Match(MatchConfig config, std::unique_ptr<Game> game, const Clock* clock);

  // Resume's re-run: makes the call that wrote `record`, again.
  absl::Status Replay(const v1::LogRecord& record);
  // Reopens the open decision with full deadlines from now and logs a
  // Restart record (`last_record_ms`: the time of the record before it).
  absl::Status Restart(int64_t last_record_ms);

  absl::Status CheckOpen(int seat, uint64_t decision_id) const;
  absl::Status Log(v1::LogRecord record, std::string_view seat_note = {});
  absl::Status OpenDecision(uint64_t id, std::vector<int> seats,
                            bool simultaneous);
  absl::Status Fault(int seat, v1::FaultReason reason, std::string detail,
                     std::string_view seat_note = {});
  absl::Status AfterProgress();
  absl::Status CloseDecision();
  absl::Status CloseSeedDecision();
  absl::Status Advance();
  absl::Status Finish(v1::Outcome outcome);
  // Reads the clock, to the millisecond: every record a call writes carries
  // that one time, and every deadline and bank charge is computed from it,
  // so the match is a function of the times its log records (Resume relies
  // on that to re-run a log exactly).
  void Tick();
  int64_t NowMs() const;
  absl::Status CheckDeadlinesNow();
  absl::Time PhaseDeadline(uint32_t timeout_ms) const;
  void ChargeTimeBank(int seat);
  // The open decision's commit timeout: ClockSettings.seed_timeout_ms for
  // the seed decision when set, else commit_timeout_ms (0: none).
  uint32_t CommitTimeoutMs() const;

  const MatchConfig config_;
  const std::unique_ptr<Game> game_;
  const Clock* clock_;
  std::unique_ptr<Clock> owned_clock_;  // Resume's clock, if any.
  std::unique_ptr<LogWriter> log_;
  // Once sealed with syncs deferred: the seal's sync, until taken.
  std::optional<SyncJob> seal_sync_;
  RecordListener listener_;
  std::string match_id_;
  std::string referee_contribution_;
  Digest header_hash_{};  // SHA-256 of the log's header record.

  std::optional<GameSession> session_;  // From the close of decision 0 on.
  Decision decision_;                   // The open decision's commit-reveal.
  std::vector<absl::Time> deadlines_;   // Indexed like decision_.seats().
  absl::Time now_;                      // The current call's time (Tick).
  absl::Time opened_;                   // When the open decision opened.
  std::vector<int64_t> bank_ms_;        // Per seat: time bank left.
  bool finished_ = false;
  v1::Outcome outcome_;
  absl::Status broken_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_MATCH_H_
