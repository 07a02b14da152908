// The reference bot's play, apart from its command line (bot_main.cc): one
// Play stream to the referee at a time, on which it answers every decision
// it is sent, of any number of matches at once, with its strategy's choice
// through commit-reveal, and reconnects with backoff when the stream
// breaks; with a state directory, its commitments survive a restart of the
// process too (state_dir.h). What it prints starts with "bot: " and names
// the bot's flags.
#ifndef PYRAMID_TOOLS_BOT_PLAY_CLIENT_H_
#define PYRAMID_TOOLS_BOT_PLAY_CLIENT_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/cli/referee_client.h"
#include "referee/core/stop_signal.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/random_stream.h"
#include "tools/bot/state_dir.h"
#include "tools/bot/strategy.h"

namespace pyramid {

// How a PlayClient plays; each field is the bot's flag of that name
// (bot_main.cc), with its default.
struct PlayClientOptions {
  // Run returns once this many seats' matches have ended (0: when the
  // referee closes the stream).
  int matches = 0;
  // How long to keep reconnecting once the stream broke (zero: not at
  // all, status 1). --reconnect_for_s.
  absl::Duration reconnect_for = absl::Seconds(300);
  // The referee's address, as its lines name it (--referee; empty: "the
  // referee").
  std::string referee;
  // Refuse decisions of any other game (empty: play any game).
  std::string game;
  // The Play stream features to ask for (docs/protocol.md).
  bool observation_once = true;
  bool batch = true;
  // Print only errors.
  bool quiet = false;
  // Also print each commit and reveal the referee acknowledges
  // ("bot: <- commit_ack: match M seat S decision D", on stderr).
  bool verbose = false;
  // Fault injection: once the referee acknowledges this many commits, the
  // process exits at once with status 3, leaving that commitment
  // unrevealed (0: never).
  int crash_after_commits = 0;
  // At most this many seats' commitments kept at once (the salt and
  // action of each seat's newest decision). Past it, the least recently
  // used is dropped to make room: one whose reveal was acknowledged if
  // any, else the oldest whose reveal is owed (said in a line). A dropped
  // decision asked again is refused, never committed to anew
  // (docs/writing-a-bot.md, "What a bot must never do"). Not a flag.
  size_t max_open_decisions = 4096;
  // --state_dir: a directory (existing, writable: MakeStateDir) where every
  // commitment is written durably before it is sent (state_dir.h), and
  // kept until its match ends (MatchEnded, or its DATA_LOSS error, removes
  // all of that match's records; nothing else does); a process started
  // again on it reveals what an earlier one committed to, and commits to a
  // decision it finds a record of with that record, never anew, whatever
  // the state of its reveal; after a restart, the seat's newest decision
  // is the largest with a record, and an older one without a record of
  // its own is refused (empty: in memory only).
  std::string state_dir;
};

// The waits between the bot's tries while its stream is broken
// (PlayClient::Run): Backoff's, 100 ms doubling to 5 s, each cut to what is
// left of `reconnect_for` since the outage began, so that the last try is
// made when that time is up and none after it (as the kits do). It reads
// no clock: each call is told the time.
class ReconnectWindow {
 public:
  explicit ReconnectWindow(absl::Duration reconnect_for)
      : reconnect_for_(reconnect_for) {}

  // Starts a fresh outage at `now`: the next wait is the first, 100 ms.
  void Begin(absl::Time now);

  // Whether an outage was begun.
  bool begun() const { return began_ != absl::InfiniteFuture(); }

  // How long the outage has lasted at `now`. Requires begun().
  absl::Duration Elapsed(absl::Time now) const { return now - began_; }

  // The wait at `now` before the next try: the backoff, cut to what is
  // left of reconnect_for; nullopt once nothing is left (give up).
  // Requires begun().
  std::optional<absl::Duration> Wait(absl::Time now) const;

  // After a wait: the next one is the first again when the referee came
  // back (`back`), else twice as long, up to 5 s.
  void Waited(bool back);

 private:
  const absl::Duration reconnect_for_;
  absl::Time began_ = absl::InfiniteFuture();
  Backoff backoff_;
};

// What the bot says, after "bot: ", when the referee ends its stream
// DATA_LOSS: it broke the token's match (docs/protocol.md), which
// reconnecting cannot mend. The kits and tools/python/pyramid_bot.py say the
// same.
inline constexpr char kBrokenFailure[] =
    "the referee broke the match; not reconnecting";

class PlayClient {
 public:
  // Chooses with `strategy`, drawing its randomness from a stream keyed
  // by `seed`; signs every commit with `key` when given (salts and seed
  // contributions always come from the system's randomness).
  PlayClient(PlayClientOptions options, std::unique_ptr<Strategy> strategy,
             const Digest& seed, std::optional<SigningKey> key);
  PlayClient(const PlayClient&) = delete;
  PlayClient& operator=(const PlayClient&) = delete;

  // Plays until the referee closes the stream, enough matches have ended
  // or Stop is called. When the stream breaks (the referee restarts, the
  // network drops), reconnects with the same token, with exponential
  // backoff that ends as soon as the referee is back (AwaitReferee: within
  // a few hundred milliseconds of its restart, however long it was away,
  // before the deadlines it reopens), for at most options.reconnect_for
  // (zero: not at all; unless quiet, one line says so when an outage
  // begins: SayRetrying), the last wait ending when that time is up
  // (ReconnectWindow); then it gives up, saying "bot: giving up: no referee
  // for 300.0 s (CODE: message)" (the time the outage lasted, as the kits
  // say it), status 1. The referee back, it sends again what each seat
  // owes, and the salts of commitments made before are still here. A stream
  // replaced by another process's is not reopened (status 1), nor is one
  // the referee ended DATA_LOSS because it broke the token's match: "bot:
  // <kBrokenFailure> (stream ended: DATA_LOSS: message)", status 1. Returns
  // the process exit code: 0 when it ended without a PlayError, stopped or
  // done (options.matches ended, or, with options.matches 0, the stream
  // closed by the referee), else 1. Those ends print the summary line; an
  // end on a failed stream prints its one line instead, and so does a
  // stream the referee closed before options.matches ended ("bot: giving
  // up: the referee closed the stream after 1 of 2 matches: a seat token
  // plays one match", as the kits say it).
  int Run(grpc::Channel& channel, referee::v1::Referee::Stub& stub,
          const std::string& token);

  // Ends Run from any thread: cancels the stream in progress and the wait
  // between reconnections. Run then prints its summary line and returns.
  void Stop();

 private:
  using Key = std::tuple<std::string, uint32_t, uint64_t>;
  struct Pending {
    std::string salt;
    std::string action;
    // The stream (streams_) its commit and reveal were last sent on.
    int committed_on = -1;
    int revealed_on = -1;
    // Whether the referee acknowledged its reveal (and asked nothing of it
    // since), and its place in acked_lru_ or owed_lru_.
    bool acked = false;
    std::list<Key>::iterator lru{};
  };
  using PendingMap = std::map<Key, Pending>;
  using Stream = grpc::ClientReaderWriter<referee::v1::PlayRequest,
                                          referee::v1::PlayResponse>;

  // Whether reconnecting may mend `status`.
  static bool Retryable(const grpc::Status& status);
  // Says, on stderr, that the stream failed with `status` and that Run
  // retries for options_.reconnect_for: "the referee at ADDR does not
  // answer (UNAVAILABLE: ...)" when it never got through (`connected`
  // false), else "stream ended (CODE: ...)". Once per outage: the tries
  // after it say nothing until Run gives up.
  void SayRetrying(const grpc::Status& status, bool connected);

  // Whether the referee ended the stream because a newer stream of its
  // token replaced it (docs/protocol.md, "Reconnecting"). The bot reads only
  // its newest stream, so an older one of its own that broke never tells it
  // this: another process connected with this token.
  static bool Replaced(const grpc::Status& status);

  // Whether the referee ended the stream because it broke the token's
  // match (it cannot go on with it: its log cannot be written), DATA_LOSS
  // (docs/protocol.md): final, as the match never resumes; nothing else
  // ends a Play stream so.
  static bool Broken(const grpc::Status& status);

  // While the referee is away, a connection is tried again at most this
  // long after the last one (less a jitter of up to 50 ms, drawn for each
  // wait: ConnectRetrySlice).
  static constexpr absl::Duration kConnectRetry = absl::Milliseconds(250);
  static absl::Duration ConnectRetrySlice();

  // The wait before the next stream, at most `wait` (less on Stop). While
  // `channel` is not connected (the referee is away), it is made to
  // connect, an attempt every kConnectRetry at most, and the wait ends as
  // soon as it is (AwaitConnected): true then (the referee is back), else
  // false. A channel connected at the start (the referee is up and ended
  // the stream itself) waits `wait` whole, the backoff that spares a
  // referee refusing streams.
  bool AwaitReferee(grpc::Channel& channel, absl::Duration wait);

  // Makes `context` the one Stop cancels (null: none); false (and nothing
  // changed) when Stop was called already.
  bool SetContext(grpc::ClientContext* context);

  // One Play stream, until it ends, `want` matches have ended or Stop is
  // called (CANCELLED).
  grpc::Status PlayOnce(referee::v1::Referee::Stub& stub,
                        const std::string& token, int want);

  // PlayOnce on `context`.
  grpc::Status PlayOn(referee::v1::Referee::Stub& stub,
                      grpc::ClientContext& context, const std::string& token,
                      int want);

  // Sends what handling the last message read queued: one message, or with
  // options.batch several as one PlayRequest.batch. False once the stream
  // broke.
  bool Flush(Stream& stream);

  // A match's end for a seat (its MatchEnded, or the PlayError of a match
  // that broke): forgets whatever the seat still had pending (its
  // decisions are refused from now on) and every record of the match in
  // the state directory, and counts it once per seat, on whichever stream its
  // end comes (a seat token is sent its match's end again on every connection;
  // a bot token playing two seats of a match is sent two ends, and both count).
  // Returns whether it is the first.
  bool End(const std::string& match_id, uint32_t seat);

  // Seats whose match has ended (what options.matches counts).
  int Ended() const { return static_cast<int>(ended_matches_.size()); }

  // Handles one message from the referee; what it answers goes to outbox_.
  void Handle(referee::v1::PlayResponse& response);

  // Decides `request`, completing it first with the view of the
  // DecisionResult before it (observation-once). Commits to each decision
  // of a seat once (docs/writing-a-bot.md, "What a bot must never do"): a
  // request for a decision it holds the commitment of gets the same
  // commitment again (on a new stream), as does one whose record an
  // earlier process left in the state directory (Recover); one marked
  // committed is read back from there when this process lacks it (or
  // said lost); and one for a decision older than
  // the seat's newest, of a match over, whose commitment was dropped to
  // make room (MakeRoom), or with a match id that is not 16 bytes in hex
  // is refused with a line saying why (one with a record is not, however
  // old: it gets that record's commitment).
  void Decide(referee::v1::DecisionRequest& request);

  // Seeds newest_ for the seat, once per seat until its match ends, with
  // its largest decision with a record in the state directory (an earlier
  // process committed to it).
  void ReadNewest(const std::string& match_id, uint32_t seat);

  // Why the bot refuses to open `request`, a decision it has no choice
  // for (empty: it may); `recorded`: the state directory holds its
  // record, whose commitment may always be sent again, never another.
  // Opening a newer decision than the seat's newest closes that one.
  std::string Refusal(const referee::v1::DecisionRequest& request,
                      bool recorded = false);

  // Moves `it` to the most recently used end of acked_lru_ (`acked`) or
  // owed_lru_.
  void Touch(PendingMap::iterator it, bool acked);

  // Drops `it`'s commitment from memory (newest_ still holds its
  // decision's number); its record in the state directory stays until the
  // match ends.
  void Forget(PendingMap::iterator it);

  // Holds `pending` as `key`'s commitment, making room first (MakeRoom);
  // when `key` is newer than the seat's newest decision (newest_, seeded
  // from the state directory: ReadNewest), makes it the newest, closing
  // the older one; an older decision read back from its record closes
  // nothing. Requires that pending_ lacks `key`.
  PendingMap::iterator Open(const Key& key, Pending pending);

  // Reads `key`'s commitment back from the state directory into pending_,
  // for a decision whose commitment the referee holds, or may hold, and
  // this process lacks (an earlier process of the bot made it). Returns
  // whether it did. A decision Refusal refuses is never read back, nor
  // said. With `say`, a decision without a record (or without a state
  // directory) is said once, even when quiet: the seat will fault at the
  // reveal deadline.
  bool Recover(const Key& key, bool say);

  // Opens `key` with its record's salt and action (saying so unless
  // quiet: "resuming the commitment kept in DIR", as the kits say it).
  void Resume(const Key& key, CommitmentRecord record);

  // At options.max_open_decisions, drops the least recently used
  // commitment: of acked_lru_ if it has any, else of owed_lru_ (said in a
  // line). Its decision is refused from then on, as newest_ keeps its
  // number.
  void MakeRoom();

  // Sends the commitment to the pending choice for `key`; in a single-seat
  // decision, its reveal right after.
  void Commit(const Key& key, const referee::v1::DecisionRequest& request);

  // Reveals the pending choice for `key`, once per stream: the referee asks
  // again after a reconnection if the reveal did not reach its log. The
  // choice is kept until the seat's newer decision or its match's end
  // closes it, or MakeRoom drops it.
  void Reveal(const Key& key);

  const PlayClientOptions options_;
  // Raised by Stop; its waits (between reconnections) are on the monotonic
  // clock, which a step of the wall clock does not hold back.
  StopSignal stop_;
  // Stop raises stop_ and cancels context_ under it, and SetContext reads
  // stop_ under it: a stream begun before Stop is cancelled, and none
  // begins after it.
  absl::Mutex mutex_;
  // The context of the Play stream in progress, for Stop to cancel.
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mutex_) = nullptr;
  std::unique_ptr<Strategy> strategy_;
  RandomStream rng_;  // The strategy's randomness.
  std::optional<SigningKey> key_;
  std::optional<StateDir> state_;  // options.state_dir's.
  // Decisions said to be lost (Recover), until their match ends.
  std::set<Key> warned_missing_;
  // The newest decision of each seat: committed to (or about to be), kept
  // after its reveal is acknowledged, since a referee that lost the reveal
  // (a power loss, docs/durability.md) asks it again after a restart and
  // must get the same commitment. About one per seat of a match (a
  // seat's newer decision closes its older one; older ones read back from
  // their records close nothing) and options.max_open_decisions in all
  // (MakeRoom).
  PendingMap pending_;
  // The keys of pending_, least recently used first: those whose reveal
  // was acknowledged, and the others (committed to, or about to be, and
  // the reveal owed).
  std::list<Key> acked_lru_;
  std::list<Key> owed_lru_;
  // Per match and seat, until its match ends: the newest decision the bot
  // has committed to, the end of what it ever commits to anew. A decision
  // here whose commitment pending_ lacks was dropped to make room. A few
  // dozen bytes a seat, as ended_matches_ keeps for every seat over.
  // After a restart, the largest decision with a record counts as the
  // seat's newest (ReadNewest).
  std::map<std::pair<std::string, uint32_t>, uint64_t> newest_;
  // Seats whose records ReadNewest has read, until their match ends.
  std::set<std::pair<std::string, uint32_t>> newest_read_;
  // What the message being handled makes the bot send (Flush sends it).
  std::vector<referee::v1::PlayRequest> outbox_;
  // The read arena's first block, kept across messages and streams (a
  // batch is at most 256 KiB on the wire).
  std::vector<char> arena_block_ = std::vector<char>(512 << 10);
  // Per match and seat: the observation of the last DecisionResult on the
  // current stream (observation-once).
  std::map<std::pair<std::string, uint32_t>, referee::v1::Observation> views_;
  // (match, seat) of every seat whose match has ended, on any stream.
  std::set<std::pair<std::string, uint32_t>> ended_matches_;
  int errors_ = 0;
  size_t reads_ = 0;  // Messages read, over every stream.
  int streams_ = 0;   // Play streams opened.
  int sent_commits_ = 0;
  int acked_commits_ = 0;
};

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_BOT_PLAY_CLIENT_H_
