// The referee a tournament plays on: one embedded in this process (the
// default, on a free loopback port) or a running one at an address. Matches
// are created, awaited and fetched through the public gRPC API; only the
// wait for a match's end on the embedded referee happens in process (a gRPC
// client stream to a callback server in the same process trips an
// assertion in gRPC 1.51).
#ifndef PYRAMID_TOOLS_TOURNAMENT_REFEREE_LINK_H_
#define PYRAMID_TOOLS_TOURNAMENT_REFEREE_LINK_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/cli/log_fetch.h"
#include "referee/crypto/bytes.h"
#include "replay/verifier.h"

namespace pyramid {

class Backoff;  // referee/cli/referee_client.h
class EmbeddedReferee;
class SilenceWatchdog;  // referee/cli/silence_watchdog.h

class RefereeLink {
 public:
  // Starts an embedded referee signing with the key at `key_path`
  // (generated there, with its .pub, if missing), writing logs into
  // `log_dir` and keeping its transparency log in `tlog_path` (kept across
  // runs, so a resumed tournament's matches stay in one tree); its
  // checkpoints are made durable through the journal in `journal_dir`
  // (docs/durability.md, "The journal"), which a restart replays first into
  // the logs of `log_dir`, wherever the two are (its entries name the logs
  // by their file names: LogJournal::Options::log_dir).
  //
  // Before it starts, every sealed log in `log_dir` that the transparency
  // log lacks is entered in it (a run killed between sealing a log and
  // entering it), as a referee does on start; `read_log` reads and
  // verifies each log for that (ReadSealedLog unless given: a runner that
  // has verified the directory's logs already passes what it knows).
  struct SealedLog {
    std::string match_id;  // Hex, as the referee names matches.
    Digest sha256;         // Of the log file's bytes.
  };
  // The log file at `path` when it is genuine under the referee key `key`
  // (32 bytes); nullopt when it is not, or cannot be read.
  using LogReader = std::function<std::optional<SealedLog>(
      const std::string& path, const std::string& key)>;
  static std::optional<SealedLog> ReadSealedLog(const std::string& path,
                                                const std::string& key);
  static absl::StatusOr<std::unique_ptr<RefereeLink>> StartEmbedded(
      const std::string& key_path, const std::string& log_dir,
      const std::string& tlog_path, const std::string& journal_dir,
      const LogReader& read_log = ReadSealedLog);

  // Connects to the referee at `address`. `public_key` is its key as 64 hex
  // digits or a file holding them; `admin_token_file` holds its admin
  // token, which every call below carries (the read calls too: a referee
  // started with --public_watch=false answers only token holders).
  // While the referee cannot be reached (UNAVAILABLE: it restarts, the
  // network drops), every call below retries with backoff (100 ms doubling
  // to 5 s) for at most `retry_for`, then fails; a Watch that breaks is
  // resumed by match id, so a referee that comes back within that time
  // costs the tournament nothing. Without `admin_token_file`, the token is
  // $PYRAMID_ADMIN_TOKEN's value, an empty one counting as unset
  // (FindAdminToken, token_text.h, as refctl and the referee take it); there
  // is no default file. Nothing
  // is called here: INVALID_ARGUMENT for a key or token file that cannot be
  // read, or no token at all, before anything is made. `tls_ca` names a file
  // of PEM roots: the link connects with TLS trusting them
  // (ClientCredentials, referee_client.h, as refctl's and the bot's
  // --tls_ca); without it, in plaintext. INVALID_ARGUMENT ("tls_ca: cannot
  // open ...") for a file that cannot be read.
  static absl::StatusOr<std::unique_ptr<RefereeLink>> Connect(
      const std::string& address, const std::string& public_key,
      const std::string& admin_token_file,
      absl::Duration retry_for = absl::Minutes(5),
      const std::string& tls_ca = "");

  ~RefereeLink();  // Stops an embedded referee (checkpointing its matches).

  const std::string& address() const { return address_; }
  // The referee's Ed25519 public key (32 raw bytes): every log is verified
  // against it.
  const std::string& public_key() const { return public_key_; }

  // A running referee: whether it takes the admin token, by a call that
  // needs it and changes nothing (RegisterBot without a name, which it
  // refuses with INVALID_ARGUMENT once the token passed). FAILED_PRECONDITION
  // naming the token's file (or $PYRAMID_ADMIN_TOKEN) when it does not know
  // the token or knows it as another kind; the call's error when it cannot
  // be asked (UNAVAILABLE after the retries). OK for an embedded referee.
  absl::Status CheckAdminToken();

  absl::StatusOr<referee::v1::RegisterBotResponse> RegisterBot(
      const referee::v1::RegisterBotRequest& request);
  // A referee at its live-match limit (--max_live_matches) refuses a
  // match for now (UNAVAILABLE, "the referee's limit of live matches is
  // reached ..."). That is no outage: the link then keeps at most that
  // many of its matches live (created and not yet seen ended by AwaitEnd;
  // what it has live when the refusal names no limit), and a CreateMatch
  // beyond them waits for one of them to end, then creates its match at
  // once, instead of retrying with backoff. A place the link counted free
  // that is refused (another client's match holds it) is tried again at
  // the next end or after a backoff. Once a second at most, one waiting
  // CreateMatch tries beyond the limit anyway, whether or not the link's
  // matches end: other clients' matches may have ended, or the referee
  // been restarted with a larger limit; a creation beyond it lifts the
  // limit until the next refusal. One line says the first refusal.
  // The wait ends with CANCELLED when interrupted. It fails (UNAVAILABLE,
  // "... is full, and none of this tournament's matches has ended or been
  // created for ...") once `retry_for` has passed since the last end of
  // one of the link's matches or creation of one (or since its first
  // CreateMatch), not counting time in which the link's own live matches
  // held every place it counts (they may play longer than `retry_for`):
  // the wait gives up only on places other clients hold. Every
  // CreateMatch waiting then fails together, and a later one that is
  // refused fails at once until one ends or is created.
  // A referee without space to record a new match (RESOURCE_EXHAUSTED: a
  // full disk) is waited for the same way, without a limit learnt: the
  // creation is tried again at the next end of one of the link's matches
  // or after the backoff, one line saying so, until space returns or the
  // same rule gives up ("... cannot record new matches, and none of this
  // tournament's matches has ended or been created for ...").
  // While the referee refuses the Watch stream of one of the link's
  // matches (AwaitEnd), no match is created: a CreateMatch waits until the
  // referee takes it, and once such a refusal was waited out for the whole
  // of `retry_for_`, every CreateMatch fails at once (UNAVAILABLE, "...
  // refused the runner's Watch of a match for ...") until the referee
  // takes one of the link's Watch streams again.
  absl::StatusOr<referee::v1::CreateMatchResponse> CreateMatch(
      const referee::v1::CreateMatchRequest& request);
  // How many times the referee refused a CreateMatch for its live-match
  // limit so far.
  int full_refusals();
  // Whether the last refusal a CreateMatch waits out was for want of space
  // (else for the referee's limit of live matches). Lock-free: the
  // interruption hook asks it from inside the wait.
  bool waits_for_space() const { return out_of_space_.load(); }

  // A match's summary (GetMatch), and a page of the referee's matches,
  // newest first (ListMatches).
  absl::StatusOr<referee::v1::MatchInfo> GetMatch(const std::string& match_id);
  absl::StatusOr<referee::v1::ListMatchesResponse> ListMatches(
      const referee::v1::ListMatchesRequest& request);

  // Blocks until the match is over. CANCELLED once Cancel() is called, or
  // when an interruption ends a wait to watch it again (SetRetryHooks).
  // `clocks`, `game` and `seats` are what the match was created with
  // (CreateMatchRequest's clocks, game and number of seats).
  //
  // A running referee that sends no event of the match's Watch stream for
  // longer than any decision may take under `clocks` (SilenceLimit,
  // remote_match_bounds.h) is not playing it, and the wait ends with
  // DEADLINE_EXCEEDED ("the referee at ADDRESS sent nothing about match M for
  // ..."), the stream cancelled. Clocks that leave a phase without a deadline,
  // or all zero (the referee's defaults, which the runner does not know), set
  // no such limit.
  //
  // Nor is one playing it that goes beyond what the game's rules allow a
  // match under `game`'s options for `seats` seats (MaxMoves): a stream
  // that opens a decision beyond the last such a match can have, or sends
  // more events than one Watch stream of such a match carries
  // (MaxWatchEvents), is cancelled and the wait ends with OUT_OF_RANGE
  // ("the referee at ADDRESS ..."), naming the bound. A game whose rules
  // bound nothing (none today; an empty `game` or `seats` 0) sets no such
  // bound.
  //
  // A Watch stream the referee refuses (RESOURCE_EXHAUSTED: a referee
  // whose watcher limits count the admin token) says nothing of the match:
  // it is asked for again as after a lost connection, one line saying so
  // ("tournament: the referee at ADDRESS refuses the runner's Watch of a
  // match (...): creating no more matches until it takes it; retrying in
  // ..."), no match being created meanwhile (CreateMatch), until
  // `retry_for_` has passed; the wait then ends with UNAVAILABLE ("... still
  // refuses the runner's Watch after ...").
  //
  // However it ends, a match this link created no longer holds one of its
  // places (CreateMatch).
  absl::Status AwaitEnd(
      const std::string& match_id, const referee::v1::ClockSettings& clocks,
      const referee::v1::GameConfig& game = referee::v1::GameConfig(),
      int seats = 0);

  // SilenceLimit's margin (remote_match_bounds.h): the referee's delays
  // beyond the clocks (its writes and syncs, a loaded machine, the network).
  static constexpr absl::Duration kSilenceMargin = absl::Seconds(60);
  // Another margin than kSilenceMargin, for tests whose clocks are short.
  void SetSilenceMargin(absl::Duration margin) { silence_margin_ = margin; }

  // Makes the finished match's log available at `dir`/`file` (fetching it
  // with GetLog from a remote referee; the embedded one wrote it there).
  // A fetched log is written to `file`.tmp in `dir` as its chunks come (so
  // the runner holds one chunk at a time, whatever the log's length; a
  // download that starts again after a lost connection starts the file
  // again), then synced, renamed to `file` and the directory synced, as
  // WriteFileAtomically does: durable before the journal line that names
  // it, and no `file` at all unless it came whole. A download that fails
  // (GetLog's refusals below, a write that fails) leaves no `file`.tmp.
  absl::Status FetchLog(const std::string& match_id, const std::string& dir,
                        const std::string& file);

  // A running referee's log of the finished match `match_id` (GetLog), in
  // memory. FAILED_PRECONDITION for the embedded referee. The download is
  // DownloadLog's (log_fetch.h, as refctl get-log's), its attempts retried
  // as every call of the link is: a referee that sends more than
  // max_log_bytes() is not sending a log the runner takes: the call is
  // cancelled as soon as the next chunk would pass that cap, and fails with
  // RESOURCE_EXHAUSTED naming the cap, having held no more than it. One that
  // sends no chunk for kLogStallLimit is not sending it either: the call is
  // cancelled and fails with DEADLINE_EXCEEDED. FetchLog's download is the
  // same call, with the same refusals.
  absl::StatusOr<std::string> GetLog(const std::string& match_id);
  // As long as a referee's own --log_stall_timeout_s lets a reader take
  // nothing of a log it sends.
  static constexpr absl::Duration kLogStallLimit = LogFetchOptions::kStallLimit;
  // Another limit than kLogStallLimit, for tests.
  void SetLogStallLimit(absl::Duration limit) { log_stall_limit_ = limit; }

  // GetLog's cap (LogFetchOptions::kMaxLogBytes, log_fetch.h): it keeps a
  // referee that streams without end from filling the runner's memory
  // (GetLog) or its disk (FetchLog).
  static constexpr uint64_t kMaxLogBytes = LogFetchOptions::kMaxLogBytes;
  uint64_t max_log_bytes() const { return max_log_bytes_; }
  // Another cap than kMaxLogBytes (at least 1 byte).
  void SetMaxLogBytes(uint64_t bytes) { max_log_bytes_ = bytes; }

  // The referee's latest transparency log checkpoint (covering every match
  // sealed so far), and a sealed log's inclusion proof against the
  // checkpoint of `tree_size`.
  // A referee whose tree's disk is full (RESOURCE_EXHAUSTED) is waited for
  // as one that does not answer.
  absl::StatusOr<referee::v1::TlogCheckpoint> GetCheckpoint();
  absl::StatusOr<referee::v1::InclusionProof> GetInclusionProof(
      const std::string& match_id, uint64_t tree_size);
  // The consistency proof between the referee's checkpoints of `old_size`
  // and `new_size`.
  absl::StatusOr<referee::v1::ConsistencyProof> GetConsistencyProof(
      uint64_t old_size, uint64_t new_size);

  // Ends every AwaitEnd in progress or to come with CANCELLED, and every
  // wait to retry a call.
  void Cancel();

  // What a call waits for when `interrupted` is polled (SetRetryHooks):
  // an answer from a referee that did not answer, or a place on a full
  // one (CreateMatch).
  enum class Waiting { kAnswer, kPlace };

  // Called before any call above. While a call waits to be retried (the
  // referee did not answer) or for a place (CreateMatch), `interrupted` is
  // polled with what it waits for (from the calling thread, every 100 ms
  // at most): once it returns true the call fails at once with CANCELLED
  // ("interrupted"), and so does every later call that would wait (the link
  // itself is not cancelled: calls that the referee answers, and waits for the
  // end of a match, go on until Cancel()). `note` gets one line per wait:
  // "tournament: the referee at ADDRESS did not answer (UNAVAILABLE: ...);
  // retrying in 200ms
  // (--referee_retry_s)"; calls that wait out the same outage together say
  // each step once (a line of the same wait within a second of another is
  // not repeated).
  void SetRetryHooks(std::function<bool(Waiting)> interrupted,
                     std::function<void(const std::string&)> note);

 private:
  RefereeLink();
  absl::Status AwaitEmbedded(const std::string& match_id);
  absl::Status AwaitRemote(const std::string& match_id,
                           const referee::v1::ClockSettings& clocks,
                           const referee::v1::GameConfig& game, int seats);
  // What AwaitRemote knows of the match it waits for, across its streams.
  struct RemoteWatch {
    std::string match_id;
    referee::v1::ClockSettings clocks;
    referee::v1::GameConfig game;
    int seats = 0;
    // The game's bounds under its options for `seats` seats (MaxMoves,
    // MaxWatchEvents); none when the rules bound nothing.
    std::optional<uint64_t> moves;
    uint64_t max_decision = std::numeric_limits<uint64_t>::max();
    uint64_t max_events = std::numeric_limits<uint64_t>::max();
    // The latest decision the referee said is open, never beyond
    // max_decision: a decision beyond it ends the wait before it counts.
    // The silence limit grows with it (a bank earns an increment per
    // decision), and the referee could otherwise claim any number once, in
    // one event, to be given a limit of ages; the game's bound is one it
    // cannot move, since the runner chose the options. (Nor do the clocks
    // cap a bank, and the decisions seen are no bound: a stream begun
    // after an outage starts from a snapshot of a later decision.)
    uint64_t decision = 0;
    absl::Duration limit;   // SilenceLimit at `decision`.
    bool answered = false;  // This stream showed the match going on.
    bool silenced = false;  // The watchdog cut the last stream.
    // The referee refused the last stream (RESOURCE_EXHAUSTED before any
    // event), and has taken none since: counted in refused_watches_.
    bool refused = false;
    std::string beyond;   // How the referee went beyond the bounds.
    std::string broken;   // The broken match's reason, as sent.
    grpc::Status status;  // The last stream's end.
  };
  // One Watch stream of `watch`'s match, read to its end: each event moves
  // the silence limit and is checked against the game's bounds (a stream
  // beyond them is cancelled, OUT_OF_RANGE); one the watchdog cut is
  // DEADLINE_EXCEEDED. Any other status is the stream's own (a lost
  // connection, or a refusal, for Retrying to watch again). What became
  // of the stream is noted (NoteStream).
  grpc::Status WatchOnce(grpc::ClientContext& context, RemoteWatch& watch);
  // What became of a stream of `watch`: taken (its first event came),
  // which lifts unwatchable_; refused (RESOURCE_EXHAUSTED before any
  // event); or ended otherwise before any event. `watch` counts in
  // refused_watches_, which holds CreateMatch (AwaitPlace), while its last
  // stream was refused.
  enum class Stream { kTaken, kRefused, kEnded };
  void NoteStream(RemoteWatch& watch, Stream stream);
  // `watch`'s wait ended: no longer counted as refused; `given_up`, after
  // the whole of retry_for_ (not interrupted), with its stream still
  // refused, makes the referee unwatchable_.
  void EndWatchRefusal(RemoteWatch& watch, bool given_up);
  // What AwaitRemote answers once `watch`'s streams ended (not interrupted).
  absl::Status WatchEnd(const RemoteWatch& watch) const;
  // GetLog's download into `chunks`, with its cap, its stall limit and its
  // retries (GetLog).
  absl::Status DownloadLog(const std::string& match_id,
                           const LogChunks& chunks);
  // What DownloadLog takes: max_log_bytes_, log_stall_limit_, the address,
  // "the runner" and "fetching the log" for the messages.
  LogFetchOptions LogFetch() const;
  // Adds the admin token to `context`'s metadata.
  void Authorize(grpc::ClientContext& context) const;
  // What a RESOURCE_EXHAUSTED answer means to a call: an answer to return
  // (kAnswer), or a refusal the referee may lift, waited out as an outage
  // is: for want of space to record (kNoSpace: its disk full), or of a
  // place for the runner's Watch stream (kNoWatchPlace: a referee whose
  // watcher limits count the admin token).
  enum class Exhausted { kAnswer, kNoSpace, kNoWatchPlace };
  // Calls `call` with a new context carrying the admin token until it
  // returns anything but a lost connection (a refusal naming the
  // referee's limit of live matches is not one), or `retry_for_` has
  // passed, or Cancel() was called or the link was interrupted
  // (SetRetryHooks) while it waited. `retry_for_` counts from the call's
  // start, or from the last attempt after which `*answered` (when given)
  // was true: `call` sets it when that attempt showed the referee at work
  // (an event of a stream beyond what each new stream begins with), so
  // that a stream that breaks after an hour is one outage from its break,
  // not one that began an hour ago. The
  // backoff between attempts still grows: a referee that answers and drops
  // each stream at once is called again once per backoff (5 s at most).
  // A call that waits `retry_for_` unanswered, nothing heard from the
  // referee meanwhile by any call, marks the referee gone (gone_): until
  // anything is heard from it again (Heard), every call
  // gives up after its first unanswered attempt, so that a referee gone
  // for good costs a tournament one window, not one per match it goes on
  // to try; calls already waiting give up at their next attempt.
  // Unless `exhausted` is kAnswer, a RESOURCE_EXHAUSTED answer is retried
  // as a lost connection is, though it is an answer (the referee is heard,
  // not gone); once `retry_for_` has passed it is given up as UNAVAILABLE,
  // saying so (StillRefused).
  grpc::Status Retrying(
      const std::function<grpc::Status(grpc::ClientContext&)>& call,
      const bool* answered = nullptr, Exhausted exhausted = Exhausted::kAnswer);
  // What an attempt's `status` means to Retrying (`context` is the
  // attempt's, whose trailers may name the referee's live-match limit):
  // kLost for a lost connection (UNAVAILABLE without the limit's trailer,
  // CANCELLED without Cancel()); kRefused for RESOURCE_EXHAUSTED unless
  // `exhausted` is kAnswer; kAnswered for anything else, an answer to
  // return.
  enum class Attempt { kAnswered, kLost, kRefused };
  Attempt Classify(const grpc::Status& status,
                   const grpc::ClientContext& context,
                   Exhausted exhausted) const;
  // Retrying's wait before its next attempt: `backoff`'s delay (which it
  // then grows), then, on a running referee's channel, up to the grown
  // delay for the channel to connect (AwaitConnected, made to connect at
  // each slice: a failed channel otherwise waits out gRPC's own backoff and
  // fails every call at once meanwhile). Waited in slices of at most 100 ms;
  // false as soon as the link is interrupted (Interrupted(kAnswer)), true once
  // it is time to try again.
  bool WaitBeforeRetry(Backoff& backoff);
  // A window waited out unanswered, nothing heard meanwhile: marks the
  // referee gone (gone_), saying so when it was not gone already (not of
  // the embedded referee, which is given no window).
  void MarkGone();
  // The line said before Retrying waits `delay` after `status`: a referee
  // that did not answer (`refused` kAnswer), or one that refused as
  // `refused` says (RESOURCE_EXHAUSTED).
  std::string RetryNote(const grpc::Status& status, Exhausted refused,
                        absl::Duration delay) const;
  // What Retrying answers once a referee refused a call as `refused` says
  // (`status`, its RESOURCE_EXHAUSTED) for the whole of `retry_for_`.
  grpc::Status StillRefused(const grpc::Status& status,
                            Exhausted refused) const;
  // Something came from the referee (an answer, an event of a stream):
  // it is not gone.
  void Heard() {
    heard_.fetch_add(1);
    gone_ = false;
  }
  // True once cancelled, or while `interrupted_` says so of a call waiting
  // for `what`.
  bool Interrupted(Waiting what);
  // Waits until fewer than limit_ of the link's matches are live or being
  // created, or it is time to try beyond the limit (probe_at_), and while
  // the referee refuses one of the link's Watch streams
  // (refused_watches_); then counts one more being created. CANCELLED
  // when interrupted; StalledStatus's error once it has one; at once
  // UnwatchableStatus's while the referee is unwatchable_.
  absl::Status AwaitPlace();
  // The one rule by which a CreateMatch on a full referee (or one without
  // space for a new match) gives up:
  // UNAVAILABLE once `retry_for_` has passed since progress_at_; OK before.
  // Time in which the link's own live matches hold every place it counts
  // (limit_) is no stall, however long they play: progress_at_ is moved
  // to now then, so the clock runs only while other clients hold places.
  absl::Status StalledStatus() ABSL_EXCLUSIVE_LOCKS_REQUIRED(place_mu_);
  // Why no match is created on a referee that refused the runner's Watch
  // for a whole retry_for_ (unwatchable_): UNAVAILABLE, naming the window
  // and its last refusal.
  absl::Status UnwatchableStatus() const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(place_mu_);
  // The link's match `match_id` is no longer waited for; `over` when its
  // end was seen (the tournament's progress).
  void Ended(const std::string& match_id, bool over);
  // Whether a wait of `delay` is to be said: not when a wait as long was
  // said less than a second ago (by another call waiting out the outage).
  bool RetryNoteDue(absl::Duration delay);

  std::unique_ptr<EmbeddedReferee> embedded_;
  std::string address_;
  std::string admin_token_;
  // Where it came from, for messages: "admin_token_file PATH" or
  // "$PYRAMID_ADMIN_TOKEN".
  std::string admin_token_source_;
  std::string public_key_;
  std::shared_ptr<grpc::Channel> channel_;  // A running referee's.
  std::unique_ptr<referee::v1::Referee::Stub> stub_;

  absl::Duration retry_for_ = absl::ZeroDuration();
  absl::Duration silence_margin_ = kSilenceMargin;
  uint64_t max_log_bytes_ = kMaxLogBytes;
  absl::Duration log_stall_limit_ = kLogStallLimit;
  // Cancels the Watch streams that stay silent past their SilenceLimit.
  std::unique_ptr<SilenceWatchdog> watchdog_;
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> gone_{false};                 // Retrying, Heard.
  std::atomic<uint64_t> heard_{0};                // Times Heard was called.
  std::function<bool(Waiting)> interrupted_;      // SetRetryHooks.
  std::function<void(const std::string&)> note_;  // SetRetryHooks.
  // Every absl::Time below, and each wait's deadline and window, is on the
  // monotonic clock (SteadyNow): a step of the wall clock neither holds
  // back a retry nor stretches a window. (place_cv_'s 100 ms waits are
  // Abseil's, on the wall clock: a backward step holds back one of them.)
  absl::Mutex mu_;
  std::set<grpc::ClientContext*> watches_ ABSL_GUARDED_BY(mu_);
  absl::Duration noted_delay_ ABSL_GUARDED_BY(mu_);  // RetryNoteDue.
  absl::Time noted_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();

  // CreateMatch's places on a referee with a live-match limit.
  absl::Mutex place_mu_;
  absl::CondVar place_cv_;
  std::set<std::string> live_ ABSL_GUARDED_BY(place_mu_);  // Match ids.
  int reserved_ ABSL_GUARDED_BY(place_mu_) = 0;            // CreateMatch calls.
  static constexpr int kNoLimit = std::numeric_limits<int>::max();
  static constexpr absl::Duration kProbeEvery = absl::Seconds(1);
  int limit_ ABSL_GUARDED_BY(place_mu_) = kNoLimit;
  uint64_t ends_ ABSL_GUARDED_BY(place_mu_) = 0;  // Of live_ matches.
  // The last end of one of the link's matches or creation of one (the
  // first CreateMatch's start before any), or the last moment its live
  // matches held every place it counts: StalledStatus.
  absl::Time progress_at_ ABSL_GUARDED_BY(place_mu_) = absl::InfinitePast();
  // When a creation may next try beyond limit_ (AwaitPlace).
  absl::Time probe_at_ ABSL_GUARDED_BY(place_mu_) = absl::InfinitePast();
  // The last refusal's text, and whether it was for want of space (else
  // for the referee's limit of live matches).
  std::string refusal_ ABSL_GUARDED_BY(place_mu_);
  std::atomic<bool> out_of_space_{false};
  int full_refusals_ ABSL_GUARDED_BY(place_mu_) = 0;
  bool full_noted_ ABSL_GUARDED_BY(place_mu_) = false;
  // Whether the refusals for want of space since the last creation were
  // said.
  bool space_noted_ ABSL_GUARDED_BY(place_mu_) = false;
  // While the referee refuses the runner's Watch streams
  // (RESOURCE_EXHAUSTED), no match is created (AwaitPlace): the runner
  // could not watch it either, and a match it does not see end is lost to
  // its schedule (not finished, its bots stopped, its seats left to
  // forfeit). `refused_watches_` of the link's waits for an end wait out
  // such a refusal now; `unwatchable_` once one waited it out for the
  // whole of retry_for_: every creation then fails at once, as calls do
  // on a referee gone, until the referee takes one of the link's Watch
  // streams again. `watch_refusal_` is the last such refusal's text.
  int refused_watches_ ABSL_GUARDED_BY(place_mu_) = 0;
  bool unwatchable_ ABSL_GUARDED_BY(place_mu_) = false;
  std::string watch_refusal_ ABSL_GUARDED_BY(place_mu_);
};

// The referee key named in the header of a log that did not verify against
// `pinned_key` (the runner's referee_key, 32 bytes), when it is another
// well-formed key: the tournament then stops, since none of that referee's
// logs would verify. This is how a referee that serves no transparency log
// checkpoint is found out (the runner checks the checkpoint's key first).
// nullopt for a genuine log, or one whose header names the pinned key or
// no well-formed key (a fault of that log alone).
std::optional<std::string> WrongRefereeKey(const Verdict& verdict,
                                           const std::string& pinned_key);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_REFEREE_LINK_H_
