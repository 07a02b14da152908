#include "tools/bot/play_client.h"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "google/protobuf/arena.h"
#include "referee/cli/referee_client.h"
#include "referee/crypto/protocol.h"
#include "referee/service/play_features.h"

namespace pyramid {
namespace {

// "CODE: message", as the bot's lines name a stream's end.
std::string StatusText(const grpc::Status& status) {
  return absl::StrCat(absl::StatusCodeToString(
                          static_cast<absl::StatusCode>(status.error_code())),
                      ": ", status.error_message());
}

}  // namespace

PlayClient::PlayClient(PlayClientOptions options,
                       std::unique_ptr<Strategy> strategy, const Digest& seed,
                       std::optional<SigningKey> key)
    : options_(std::move(options)),
      strategy_(std::move(strategy)),
      rng_(seed),
      key_(std::move(key)) {
  if (!options_.state_dir.empty()) state_.emplace(options_.state_dir);
}

int PlayClient::Run(grpc::Channel& channel, v1::Referee::Stub& stub,
                    const std::string& token) {
  const int want = options_.matches;
  const absl::Duration reconnect_for = options_.reconnect_for;
  ReconnectWindow window(reconnect_for);
  grpc::Status status;
  while (!stop_.stopped()) {
    const size_t read = reads_;
    status = PlayOnce(stub, token, want);
    if (want > 0 && Ended() >= want) break;
    if (!stop_.stopped() && Broken(status)) {
      std::cerr << "bot: " << kBrokenFailure
                << " (stream ended: " << StatusText(status) << ")\n";
      return 1;
    }
    if (stop_.stopped() || status.ok() || !Retryable(status)) break;
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
    const bool connected = reads_ > read;
    if (connected || !window.begun()) {
      // A fresh outage (after a stream that had connected, or the first
      // try): said once, not at each try (one every 5 s for minutes).
      window.Begin(now);
      if (!options_.quiet) SayRetrying(status, connected);
    }
    const std::optional<absl::Duration> wait = window.Wait(now);
    if (!wait.has_value()) {
      std::ostringstream seconds;  // As the kits say it: "300.0".
      seconds << std::fixed << std::setprecision(1)
              << absl::ToDoubleSeconds(window.Elapsed(now));
      std::cerr << "bot: giving up: no referee for " << seconds.str() << " s ("
                << StatusText(status) << ")\n";
      return 1;
    }
    // The referee back: a stream it ends at once is retried soon.
    window.Waited(AwaitReferee(channel, *wait));
  }
  if (!stop_.stopped() && !status.ok() &&
      status.error_code() != grpc::StatusCode::CANCELLED) {
    std::cerr << "bot: stream ended: " << status.error_message() << "\n";
    return 1;
  }
  if (!stop_.stopped() && status.ok() && want > 0 && Ended() < want) {
    std::cerr << "bot: giving up: the referee closed the stream after "
              << Ended() << " of " << want
              << " matches: a seat token plays one match\n";
    return 1;
  }
  if (!options_.quiet) {
    std::cout << "bot: " << Ended() << " match(es) ended, " << errors_
              << " error(s)" << std::endl;
  }
  return errors_ == 0 ? 0 : 1;
}

void ReconnectWindow::Begin(absl::Time now) {
  began_ = now;
  backoff_.Reset();
}

std::optional<absl::Duration> ReconnectWindow::Wait(absl::Time now) const {
  const absl::Duration left = began_ + reconnect_for_ - now;
  if (left <= absl::ZeroDuration()) return std::nullopt;
  return std::min(backoff_.delay(), left);
}

void ReconnectWindow::Waited(bool back) {
  if (back) {
    backoff_.Reset();
  } else {
    backoff_.Grow();
  }
}

absl::Duration PlayClient::ConnectRetrySlice() {
  // Jitter from the clock, so that bots cut off at once do not all knock
  // at the same instant.
  const int64_t jitter_ms = absl::ToUnixMillis(absl::Now()) % 51;
  return kConnectRetry - absl::Milliseconds(jitter_ms);
}

bool PlayClient::AwaitReferee(grpc::Channel& channel, absl::Duration wait) {
  if (channel.GetState(/*try_to_connect=*/false) == GRPC_CHANNEL_READY) {
    stop_.WaitFor(wait);  // The referee is up and ended the stream.
    return false;
  }
  return AwaitConnected(channel, absl::Now() + wait,
                        {.slice = ConnectRetrySlice(), .stop = [this] {
                           return stop_.stopped();
                         }}) == Awaited::kConnected;
}

void PlayClient::SayRetrying(const grpc::Status& status, bool connected) {
  const std::string error = StatusText(status);
  const absl::Duration reconnect_for = options_.reconnect_for;
  const std::string window = absl::StrCat(
      "for up to ",
      reconnect_for == absl::Seconds(absl::ToInt64Seconds(reconnect_for))
          ? absl::StrCat(absl::ToInt64Seconds(reconnect_for), "s")
          : absl::FormatDuration(reconnect_for),
      " (--reconnect_for_s)");
  const std::string referee =
      options_.referee.empty()
          ? "the referee"
          : absl::StrCat("the referee at ", options_.referee);
  if (!connected && status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    std::cerr << "bot: " << referee << " does not answer (" << error
              << "); retrying " << window << "\n";
  } else {
    std::cerr << "bot: stream ended (" << error << "); reconnecting to "
              << referee << " " << window << "\n";
  }
}

void PlayClient::Stop() {
  absl::MutexLock lock(&mutex_);
  stop_.Stop();
  if (context_ != nullptr) context_->TryCancel();
}

bool PlayClient::Retryable(const grpc::Status& status) {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::UNIMPLEMENTED:
    case grpc::StatusCode::DATA_LOSS:  // The referee broke the match.
      return false;
    default:
      return true;
  }
}

bool PlayClient::Broken(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::DATA_LOSS;
}

bool PlayClient::Replaced(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::ABORTED &&
         status.error_message() == "replaced by a newer stream";
}

bool PlayClient::SetContext(grpc::ClientContext* context) {
  absl::MutexLock lock(&mutex_);
  if (stop_.stopped() && context != nullptr) return false;
  context_ = context;
  return true;
}

grpc::Status PlayClient::PlayOnce(v1::Referee::Stub& stub,
                                  const std::string& token, int want) {
  grpc::ClientContext context;
  if (!SetContext(&context)) {
    return grpc::Status(grpc::StatusCode::CANCELLED, "stopped");
  }
  grpc::Status status = PlayOn(stub, context, token, want);
  SetContext(nullptr);
  return status;
}

grpc::Status PlayClient::PlayOn(v1::Referee::Stub& stub,
                                grpc::ClientContext& context,
                                const std::string& token, int want) {
  AddBearer(context, token);
  std::vector<std::string> features;
  if (options_.observation_once) features.push_back(kObservationOnce);
  if (options_.batch) features.push_back(kBatch);
  if (!features.empty()) {
    context.AddMetadata(kPlayFeatures, absl::StrJoin(features, ","));
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
  // Every message is read, to the end of the stream: the sync Finish
  // waits until none is left unread, so a stream left with messages
  // unread after a failed write (the referee ended it with more sent)
  // kept the bot waiting in Finish forever, never to reconnect. A write
  // fails only once the call is over (the stream closed, or gRPC
  // cancelled the call whose send failed), so the reads then end too.
  bool writable = true;
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
    // What is read after a failed write is handled (a match's end still
    // counts) but not answered: the referee asks again on the next
    // stream what each seat owes.
    if (writable) writable = Flush(*stream);
    outbox_.clear();
    if (want > 0 && Ended() >= want) break;
  }
  if (want > 0 && Ended() >= want) {
    context.TryCancel();
    return grpc::Status::OK;
  }
  if (writable) stream->WritesDone();
  // Cancelling instead would end the call at once, but its status would
  // be CANCELLED, not the referee's (a stream replaced by another
  // process's must be told apart).
  return stream->Finish();
}

bool PlayClient::Flush(Stream& stream) {
  if (outbox_.empty()) return true;
  std::vector<v1::PlayRequest> messages = std::move(outbox_);
  outbox_.clear();
  if (messages.size() > 1 && options_.batch) {
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

bool PlayClient::End(const std::string& match_id, uint32_t seat) {
  // The seat's decisions are refused from now on (ended_matches_), so
  // what it remembers of them goes.
  for (auto it = pending_.lower_bound({match_id, seat, 0});
       it != pending_.end() && std::get<0>(it->first) == match_id &&
       std::get<1>(it->first) == seat;) {
    Forget(it++);
  }
  newest_.erase({match_id, seat});
  newest_read_.erase({match_id, seat});
  views_.erase({match_id, seat});
  // Every record of the match, those of an earlier process too: the one
  // place records go.
  if (state_) state_->DropMatch(match_id);
  for (auto it = warned_missing_.lower_bound({match_id, 0, 0});
       it != warned_missing_.end() && std::get<0>(*it) == match_id;) {
    it = warned_missing_.erase(it);
  }
  return ended_matches_.emplace(match_id, seat).second;
}

void PlayClient::Handle(v1::PlayResponse& response) {
  ++reads_;
  switch (response.kind_case()) {
    case v1::PlayResponse::kDecision:
      Decide(*response.mutable_decision());
      return;
    case v1::PlayResponse::kRevealRequest: {
      const v1::RevealRequest& r = response.reveal_request();
      const Key key{r.match_id(), r.seat(), r.decision_id()};
      // Committed to by an earlier process of this bot?
      if (!pending_.contains(key)) Recover(key, /*say=*/true);
      Reveal(key);
      return;
    }
    case v1::PlayResponse::kMatchEnded: {
      const v1::MatchEnded& ended = response.match_ended();
      if (!End(ended.match_id(), ended.seat())) return;
      if (ended.seat() >= static_cast<uint32_t>(ended.outcome().seats_size())) {
        // A referee's bug (or worse): said, not read past the outcome.
        std::cerr << "bot: match \"" << absl::CHexEscape(ended.match_id())
                  << "\" seat " << ended.seat()
                  << " ended, but its outcome has "
                  << ended.outcome().seats_size()
                  << " seat(s): no rank for this seat\n";
        return;
      }
      // Flushed line by line: under the tournament runner the output is a
      // file, and a line must outlive a crash of the bot.
      if (!options_.quiet) {
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
      std::cerr << "bot: match " << error.match_id() << " seat " << error.seat()
                << " decision " << error.decision_id() << ": "
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
      if (options_.verbose) {
        const v1::CommitAck& ack = response.commit_ack();
        std::cerr << "bot: <- commit_ack: match " << ack.match_id() << " seat "
                  << ack.seat() << " decision " << ack.decision_id()
                  << std::endl;
      }
      if (++acked_commits_ == options_.crash_after_commits) {
        std::cerr << "bot: exiting on purpose after " << acked_commits_
                  << " commits (--crash_after_commits)" << std::endl;
        std::_Exit(3);
      }
      return;
    case v1::PlayResponse::kRevealAck: {
      // The choice is kept: a referee that lost the reveal (a power loss
      // under --fsync=checkpoints, docs/durability.md) opens the decision
      // again after its restart, and gets the same commitment. Owed no
      // more, it is the first to go when room is needed (MakeRoom).
      const v1::RevealAck& ack = response.reveal_ack();
      if (options_.verbose) {
        std::cerr << "bot: <- reveal_ack: match " << ack.match_id() << " seat "
                  << ack.seat() << " decision " << ack.decision_id()
                  << std::endl;
      }
      const Key key{ack.match_id(), ack.seat(), ack.decision_id()};
      auto it = pending_.find(key);
      // Its record, if any, stays until the match ends.
      if (it != pending_.end() && it->second.revealed_on >= 0) Touch(it, true);
      return;
    }
    default:
      return;  // Other acks and results need no answer.
  }
}

void PlayClient::ReadNewest(const std::string& match_id, uint32_t seat) {
  if (!state_ || !newest_read_.emplace(match_id, seat).second) return;
  const std::optional<uint64_t> recorded = state_->Newest(match_id, seat);
  if (!recorded) return;
  const auto [newest, fresh] = newest_.try_emplace({match_id, seat}, *recorded);
  if (!fresh && newest->second < *recorded) newest->second = *recorded;
}

std::string PlayClient::Refusal(const v1::DecisionRequest& request,
                                bool recorded) {
  const absl::StatusOr<std::string> match_id = FromHex(request.match_id());
  if (!match_id.ok() || match_id->size() != kMatchIdSize) {
    return "its match id is not 16 bytes in hex";
  }
  if (ended_matches_.contains({request.match_id(), request.seat()})) {
    return "its match is over";
  }
  // Its record's commitment may always be sent again, never another.
  if (recorded) return "";
  ReadNewest(request.match_id(), request.seat());
  const auto newest = newest_.find({request.match_id(), request.seat()});
  // Decide asks only for a decision whose commitment pending_ lacks.
  if (newest != newest_.end() && request.decision_id() == newest->second) {
    if (state_) {
      return absl::StrCat(
          "its commitment is not held (dropped to make room, ",
          options_.max_open_decisions,
          " decisions open at once, the bot's limit, or its record in ",
          state_->path(), " unusable), and a commitment is never signed twice");
    }
    return absl::StrCat(
        "its commitment was dropped to make room (",
        options_.max_open_decisions,
        " decisions open at once, the bot's limit), and a commitment is "
        "never signed twice");
  }
  if (newest != newest_.end() && request.decision_id() < newest->second) {
    return absl::StrCat("the seat committed to decision ", newest->second,
                        " already, and a commitment is never signed twice");
  }
  return "";
}

void PlayClient::Touch(PendingMap::iterator it, bool acked) {
  std::list<Key>& from = it->second.acked ? acked_lru_ : owed_lru_;
  std::list<Key>& to = acked ? acked_lru_ : owed_lru_;
  to.splice(to.end(), from, it->second.lru);
  it->second.acked = acked;
}

void PlayClient::Forget(PendingMap::iterator it) {
  // Its record, if any, stays until the match ends (state_dir.h).
  (it->second.acked ? acked_lru_ : owed_lru_).erase(it->second.lru);
  pending_.erase(it);
}

PlayClient::PendingMap::iterator PlayClient::Open(const Key& key,
                                                  Pending pending) {
  const auto& [match_id, seat, decision_id] = key;
  ReadNewest(match_id, seat);
  if (auto [newest, fresh] = newest_.try_emplace({match_id, seat}, decision_id);
      !fresh && newest->second < decision_id) {
    // The seat's older decision is over: the referee moved on. (An older
    // decision read back from its record closes nothing.)
    if (auto older = pending_.find({match_id, seat, newest->second});
        older != pending_.end()) {
      Forget(older);
    }
    newest->second = decision_id;
  }
  MakeRoom();
  const auto it = pending_.try_emplace(key, std::move(pending)).first;
  it->second.lru = owed_lru_.insert(owed_lru_.end(), key);
  return it;
}

bool PlayClient::Recover(const Key& key, bool say) {
  const auto& [match_id, seat, decision_id] = key;
  v1::DecisionRequest probe;
  probe.set_match_id(match_id);
  probe.set_seat(seat);
  probe.set_decision_id(decision_id);
  std::optional<CommitmentRecord> record;
  if (state_ && !ended_matches_.contains({match_id, seat})) {
    record = state_->Load(match_id, seat, decision_id);
  }
  if (!Refusal(probe, record.has_value()).empty()) return false;
  if (!record) {
    // Said even when quiet: the seat is about to fault.
    if (say && warned_missing_.insert(key).second) {
      std::cerr << "bot: match " << match_id << " seat " << seat << " decision "
                << decision_id
                << ": the referee holds a commitment this process does not "
                   "have (restarted without --state_dir?); the seat will "
                   "fault at the reveal deadline"
                << std::endl;
    }
    return false;
  }
  Resume(key, std::move(*record));
  return true;
}

void PlayClient::Resume(const Key& key, CommitmentRecord record) {
  const auto& [match_id, seat, decision_id] = key;
  Open(key, Pending{std::move(record.salt), std::move(record.action)});
  // As the kits say it.
  if (!options_.quiet) {
    std::cerr << "bot: match " << match_id << " seat " << seat << " decision "
              << decision_id << ": resuming the commitment kept in "
              << state_->path() << std::endl;
  }
}

void PlayClient::MakeRoom() {
  if (pending_.size() < options_.max_open_decisions) return;
  const bool owed = acked_lru_.empty();
  const std::list<Key>& lru = owed ? owed_lru_ : acked_lru_;
  if (lru.empty()) return;
  const Key key = lru.front();
  if (owed) {
    std::cerr << "bot: match " << std::get<0>(key) << " seat "
              << std::get<1>(key) << " decision " << std::get<2>(key)
              << ": dropping its commitment, whose reveal is owed, to make "
                 "room ("
              << options_.max_open_decisions
              << " decisions open at once, the bot's limit); "
              << (state_ ? absl::StrCat("its record in ", state_->path(),
                                        " answers it from now on, if there "
                                        "is one, else it is refused")
                         : "it is refused from now on")
              << "\n";
  }
  Forget(pending_.find(key));
}

void PlayClient::Decide(v1::DecisionRequest& request) {
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
  if (request.committed()) {
    // Resumed: the reveal will come. A commitment an earlier process of
    // this bot made is read back from the state directory now, or said
    // to be lost.
    if (!pending_.contains(key)) Recover(key, /*say=*/true);
    return;
  }
  // A request can arrive twice (around a reconnection, or after a referee
  // restart that lost the commit): commit again to the first choice,
  // whose salt any reveal must use.
  if (auto it = pending_.find(key); it != pending_.end()) {
    if (it->second.committed_on == streams_) {
      std::cerr << "bot: match " << request.match_id() << " seat "
                << request.seat() << " decision " << request.decision_id()
                << " asked again on the same stream; committed already\n";
      return;
    }
    Commit(key, request);
    return;
  }
  // A record on disk: an earlier process of this bot chose, and perhaps
  // committed, already (its reveal perhaps acknowledged, and lost by the
  // referee). The same commitment, never another.
  std::optional<CommitmentRecord> record;
  if (state_ &&
      !ended_matches_.contains({request.match_id(), request.seat()})) {
    record =
        state_->Load(request.match_id(), request.seat(), request.decision_id());
  }
  if (const std::string why = Refusal(request, record.has_value());
      !why.empty()) {
    std::cerr << "bot: refusing match \""
              << absl::CHexEscape(request.match_id()) << "\" seat "
              << request.seat() << " decision " << request.decision_id() << ": "
              << why << "\n";
    return;
  }
  const std::string& wanted = options_.game;
  if (!wanted.empty() && request.game() != wanted) {
    std::cerr << "bot: refusing a decision of game " << request.game() << "\n";
    return;
  }
  if (record) {
    Resume(key, std::move(*record));
    Commit(key, request);
    return;
  }
  v1::Action action;
  if (request.decision_id() == 0) {
    action.mutable_seed()->set_contribution(
        SystemRandomBytes(kSeedContributionSize));
    // Binds the log header the referee announced (docs/protocol.md).
    action.mutable_seed()->set_header_hash(request.header_hash());
  } else {
    action = strategy_->Choose(request, rng_);
  }
  const auto it = Open(
      key, Pending{SystemRandomBytes(kSaltSize), action.SerializeAsString()});
  if (state_) {
    // Durable before the commit leaves: a process started again before
    // the reveal reads it back (Recover).
    if (const absl::Status saved = state_->Save(
            request.match_id(), request.seat(), request.decision_id(),
            CommitmentRecord{it->second.salt, it->second.action});
        !saved.ok()) {
      std::cerr << "bot: match " << request.match_id() << " seat "
                << request.seat() << " decision " << request.decision_id()
                << ": cannot write its commitment to " << state_->path() << " ("
                << saved.message()
                << "); committing anyway: a restart before the reveal faults "
                   "the seat\n";
    }
  }
  Commit(key, request);
}

void PlayClient::Commit(const Key& key, const v1::DecisionRequest& request) {
  const auto it = pending_.find(key);
  Touch(it, false);  // Its reveal is owed (again).
  Pending& pending = it->second;
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
  const bool crashing = ++sent_commits_ == options_.crash_after_commits;
  if (request.acting_seats_size() == 1 && !crashing) Reveal(key);
}

void PlayClient::Reveal(const Key& key) {
  auto it = pending_.find(key);
  if (it == pending_.end()) return;  // Lost (a restarted bot), or dropped.
  if (it->second.revealed_on == streams_) return;
  it->second.revealed_on = streams_;
  Touch(it, it->second.acked);
  v1::PlayRequest message;
  v1::RevealMove* reveal = message.mutable_reveal();
  reveal->set_match_id(std::get<0>(key));
  reveal->set_seat(std::get<1>(key));
  reveal->set_decision_id(std::get<2>(key));
  reveal->set_salt(it->second.salt);
  reveal->set_action(it->second.action);
  outbox_.push_back(std::move(message));
}

}  // namespace pyramid
