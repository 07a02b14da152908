// bot: the reference bot. Connects to a referee, authenticates with a seat
// token or a bot token, and plays every decision it is sent through
// commit-reveal, on one Play stream (so one process plays any number of
// matches at once).
//
//   bot [--referee=127.0.0.1:50051] [--token_file=FILE]
//       [--strategy=random|heuristic] [--game=rock_paper_pyramid]
//       [--matches=N] [--key_file=FILE]
//
// As the client kits do (docs/writing-a-bot.md): the referee is --referee,
// else $PYRAMID_REFEREE, else 127.0.0.1:50051; the token is read from
// --token_file, else from the file $PYRAMID_TOKEN_FILE names, else it is
// $PYRAMID_TOKEN itself (the tournament runner sets PYRAMID_REFEREE and
// PYRAMID_TOKEN_FILE). An empty flag or variable counts as not given.
//
// SIGINT and SIGTERM (which the tournament runner sends its bots at the
// end) stop the bot cleanly: it cancels its stream, prints its summary line
// and exits 0 unless the referee reported an error to it.
//
// When the referee ends the stream because a newer stream of the same token
// replaced it (another process connected with this token), the bot does not
// reconnect, which would take the token back and start a fight without end:
// it says so and exits 1.
//
// A bad command line is refused before connecting, with exit status 2 and
// one line naming the flag (or variable): an unknown flag, a value out of
// range, an unknown --game or --strategy, or a file --token_file,
// --key_file or --tls_ca names that cannot be read or holds no token or key.
#include <semaphore.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "google/protobuf/arena.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/cli/program.h"
#include "referee/cli/referee_client.h"
#include "referee/cli/token_text.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "tools/bot/strategy.h"

ABSL_FLAG(std::string, referee, "",
          "Referee address, HOST:PORT (default: $PYRAMID_REFEREE, else "
          "127.0.0.1:50051).");
ABSL_FLAG(std::string, token_file, "",
          "File holding a seat or bot token (default: the file "
          "$PYRAMID_TOKEN_FILE names, else the token in $PYRAMID_TOKEN).");
ABSL_FLAG(std::string, strategy, "random",
          "How to choose actions: random, or heuristic "
          "(docs/bot-strategies.md).");
ABSL_FLAG(std::string, game, "",
          "Refuse decisions of any other game: a game id (empty: play any "
          "game).");
ABSL_FLAG(int, matches, 0,
          "Exit after this many matches have ended (0: until the referee "
          "closes the stream).");
ABSL_FLAG(std::string, key_file, "",
          "Ed25519 secret key (keygen format) to sign commits with, for "
          "seats registered with its public key.");
ABSL_FLAG(std::string, tls_ca, "", "PEM roots: connect with TLS.");
ABSL_FLAG(std::string, seed, "",
          "Hex seed for the bot's own randomness (default: random). Salts "
          "and seed contributions always use the system's randomness.");
ABSL_FLAG(bool, quiet, false, "Print only errors.");
ABSL_FLAG(int, reconnect_for_s, 300,
          "When the stream to the referee breaks (or the referee cannot be "
          "reached), reconnect with backoff (100 ms doubling to 5 s) for at "
          "most this many seconds (0: exit at once, with status 1).");
ABSL_FLAG(bool, observation_once, true,
          "Ask the referee to send each view once (the Play stream feature "
          "observation-once, docs/protocol.md): a DecisionRequest then "
          "takes its view from the DecisionResult before it.");
ABSL_FLAG(bool, batch, true,
          "Use the Play stream feature batch (docs/protocol.md): the referee "
          "may send several messages as one, and the bot sends what it owes "
          "after each message it reads as one.");
ABSL_FLAG(int, crash_after_commits, 0,
          "Fault injection, for testing tournament runners and clients: "
          "once the referee acknowledges this many commits, exit at once "
          "with status 3, leaving that commitment unrevealed (0: never).");

namespace pyramid {
namespace {

class Bot {
 public:
  Bot(std::unique_ptr<Strategy> strategy, const Digest& seed,
      std::optional<SigningKey> key)
      : strategy_(std::move(strategy)), stream_(seed), key_(std::move(key)) {}

  // Plays until the referee closes the stream, enough matches have ended
  // or Stop is called. When the stream breaks (the referee restarts, the
  // network drops), reconnects with the same token, with exponential
  // backoff, for at most --reconnect_for_s (0: not at all): the referee then
  // sends again what each seat owes, and the salts of commitments made
  // before are still here. A stream replaced by another process's is not
  // reopened (status 1). Returns the process exit code: 0 when it ended
  // without a PlayError (stopped, done, or the stream closed by the
  // referee), else 1. Every end but giving up prints the summary line.
  int Run(grpc::Channel& channel, v1::Referee::Stub& stub,
          const std::string& token) {
    const int want = absl::GetFlag(FLAGS_matches);
    const absl::Duration reconnect_for =
        absl::Seconds(absl::GetFlag(FLAGS_reconnect_for_s));
    Backoff backoff;
    absl::Time broken_since = absl::InfiniteFuture();
    grpc::Status status;
    while (!Stopping()) {
      const size_t read = reads_;
      status = PlayOnce(stub, token, want);
      if (want > 0 && Ended() >= want) break;
      if (Stopping() || status.ok() || !Retryable(status)) break;
      if (Replaced(status)) {
        std::cerr << "bot: another process connected with this token; "
                     "stopping (stream ended: "
                  << status.error_message() << ")\n";
        return 1;
      }
      if (reconnect_for == absl::ZeroDuration()) {
        std::cerr << "bot: stream ended (" << status.error_message()
                  << "); not reconnecting (--reconnect_for_s=0)\n";
        return 1;
      }
      const absl::Time now = absl::Now();
      if (reads_ > read) {  // It had connected: a fresh outage.
        broken_since = now;
        backoff.Reset();
      } else if (broken_since == absl::InfiniteFuture()) {
        broken_since = now;
      }
      if (now - broken_since > reconnect_for) {
        std::cerr << "bot: giving up after "
                  << absl::FormatDuration(now - broken_since)
                  << " without the referee: " << status.error_message() << "\n";
        return 1;
      }
      if (!absl::GetFlag(FLAGS_quiet)) {
        std::cerr << "bot: stream ended (" << status.error_message()
                  << "); reconnecting in "
                  << absl::FormatDuration(backoff.delay()) << "\n";
      }
      if (WaitUnlessStopped(backoff.delay())) break;
      backoff.Grow();
      // Connect now (a failed channel otherwise waits out gRPC's own
      // backoff and fails every call at once meanwhile), in slices so
      // that Stop is heard.
      const absl::Time until = absl::Now() + backoff.delay();
      while (!Stopping() && absl::Now() < until &&
             !channel.WaitForConnected(absl::ToChronoTime(
                 std::min(until, absl::Now() + absl::Milliseconds(100))))) {
      }
    }
    if (!Stopping() && !status.ok() &&
        status.error_code() != grpc::StatusCode::CANCELLED) {
      std::cerr << "bot: stream ended: " << status.error_message() << "\n";
      return 1;
    }
    if (!absl::GetFlag(FLAGS_quiet)) {
      std::cout << "bot: " << Ended() << " match(es) ended, " << errors_
                << " error(s)" << std::endl;
    }
    return errors_ == 0 ? 0 : 1;
  }

  // Ends Run from any thread: cancels the stream in progress and the wait
  // between reconnections. Run then prints its summary line and returns.
  void Stop() {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
    if (context_ != nullptr) context_->TryCancel();
  }

 private:
  // Errors a reconnection cannot mend.
  static bool Retryable(const grpc::Status& status) {
    switch (status.error_code()) {
      case grpc::StatusCode::UNAUTHENTICATED:
      case grpc::StatusCode::PERMISSION_DENIED:
      case grpc::StatusCode::INVALID_ARGUMENT:
      case grpc::StatusCode::UNIMPLEMENTED:
        return false;
      default:
        return true;
    }
  }

  // Whether the referee ended the stream because a newer stream of its
  // token replaced it (docs/protocol.md, "Reconnecting"). The bot reads only
  // its newest stream, so an older one of its own that broke never tells it
  // this: another process connected with this token.
  static bool Replaced(const grpc::Status& status) {
    return status.error_code() == grpc::StatusCode::ABORTED &&
           status.error_message() == "replaced by a newer stream";
  }

  // Whether Stop was called.
  bool Stopping() {
    absl::MutexLock lock(&mutex_);
    return stopping_;
  }

  // Waits `duration`; true when Stop was called (then at once).
  bool WaitUnlessStopped(absl::Duration duration) {
    absl::MutexLock lock(&mutex_);
    return mutex_.AwaitWithTimeout(absl::Condition(&stopping_), duration);
  }

  // Makes `context` the one Stop cancels (null: none); false (and nothing
  // changed) when Stop was called already.
  bool SetContext(grpc::ClientContext* context) {
    absl::MutexLock lock(&mutex_);
    if (stopping_ && context != nullptr) return false;
    context_ = context;
    return true;
  }

  // One Play stream, until it ends, `want` matches have ended or Stop is
  // called (CANCELLED).
  grpc::Status PlayOnce(v1::Referee::Stub& stub, const std::string& token,
                        int want) {
    grpc::ClientContext context;
    if (!SetContext(&context)) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "stopped");
    }
    grpc::Status status = PlayOn(stub, context, token, want);
    SetContext(nullptr);
    return status;
  }

  // PlayOnce on `context`.
  grpc::Status PlayOn(v1::Referee::Stub& stub, grpc::ClientContext& context,
                      const std::string& token, int want) {
    AddBearer(context, token);
    std::vector<std::string> features;
    if (absl::GetFlag(FLAGS_observation_once)) {
      features.push_back("observation-once");
    }
    if (absl::GetFlag(FLAGS_batch)) features.push_back("batch");
    if (!features.empty()) {
      context.AddMetadata("pyramid-play-features",
                          absl::StrJoin(features, ","));
    }
    views_.clear();  // A new stream: views come afresh.
    outbox_.clear();
    auto stream = stub.Play(&context);
    ++streams_;
    // Each message is read into an arena reset before the next read: a
    // batch of hundreds of responses costs no malloc or free per message.
    google::protobuf::ArenaOptions arena_options;
    arena_options.initial_block = arena_block_.data();
    arena_options.initial_block_size = arena_block_.size();
    google::protobuf::Arena arena(arena_options);
    while (true) {
      arena.Reset();
      auto* response =
          google::protobuf::Arena::CreateMessage<v1::PlayResponse>(&arena);
      if (!stream->Read(response)) break;
      if (response->has_batch()) {
        for (v1::PlayResponse& inner :
             *response->mutable_batch()->mutable_responses()) {
          Handle(inner);
        }
      } else {
        Handle(*response);
      }
      if (!Flush(*stream)) break;
      if (want > 0 && Ended() >= want) break;
    }
    stream->WritesDone();
    if (want > 0 && Ended() >= want) {
      context.TryCancel();
      return grpc::Status::OK;
    }
    return stream->Finish();
  }

  using Key = std::tuple<std::string, uint32_t, uint64_t>;
  struct Pending {
    std::string salt;
    std::string action;
    // The stream (streams_) its commit and reveal were last sent on.
    int committed_on = -1;
    int revealed_on = -1;
  };
  using Stream = grpc::ClientReaderWriter<v1::PlayRequest, v1::PlayResponse>;

  // Sends what handling the last message read queued: one message, or with
  // --batch several as one PlayRequest.batch. False once the stream broke.
  bool Flush(Stream& stream) {
    if (outbox_.empty()) return true;
    std::vector<v1::PlayRequest> messages = std::move(outbox_);
    outbox_.clear();
    if (messages.size() > 1 && absl::GetFlag(FLAGS_batch)) {
      v1::PlayRequest batch;
      for (v1::PlayRequest& m : messages) {
        *batch.mutable_batch()->add_requests() = std::move(m);
      }
      return stream.Write(batch);
    }
    for (const v1::PlayRequest& m : messages) {
      if (!stream.Write(m)) return false;
    }
    return true;
  }

  // A match's end for a seat (its MatchEnded, or the PlayError of a match
  // that broke): forgets whatever the seat's match still had pending, and
  // counts it once per seat, on whichever stream its end comes (a seat
  // token is sent its match's end again on every connection; a bot token
  // playing two seats of a match is sent two ends, and both count). Returns
  // whether it is the first.
  bool End(const std::string& match_id, uint32_t seat) {
    for (auto it = pending_.begin(); it != pending_.end();) {
      it = std::get<0>(it->first) == match_id ? pending_.erase(it)
                                              : std::next(it);
    }
    views_.erase({match_id, seat});
    return ended_matches_.emplace(match_id, seat).second;
  }

  // Seats whose match has ended (what --matches counts).
  int Ended() const { return static_cast<int>(ended_matches_.size()); }

  // Handles one message from the referee; what it answers goes to outbox_.
  void Handle(v1::PlayResponse& response) {
    ++reads_;
    switch (response.kind_case()) {
      case v1::PlayResponse::kDecision:
        Decide(*response.mutable_decision());
        return;
      case v1::PlayResponse::kRevealRequest: {
        const v1::RevealRequest& r = response.reveal_request();
        Reveal({r.match_id(), r.seat(), r.decision_id()});
        return;
      }
      case v1::PlayResponse::kMatchEnded: {
        const v1::MatchEnded& ended = response.match_ended();
        if (!End(ended.match_id(), ended.seat())) return;
        // Flushed line by line: under the tournament runner the output is a
        // file, and a line must outlive a crash of the bot.
        if (!absl::GetFlag(FLAGS_quiet)) {
          const v1::SeatOutcome& mine = ended.outcome().seats(ended.seat());
          std::cout << "match " << ended.match_id() << " seat " << ended.seat()
                    << ": rank " << mine.rank() << ", score " << mine.score()
                    << (mine.forfeited() ? " (forfeited)" : "") << std::endl;
        }
        return;
      }
      case v1::PlayResponse::kResult: {
        const v1::DecisionResult& result = response.result();
        views_[{result.match_id(), result.seat()}] = result.observation();
        return;
      }
      case v1::PlayResponse::kError: {
        const v1::PlayError& error = response.error();
        ++errors_;
        std::cerr << "bot: match " << error.match_id() << " seat "
                  << error.seat() << " decision " << error.decision_id() << ": "
                  << error.message();
        // Without --key_file the bot signs nothing, so a refused signature
        // means the seat was registered with a public key.
        if (!key_ && error.code() == grpc::StatusCode::INVALID_ARGUMENT &&
            absl::StrContains(error.message(), "signature")) {
          std::cerr << " (the seat is registered with a public key, so its "
                       "commits must be signed: pass its secret key with "
                       "--key_file)";
        }
        std::cerr << "\n";
        // The match broke (the referee could not write its log) and
        // stopped: no MatchEnded will ever come. It is over.
        if (error.code() == grpc::StatusCode::DATA_LOSS) {
          End(error.match_id(), error.seat());
        }
        return;
      }
      case v1::PlayResponse::kCommitAck:
        if (++acked_commits_ == absl::GetFlag(FLAGS_crash_after_commits)) {
          std::cerr << "bot: exiting on purpose after " << acked_commits_
                    << " commits (--crash_after_commits)" << std::endl;
          std::_Exit(3);
        }
        return;
      case v1::PlayResponse::kRevealAck: {
        const v1::RevealAck& ack = response.reveal_ack();
        pending_.erase({ack.match_id(), ack.seat(), ack.decision_id()});
        return;
      }
      default:
        return;  // Other acks and results need no answer.
    }
  }

  // Decides `request`, completing it first with the view of the
  // DecisionResult before it (observation-once).
  void Decide(v1::DecisionRequest& request) {
    if (request.observation_in_result()) {
      // The view is the one of the DecisionResult just received.
      auto it = views_.find({request.match_id(), request.seat()});
      if (it == views_.end()) {
        std::cerr << "bot: a DecisionRequest refers to a result never "
                     "received; ignoring it\n";
        return;
      }
      *request.mutable_observation() = it->second;
      request.set_observation_in_result(false);
    }
    const Key key{request.match_id(), request.seat(), request.decision_id()};
    if (request.committed()) return;  // Resumed: the reveal will come.
    // A request can arrive twice (around a reconnection, or after a referee
    // restart that lost the commit): commit again to the first choice,
    // whose salt any reveal must use.
    if (auto it = pending_.find(key); it != pending_.end()) {
      if (it->second.committed_on == streams_) return;
      Commit(key, request);
      return;
    }
    const std::string& wanted = absl::GetFlag(FLAGS_game);
    if (!wanted.empty() && request.game() != wanted) {
      std::cerr << "bot: refusing a decision of game " << request.game()
                << "\n";
      return;
    }
    v1::Action action;
    if (request.decision_id() == 0) {
      action.mutable_seed()->set_contribution(
          SystemRandomBytes(kSeedContributionSize));
    } else {
      action = strategy_->Choose(request, stream_);
    }
    pending_[key] =
        Pending{SystemRandomBytes(kSaltSize), action.SerializeAsString()};
    Commit(key, request);
  }

  // Sends the commitment to the pending choice for `key`; in a single-seat
  // decision, its reveal right after.
  void Commit(const Key& key, const v1::DecisionRequest& request) {
    Pending& pending = pending_.at(key);
    const Digest commitment =
        CommitmentHash(*FromHex(request.match_id()), request.seat(),
                       request.decision_id(), pending.salt, pending.action);
    v1::PlayRequest message;
    v1::CommitMove* commit = message.mutable_commit();
    commit->set_match_id(request.match_id());
    commit->set_seat(request.seat());
    commit->set_decision_id(request.decision_id());
    commit->set_commitment(std::string(AsView(commitment)));
    if (key_) {
      commit->set_signature(key_->Sign(
          CommitSignatureMessage(*FromHex(request.match_id()), request.seat(),
                                 request.decision_id(), AsView(commitment))));
    }
    pending.committed_on = streams_;
    outbox_.push_back(std::move(message));
    // A single-seat decision opens its reveal phase right after the commit
    // (except for the commit after which the bot is to crash).
    const bool crashing =
        ++sent_commits_ == absl::GetFlag(FLAGS_crash_after_commits);
    if (request.acting_seats_size() == 1 && !crashing) Reveal(key);
  }

  // Reveals the pending choice for `key`, once per stream: the referee asks
  // again after a reconnection if the reveal did not reach its log. The
  // choice is kept until the reveal is acknowledged or the match ends.
  void Reveal(const Key& key) {
    auto it = pending_.find(key);
    if (it == pending_.end()) return;  // Lost (a restarted bot).
    if (it->second.revealed_on == streams_) return;
    it->second.revealed_on = streams_;
    v1::PlayRequest message;
    v1::RevealMove* reveal = message.mutable_reveal();
    reveal->set_match_id(std::get<0>(key));
    reveal->set_seat(std::get<1>(key));
    reveal->set_decision_id(std::get<2>(key));
    reveal->set_salt(it->second.salt);
    reveal->set_action(it->second.action);
    outbox_.push_back(std::move(message));
  }

  absl::Mutex mutex_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  // The context of the Play stream in progress, for Stop to cancel.
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mutex_) = nullptr;
  std::unique_ptr<Strategy> strategy_;
  RandomStream stream_;
  std::optional<SigningKey> key_;
  std::map<Key, Pending> pending_;
  // What the message being handled makes the bot send (Flush sends it).
  std::vector<v1::PlayRequest> outbox_;
  // The read arena's first block, kept across messages and streams (a
  // batch is at most 256 KiB on the wire).
  std::vector<char> arena_block_ = std::vector<char>(512 << 10);
  // Per match and seat: the observation of the last DecisionResult on the
  // current stream (observation-once).
  std::map<std::pair<std::string, uint32_t>, v1::Observation> views_;
  // (match, seat) of every seat whose match has ended, on any stream.
  std::set<std::pair<std::string, uint32_t>> ended_matches_;
  int errors_ = 0;
  size_t reads_ = 0;  // Messages read, over every stream.
  int streams_ = 0;   // Play streams opened.
  int sent_commits_ = 0;
  int acked_commits_ = 0;
};

// The value of the environment variable `name`; empty when it is not set.
std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// The referee's address: --referee, else $PYRAMID_REFEREE, else
// 127.0.0.1:50051.
std::string RefereeAddress() {
  std::string address = absl::GetFlag(FLAGS_referee);
  if (address.empty()) address = Env("PYRAMID_REFEREE");
  if (address.empty()) address = "127.0.0.1:50051";
  return address;
}

// The token in the file --token_file names, else in the file
// $PYRAMID_TOKEN_FILE names, else in $PYRAMID_TOKEN, as the client kits
// read it; empty (after a message) when there is none.
std::string ReadToken() {
  std::string file = absl::GetFlag(FLAGS_token_file);
  if (file.empty()) file = Env("PYRAMID_TOKEN_FILE");
  const std::string env = Env("PYRAMID_TOKEN");
  if (file.empty() && env.empty()) {
    std::cerr << "bot: no token: give --token_file, or set "
                 "$PYRAMID_TOKEN_FILE or $PYRAMID_TOKEN\n";
    return "";
  }
  absl::StatusOr<std::string> token =
      file.empty() ? TokenFromText(env, "$PYRAMID_TOKEN") : ReadTokenFile(file);
  if (!token.ok()) {
    // Named as the kits name it: the flag, or the variable, that gave it.
    std::cerr << "bot: ";
    if (!file.empty()) {
      std::cerr << (absl::GetFlag(FLAGS_token_file).empty()
                        ? "$PYRAMID_TOKEN_FILE: "
                        : "--token_file: ");
    }
    std::cerr << token.status().message() << "\n";
    return "";
  }
  return *std::move(token);
}

// SIGINT and SIGTERM stop the bot (Bot::Stop). The handler only records
// the signal and posts a semaphore, both async-signal-safe; the thread of a
// StopOnSignals waits on the semaphore and calls Stop. A second signal
// changes nothing.
std::atomic<int> stop_signal{0};
sem_t stop_semaphore;

extern "C" void OnStopSignal(int signal) {
  const int saved_errno = errno;
  stop_signal.store(signal);
  sem_post(&stop_semaphore);
  errno = saved_errno;
}

class StopOnSignals {
 public:
  // Installs the handler for SIGINT and SIGTERM; once either arrives
  // (before or after this), `bot`.Stop() is called, once.
  explicit StopOnSignals(Bot& bot) : bot_(bot) {
    thread_ = std::thread([this] {
      while (sem_wait(&stop_semaphore) != 0) {  // EINTR: a signal came.
      }
      if (stop_signal.load() == 0) return;  // Destroyed before any signal.
      if (!absl::GetFlag(FLAGS_quiet)) {
        std::cerr << "bot: stopping on signal " << stop_signal.load() << "\n";
      }
      bot_.Stop();
    });
  }
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

  ~StopOnSignals() {
    sem_post(&stop_semaphore);  // Wakes the thread if no signal did.
    thread_.join();
  }

  // Call once, before any signal can be wanted: from then on SIGINT and
  // SIGTERM no longer end the process but are recorded for the thread.
  static void InstallHandler() {
    sem_init(&stop_semaphore, 0, 0);
    struct sigaction action = {};
    action.sa_handler = OnStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
  }

 private:
  Bot& bot_;
  std::thread thread_;
};

int Main() {
  StopOnSignals::InstallHandler();
  for (const auto& [name, value] :
       {std::pair{"matches", absl::GetFlag(FLAGS_matches)},
        std::pair{"reconnect_for_s", absl::GetFlag(FLAGS_reconnect_for_s)},
        std::pair{"crash_after_commits",
                  absl::GetFlag(FLAGS_crash_after_commits)}}) {
    if (value < 0) {
      std::cerr << "bot: --" << name << " is 0 or more, not " << value << "\n";
      return 2;
    }
  }
  // A game the bot does not know would have it refuse every decision.
  const std::string game = absl::GetFlag(FLAGS_game);
  if (!game.empty() && std::find(BotGames().begin(), BotGames().end(), game) ==
                           BotGames().end()) {
    std::cerr << "bot: unknown --game \"" << game << "\": the games are "
              << absl::StrJoin(BotGames(), ", ") << " (empty: any game)\n";
    return 2;
  }
  absl::StatusOr<std::unique_ptr<Strategy>> strategy =
      MakeStrategy(game, absl::GetFlag(FLAGS_strategy));
  if (!strategy.ok()) {
    std::cerr << "bot: --strategy: " << strategy.status().message() << "\n";
    return 2;
  }
  const std::string token = ReadToken();
  if (token.empty()) return 2;
  std::optional<SigningKey> key;
  if (!absl::GetFlag(FLAGS_key_file).empty()) {
    absl::StatusOr<SigningKey> read =
        ReadSigningKey(absl::GetFlag(FLAGS_key_file));
    if (!read.ok()) {
      std::cerr << "bot: --key_file: " << read.status().message() << "\n";
      return 2;
    }
    key = *read;
  }
  std::string seed_bytes = SystemRandomBytes(32);
  if (!absl::GetFlag(FLAGS_seed).empty()) {
    absl::StatusOr<std::string> parsed = FromHex(absl::GetFlag(FLAGS_seed));
    if (!parsed.ok()) {
      std::cerr << "bot: --seed is hex\n";
      return 2;
    }
    seed_bytes = *parsed;
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      ClientCredentials(absl::GetFlag(FLAGS_tls_ca));
  if (!credentials.ok()) {
    std::cerr << "bot: --tls_ca: " << credentials.status().message() << "\n";
    return 2;
  }
  // A bot waiting out a referee restart must not miss its deadlines.
  auto channel = FastReconnectChannel(RefereeAddress(), *credentials);
  auto stub = v1::Referee::NewStub(channel);
  Bot bot(*std::move(strategy), Sha256(seed_bytes), std::move(key));
  StopOnSignals stop_on_signals(bot);
  return bot.Run(*channel, *stub, token);
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  pyramid::InitFlagsOnlyProgram(
      argc, argv,
      "The reference bot for the pyramid referee. SIGINT or SIGTERM stops "
      "it cleanly: it prints its summary line and exits 0 (1 if the referee "
      "reported an error to it).");
  return pyramid::Main();
}
