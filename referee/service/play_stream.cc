#include "referee/service/play_stream.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "referee/crypto/protocol.h"
#include "referee/service/call_auth.h"
#include "referee/service/connections.h"
#include "referee/service/flood_guard.h"
#include "referee/service/match_host.h"
#include "referee/service/match_id.h"
#include "referee/service/play_features.h"
#include "referee/service/scratch_arena.h"
#include "referee/service/serialized_message.h"
#include "referee/service/stream_writer.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// Whether the Play call's `pyramid-play-features` metadata (a comma-separated
// list; unknown names are ignored) names `feature`.
bool HasPlayFeature(const grpc::ServerContextBase* context,
                    absl::string_view feature) {
  const auto range = context->client_metadata().equal_range(kPlayFeatures);
  for (auto it = range.first; it != range.second; ++it) {
    for (absl::string_view name : absl::StrSplit(
             absl::string_view(it->second.data(), it->second.size()), ',')) {
      if (absl::StripAsciiWhitespace(name) == feature) return true;
    }
  }
  return false;
}

class PlayReactor;

// A Play stream's writer: its messages go out serialized (see StreamWriter),
// and it reports the features its client opted into. On a "batch" stream
// one write carries what is queued behind the write in flight, as a
// PlayResponse.batch of at most kMaxBatchMessages messages and (but for a
// single larger message) kMaxBatchBytes, and acknowledgements are taken
// late (holds_acknowledgements): a match holds a step that sends only
// those for its next one (MatchHost), so that a CommitAck goes out with
// the RevealRequest the other seats' commits bring, a RevealAck with the
// DecisionResult, and the held step's records are written with the next
// step's. A bot's batch stream, which carries many seats, also lingers
// (LingerWith): a message sent to it while nothing waits holds its writes
// back for the runner's delay, so that what follows goes out with it.
class PlayWriter final : public StreamWriter<SerializedMessage, PlayReactor,
                                             SerializedMessage, PlaySink>,
                         public std::enable_shared_from_this<PlayWriter> {
 public:
  static constexpr size_t kMaxBatchMessages = 256;
  static constexpr size_t kMaxBatchBytes = 256 * 1024;

  PlayWriter(PlayReactor* reactor, const ServiceLimits& limits,
             bool observation_once, bool batch)
      : StreamWriter(reactor, limits.max_queued_messages),
        max_queue_(limits.max_queued_messages),
        max_queue_per_seat_(limits.max_queued_messages_per_seat),
        observation_once_(observation_once),
        batch_(batch) {
    if (batch) JoinWrites(kMaxBatchMessages, kMaxBatchBytes);
  }
  bool observation_once() const override { return observation_once_; }

  void SetSeats(size_t seats) override {
    SetMaxQueue(std::max(max_queue_, max_queue_per_seat_ * seats));
  }

  // Makes a batch stream linger with `runner` (null: not at all). Call
  // before the stream is attached: no Send may race with it.
  void LingerWith(DelayedRunner* runner) {
    if (batch_) linger_ = runner;
  }

  bool holds_acknowledgements() const override { return batch_; }

  // A closed stream posts nothing: the service closes every stream before
  // it (and its runner) goes, while the lobby may still send.
  void Send(SerializedMessage message) override {
    if (linger_ != nullptr && !closed() && !lingering_.exchange(true)) {
      Cork();
      linger_->Post([writer = weak_from_this()] {
        if (std::shared_ptr<PlayWriter> self = writer.lock()) {
          self->lingering_ = false;
          self->Uncork();
        }
      });
    }
    StreamWriter::Send(std::move(message));
  }

 private:
  SerializedMessage Join(QueueIterator first,
                         QueueIterator last) const override {
    return SerializedMessage::Nest(v1::PlayResponse::kBatchFieldNumber,
                                   v1::PlayResponseBatch::kResponsesFieldNumber,
                                   first, last);
  }

  const size_t max_queue_;           // ServiceLimits::max_queued_messages
  const size_t max_queue_per_seat_;  // and its _per_seat.
  const bool observation_once_;
  const bool batch_;
  DelayedRunner* linger_ = nullptr;  // The service's; null: no linger.
  // A linger's Cork is in place (its Uncork is posted).
  std::atomic<bool> lingering_{false};
};

// One Play call. Created to wait for a call (AsyncBidiStream::Request); its
// client's token and features are read when the call comes.
class PlayReactor final : public AsyncBidiStream {
 public:
  PlayReactor(Lobby* lobby, const ServiceLimits& limits, DelayedRunner* linger,
              WriteStallGuard* stalls)
      : lobby_(lobby),
        limits_(limits),
        linger_(linger),
        stalls_(stalls),
        flood_(limits.flood_burst, limits.flood_refill_per_second) {}

 private:
  void OnStart() override {
    writer_ = std::make_shared<PlayWriter>(
        this, limits_, HasPlayFeature(context(), kObservationOnce),
        HasPlayFeature(context(), kBatch));
    writer_->WatchStalls(stalls_, context());
    absl::StatusOr<Principal> principal = Authenticate(context(), *lobby_);
    if (principal.ok() && principal->kind == Principal::Kind::kAdmin) {
      principal = absl::PermissionDeniedError(
          "the admin token plays no seat; use a seat or bot token");
    }
    if (!principal.ok()) {
      writer_->Close(static_cast<int>(principal.status().code()),
                     std::string(principal.status().message()));
      return;
    }
    route_ = principal->route;
    principal_ = *principal;
    if (principal->kind == Principal::Kind::kBot) {
      bot_id_ = principal->bot_id;
      writer_->LingerWith(linger_);
      // The lobby updates it as matches give the bot seats.
      writer_->SetSeats(lobby_->BotSeatCount(bot_id_));
    }
    lobby_->connections().Attach(route_, writer_);
    for (const auto& [host, seat] : lobby_->SeatsOf(*principal)) {
      host->SendOwedTo(seat);
    }
    ReadNext();
  }

  // Reads the client's next message, unless the stream is closing: a seat
  // token's stream that was sent its match's end (MatchEnded, or why the
  // match broke; just now if the match was over before the stream came),
  // or one closed for another reason.
  // Nothing read then would be answered, and the stream's Finish may
  // already be under way.
  void ReadNext() {
    if (!writer_->closed()) StartRead(&read_buffer_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // The client closed its side (or the call is gone).
      writer_->Close(grpc::StatusCode::OK, "");
      return;
    }
    // Parsed on a scratch arena (a batch is dozens of small messages and
    // strings), which this call ends: a request kept between reads would
    // hold its last commit and reveal for the life of the stream.
    ScratchArena scratch;
    v1::PlayRequest& request = scratch.Make<v1::PlayRequest>();
    const bool parsed = grpc::SerializationTraits<v1::PlayRequest>::Deserialize(
                            &read_buffer_, &request)
                            .ok();
    const bool go_on =
        parsed ? Handle(request)
               : Refuse("", 0, 0,
                        absl::InvalidArgumentError(
                            "malformed message: not a PlayRequest"));
    if (go_on) ReadNext();
  }

  void OnWriteDone(bool ok) override { writer_->OnWriteDone(ok); }

  void OnCancel() override {
    writer_->Close(grpc::StatusCode::CANCELLED, "cancelled");
  }

  void OnDone() override {
    writer_->Detach();
    if (route_ != 0) lobby_->connections().Detach(route_, writer_.get());
    delete this;
  }

  // Handles one client message; false when the stream is being closed.
  bool Handle(const v1::PlayRequest& request) {
    if (request.kind_case() != v1::PlayRequest::kBatch) {
      return HandleMove(request);
    }
    if (request.batch().requests().empty()) {
      return Refuse("", 0, 0, absl::InvalidArgumentError("empty batch"));
    }
    // What the batch causes for this stream goes out in as few writes as
    // it can (the acknowledgements, at least).
    writer_->Cork();
    bool go_on = true;
    for (const v1::PlayRequest& inner : request.batch().requests()) {
      go_on = inner.kind_case() == v1::PlayRequest::kBatch
                  ? Refuse("", 0, 0,
                           absl::InvalidArgumentError("a batch in a batch"))
                  : HandleMove(inner);
      if (!go_on) break;
    }
    writer_->Uncork();
    return go_on;
  }

  // Handles one commit or reveal.
  bool HandleMove(const v1::PlayRequest& request) {
    const bool is_commit = request.kind_case() == v1::PlayRequest::kCommit;
    if (!is_commit && request.kind_case() != v1::PlayRequest::kReveal) {
      return Refuse("", 0, 0, absl::InvalidArgumentError("empty PlayRequest"));
    }
    const std::string& match_id =
        is_commit ? request.commit().match_id() : request.reveal().match_id();
    const uint32_t seat =
        is_commit ? request.commit().seat() : request.reveal().seat();
    const uint64_t decision_id = is_commit ? request.commit().decision_id()
                                           : request.reveal().decision_id();
    // A seat's stream plays one match, a bot's often several moves of one
    // in a row: the last match found is asked first. Another id is judged
    // by its form first, as every call that takes one does
    // (CheckMatchIdForm): one longer than a match id is not sent back in
    // the PlayError, which would otherwise make the referee queue a copy of
    // each such message (up to the largest it takes) for a client that
    // need not read them.
    if (last_match_ == nullptr || last_match_->match_id() != match_id) {
      if (absl::Status form = CheckMatchIdForm(match_id); !form.ok()) {
        return Refuse(match_id.size() > 2 * kMatchIdSize ? "" : match_id, seat,
                      decision_id, form);
      }
      last_match_ = lobby_->FindMatch(match_id, &principal_);
    }
    const std::shared_ptr<MatchHost>& host = last_match_;
    if (host == nullptr) {
      return Refuse(match_id, seat, decision_id,
                    absl::NotFoundError("unknown match"));
    }
    if (!Holds(*host, seat)) {
      return Refuse(
          match_id, seat, decision_id,
          absl::PermissionDeniedError("this token does not play that seat"));
    }
    const bool accepted = is_commit ? host->Commit(seat, request.commit())
                                    : host->Reveal(seat, request.reveal());
    return accepted || Strike();
  }

  // Whether this stream's principal plays `seat`: the seat is routed to it
  // (a seat token's seat, or a bot's).
  bool Holds(const MatchHost& host, uint32_t seat) const {
    return seat < static_cast<uint32_t>(host.num_seats()) &&
           host.seat(seat).route == route_;
  }

  bool Refuse(const std::string& match_id, uint32_t seat, uint64_t decision,
              const absl::Status& status) {
    v1::PlayResponse response;
    v1::PlayError* error = response.mutable_error();
    error->set_match_id(match_id);
    error->set_seat(seat);
    error->set_decision_id(decision);
    error->set_code(static_cast<int>(status.code()));
    error->set_message(std::string(status.message()));
    writer_->Send(SerializedMessage::Of(response));
    return Strike();
  }

  // Counts a refused message; closes the stream when the client floods.
  bool Strike() {
    if (flood_.Strike(bot_id_.empty() ? 1 : lobby_->BotSeatCount(bot_id_))) {
      return true;
    }
    v1::PlayResponse response;
    response.mutable_error()->set_code(
        static_cast<int>(absl::StatusCode::kResourceExhausted));
    response.mutable_error()->set_message(
        "too many refused messages: closing the stream");
    writer_->Send(SerializedMessage::Of(response));
    writer_->Close(grpc::StatusCode::RESOURCE_EXHAUSTED,
                   "too many refused messages");
    return false;
  }

  Lobby* const lobby_;
  const ServiceLimits& limits_;    // The service's.
  DelayedRunner* const linger_;    // The service's; null: no linger.
  WriteStallGuard* const stalls_;  // The service's; null: none.
  FloodGuard flood_;
  std::shared_ptr<PlayWriter> writer_;  // Made when the call comes.
  // The principal's Principal::route; 0 when unauthenticated.
  uint64_t route_ = 0;
  Principal principal_;  // Whom it plays for (kNone before OnStart).
  std::string bot_id_;   // A bot's stream: the bot's id.
  std::shared_ptr<MatchHost> last_match_;  // Of the last move (null: none).
  grpc::ByteBuffer read_buffer_;
};

}  // namespace

AsyncBidiStream* NewPlayStream(Lobby* lobby, const ServiceLimits& limits,
                               DelayedRunner* linger, WriteStallGuard* stalls) {
  return new PlayReactor(lobby, limits, linger, stalls);
}

}  // namespace pyramid
