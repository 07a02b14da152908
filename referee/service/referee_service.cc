#include "referee/service/referee_service.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "google/protobuf/descriptor.h"
#include "referee/crypto/protocol.h"
#include "referee/service/file_range.h"
#include "referee/service/scratch_arena.h"
#include "referee/service/stream_writer.h"
#include "referee/tlog/checkpoint.h"
#include "referee/tlog/note.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// The principal named by the call's "authorization: Bearer <token>"
// metadata; UNAUTHENTICATED when it is missing or unknown.
absl::StatusOr<Principal> Authenticate(const grpc::ServerContextBase* context,
                                       const Lobby& lobby) {
  const auto& metadata = context->client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return absl::UnauthenticatedError("missing authorization metadata");
  }
  const std::string value(it->second.data(), it->second.size());
  std::optional<std::string> token = BearerToken(value);
  if (!token) {
    return absl::UnauthenticatedError(
        "authorization must be \"Bearer <token>\"");
  }
  std::optional<Principal> principal = lobby.Authenticate(*token);
  if (!principal) return absl::UnauthenticatedError("unknown token");
  return *principal;
}

absl::Status RequireAdmin(grpc::CallbackServerContext* context,
                          const Lobby& lobby) {
  absl::StatusOr<Principal> principal = Authenticate(context, lobby);
  if (!principal.ok()) return principal.status();
  if (principal->kind != Principal::Kind::kAdmin) {
    return absl::PermissionDeniedError("this call needs the admin token");
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* Reply(grpc::CallbackServerContext* context,
                                const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpc(status));
  return reactor;
}

// Parses a raw request; INVALID_ARGUMENT naming the message expected.
template <class Request>
absl::Status ParseRequest(const grpc::ByteBuffer& raw, Request* request) {
  grpc::ByteBuffer copy(raw);  // Deserialize consumes its buffer.
  if (grpc::SerializationTraits<Request>::Deserialize(&copy, request).ok()) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "malformed request: not a ", Request::descriptor()->full_name(),
      " (the bytes do not parse as protobuf)"));
}

// A server stream refused before it starts: finishes with `status`.
template <class Response>
class FailedWriteReactor final : public grpc::ServerWriteReactor<Response> {
 public:
  explicit FailedWriteReactor(const absl::Status& status) {
    this->Finish(ToGrpc(status));
  }
  void OnDone() override { delete this; }
};

// Refused messages a stream may send: a token bucket, per seat the stream
// plays (a bot's stream carries hundreds; when its matches go wrong each
// seat may be refused a late message or two, which is no flood).
class FloodGuard {
 public:
  FloodGuard(double burst, double refill_per_second)
      : burst_(burst), refill_(refill_per_second), last_(absl::Now()) {}
  // Counts one refused message of a stream playing `seats` seats (at least
  // 1); false when that takes it past its allowance.
  bool Strike(size_t seats) {
    const double scale = static_cast<double>(std::max<size_t>(seats, 1));
    const absl::Time now = absl::Now();
    // Refusals not yet forgiven, which drain at the refill rate: kept as a
    // debt rather than tokens left, so that the allowance follows the
    // seats as they come and go.
    debt_ = std::max(
        0.0, debt_ - refill_ * scale * absl::ToDoubleSeconds(now - last_));
    last_ = now;
    if (debt_ + 1 > burst_ * scale) return false;
    debt_ += 1;
    return true;
  }

 private:
  const double burst_;
  const double refill_;
  double debt_ = 0;
  absl::Time last_;
};

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
  PlayReactor(Lobby* lobby, const ServiceLimits& limits, DelayedRunner* linger)
      : lobby_(lobby),
        limits_(limits),
        linger_(linger),
        flood_(limits.flood_burst, limits.flood_refill_per_second) {}

 private:
  void OnStart() override {
    writer_ = std::make_shared<PlayWriter>(
        this, limits_, HasPlayFeature(context(), kObservationOnce),
        HasPlayFeature(context(), kBatch));
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
      host->Resume(seat);
    }
    StartRead(&read_buffer_);
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
    if (go_on) StartRead(&read_buffer_);
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
    // Longer than a match id (32 hex digits): no match, and not sent back
    // in the PlayError, which would otherwise make the referee queue a copy
    // of each such message (up to the largest it takes) for a client that
    // need not read them.
    if (match_id.size() > 2 * kMatchIdSize) {
      return Refuse(
          "", seat, decision_id,
          absl::InvalidArgumentError(absl::StrCat(
              "match_id: ", 2 * kMatchIdSize, " lower-case hex digits, not ",
              match_id.size(), " bytes")));
    }
    // A seat's stream plays one match, a bot's often several moves of one
    // in a row: the last match found is asked first.
    if (last_match_ == nullptr || last_match_->match_id() != match_id) {
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
  const ServiceLimits& limits_;  // The service's.
  DelayedRunner* const linger_;  // The service's; null: no linger.
  FloodGuard flood_;
  std::shared_ptr<PlayWriter> writer_;  // Made when the call comes.
  // The principal's Principal::route; 0 when unauthenticated.
  uint64_t route_ = 0;
  Principal principal_;  // Whom the stream plays for (its token's).
  std::string bot_id_;   // A bot's stream: the bot's id.
  std::shared_ptr<MatchHost> last_match_;  // Of the last move (null: none).
  grpc::ByteBuffer read_buffer_;
};

// One Watch call, served on the Play streams' completion queues
// (AsyncWriterStream). It counts against ServiceLimits::max_watchers from
// its start to its OnDone (`watching` is the service's count); its events
// reach it serialized, shared with the match's other watchers.
class WatchReactor final : public AsyncWriterStream {
 public:
  WatchReactor(const RefereeService* service, Lobby* lobby,
               const ServiceLimits& limits, std::atomic<size_t>* watching)
      : service_(service),
        lobby_(lobby),
        limits_(limits),
        watching_(watching) {}

 private:
  using WatchWriter =
      StreamWriter<SerializedMessage, WatchReactor, SerializedMessage>;

  void OnStart() override {
    writer_ = std::make_shared<WatchWriter>(this, limits_.max_queued_messages,
                                            limits_.watch_queue_bytes);
    v1::WatchRequest watch;
    if (absl::Status s = ParseRequest(request(), &watch); !s.ok()) {
      writer_->Close(static_cast<int>(s.code()), std::string(s.message()));
      return;
    }
    request().Clear();
    if (absl::Status s = service_->CheckReader(context()); !s.ok()) {
      writer_->Close(static_cast<int>(s.code()), std::string(s.message()));
      return;
    }
    counted_ = true;
    if (watching_->fetch_add(1) >= limits_.max_watchers) {
      writer_->Close(grpc::StatusCode::RESOURCE_EXHAUSTED,
                     limits_.max_watchers == 0
                         ? "this referee takes no watchers (--max_watchers=0)"
                         : absl::StrCat("this referee already serves ",
                                        limits_.max_watchers,
                                        " watchers, as many as it takes "
                                        "(--max_watchers)"));
      return;
    }
    std::shared_ptr<MatchHost> host = lobby_->FindMatch(watch.match_id());
    if (host == nullptr) {
      writer_->Close(grpc::StatusCode::NOT_FOUND, "unknown match");
      return;
    }
    if (absl::Status added =
            host->AddWatcher(writer_, limits_.max_watchers_per_match);
        !added.ok()) {
      writer_->Close(static_cast<int>(added.code()),
                     std::string(added.message()));
    }
  }
  void OnWriteDone(bool ok) override { writer_->OnWriteDone(ok); }
  void OnCancel() override {
    writer_->Close(grpc::StatusCode::CANCELLED, "cancelled");
  }
  void OnDone() override {
    writer_->Detach();
    if (counted_) watching_->fetch_sub(1);
    delete this;
  }

  const RefereeService* const service_;
  Lobby* const lobby_;
  const ServiceLimits& limits_;  // The service's.
  std::atomic<size_t>* const watching_;
  std::shared_ptr<WatchWriter> writer_;  // Made when the call comes.
  bool counted_ = false;                 // In `watching`.
};

// One GetLog call: the `size` bytes its log file held when the call came (a
// running match's log grows meanwhile), read one chunk at a time as each
// write is done, and the file opened only for that read. A call thus holds
// one chunk of the log, whatever the log's size, and no file descriptor
// while its client is slow to read. It counts against
// ServiceLimits::max_log_readers (`reading` is the service's count) until
// its OnDone. With a `stalls` runner (whose delay is a quarter of
// `stall_timeout`), a call whose client took no chunk for `stall_timeout`
// (no write finished since the last or, before the first, since the call
// came) is cancelled: checked once per delay, by a check that posts the
// next (one pending check per call), so within about a quarter of
// `stall_timeout` after it passes.
class LogReactor final : public grpc::ServerWriteReactor<v1::LogChunk> {
 public:
  LogReactor(grpc::CallbackServerContext* context, std::string path,
             uint64_t size, size_t chunk_bytes, std::atomic<size_t>* reading,
             DelayedRunner* stalls, absl::Duration stall_timeout)
      : path_(std::move(path)),
        size_(size),
        chunk_bytes_(std::max<size_t>(chunk_bytes, 1)),
        reading_(reading),
        progress_(std::make_shared<Progress>(context)) {
    if (stalls != nullptr) CheckProgress(stalls, stall_timeout, progress_);
    WriteNext();
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "stream broken"));
      return;
    }
    {
      absl::MutexLock lock(&progress_->mu);
      progress_->last_write_done = absl::Now();
    }
    WriteNext();
  }
  void OnDone() override {
    {
      absl::MutexLock lock(&progress_->mu);
      // A check's TryCancel under way uses the context, which lasts until
      // this returns: wait for it.
      progress_->mu.Await(absl::Condition(
          +[](bool* cancelling) { return !*cancelling; },
          &progress_->cancelling));
      progress_->context = nullptr;
    }
    reading_->fetch_sub(1);
    delete this;
  }

 private:
  // What the stall checks see of the call; outlives it.
  struct Progress {
    explicit Progress(grpc::CallbackServerContext* context)
        : context(context) {}
    absl::Mutex mu;
    // The call's, until its OnDone (then null).
    grpc::CallbackServerContext* context ABSL_GUARDED_BY(mu);
    // A check is calling context->TryCancel() (without `mu`): OnDone waits
    // until it is false, so that the context outlives the call.
    bool cancelling ABSL_GUARDED_BY(mu) = false;
    // When the last write finished (at first: when the call came).
    absl::Time last_write_done ABSL_GUARDED_BY(mu) = absl::Now();
  };

  // After `stalls`' delay: cancels the call if no write has finished for
  // `timeout`, else checks again after the next delay.
  static void CheckProgress(DelayedRunner* stalls, absl::Duration timeout,
                            std::shared_ptr<Progress> progress) {
    stalls->Post([stalls, timeout, progress = std::move(progress)] {
      grpc::CallbackServerContext* context = nullptr;
      {
        absl::MutexLock lock(&progress->mu);
        if (progress->context == nullptr) return;  // Done.
        if (absl::Now() - progress->last_write_done < timeout) {
          CheckProgress(stalls, timeout, progress);
          return;
        }
        context = progress->context;
        progress->cancelling = true;
      }
      // The contract: TryCancel is called without `mu`, so that whatever
      // it runs inline (an OnCancel, say) may take `mu`; the context stays
      // valid meanwhile because OnDone, after which gRPC frees it, waits
      // for `cancelling` to clear. This relies on gRPC never running OnDone
      // within TryCancel (it runs OnDone on its own threads, once every
      // operation and OnCancel are done), else OnDone would wait on itself.
      // The write in flight ends (not ok), and the call with it.
      context->TryCancel();
      absl::MutexLock lock(&progress->mu);
      progress->cancelling = false;
    });
  }

  void WriteNext() {
    if (offset_ >= size_) {
      Finish(grpc::Status::OK);
      return;
    }
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(chunk_bytes_, size_ - offset_));
    if (absl::Status read =
            ReadFileRange(path_, offset_, n, chunk_.mutable_data());
        !read.ok()) {
      Finish(ToGrpc(read));
      return;
    }
    offset_ += n;
    StartWrite(&chunk_);
  }

  const std::string path_;
  const uint64_t size_;
  const size_t chunk_bytes_;
  std::atomic<size_t>* const reading_;
  const std::shared_ptr<Progress> progress_;
  uint64_t offset_ = 0;  // Of the next chunk.
  v1::LogChunk chunk_;   // The one being written.
};

}  // namespace

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  absl::string_view message = status.message();
  if (message.size() <= kMaxStatusMessageBytes) {
    return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                        std::string(message));
  }
  // Cut on a character's first byte (UTF-8), and say so.
  size_t cut = kMaxStatusMessageBytes;
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      absl::StrCat(message.substr(0, cut), "... (",
                                   message.size() - cut, " more bytes cut)"));
}

int RefereeService::MethodIndex(const std::string& method) {
  const google::protobuf::MethodDescriptor* descriptor =
      google::protobuf::DescriptorPool::generated_pool()
          ->FindServiceByName(v1::Referee::service_full_name())
          ->FindMethodByName(method);
  // Only our own method names reach here: a typo is a bug, caught by every
  // test that starts a service.
  if (descriptor == nullptr) std::abort();
  return descriptor->index();
}

template <class Request, class Response>
void RefereeService::RegisterUnary(
    const std::string& method,
    grpc::ServerUnaryReactor* (RefereeService::*handler)(
        grpc::CallbackServerContext*, const Request*, Response*)) {
  MarkMethodRawCallback(
      MethodIndex(method),
      new grpc::internal::CallbackUnaryHandler<grpc::ByteBuffer, Response>(
          [this, handler](grpc::CallbackServerContext* context,
                          const grpc::ByteBuffer* raw, Response* response) {
            // Every handler finishes before it returns, so the parsed
            // request may live on this stack.
            Request request;
            if (absl::Status parsed = ParseRequest(*raw, &request);
                !parsed.ok()) {
              return Reply(context, parsed);
            }
            return (this->*handler)(context, &request, response);
          }));
}

template <class Request, class Response>
void RefereeService::RegisterServerStreaming(
    const std::string& method,
    grpc::ServerWriteReactor<Response>* (RefereeService::*handler)(
        grpc::CallbackServerContext*, const Request*)) {
  MarkMethodRawCallback(
      MethodIndex(method),
      new grpc::internal::CallbackServerStreamingHandler<grpc::ByteBuffer,
                                                         Response>(
          [this, handler](grpc::CallbackServerContext* context,
                          const grpc::ByteBuffer* raw)
              -> grpc::ServerWriteReactor<Response>* {
            // Reactors copy what they keep of the request.
            Request request;
            absl::Status parsed = ParseRequest(*raw, &request);
            // gRPC keeps the request's bytes until the stream is done:
            // released here, so that a stream opened with a request padded
            // (unknown fields, up to the largest message taken) holds none
            // of them. (The buffer is gRPC's own, not const; gRPC destroys
            // an emptied one as any other.)
            const_cast<grpc::ByteBuffer*>(raw)->Clear();
            if (!parsed.ok()) return new FailedWriteReactor<Response>(parsed);
            return (this->*handler)(context, &request);
          }));
}

RefereeService::RefereeService(Lobby* lobby, ServiceLimits limits)
    : lobby_(lobby),
      limits_(limits),
      linger_(limits.batch_linger > absl::ZeroDuration()
                  ? std::make_unique<DelayedRunner>(limits.batch_linger)
                  : nullptr),
      log_stalls_(
          limits.log_stall_timeout > absl::ZeroDuration()
              // A check every quarter of the timeout; a check may run a
              // little early, which only delays a cancellation.
              ? std::make_unique<DelayedRunner>(
                    limits.log_stall_timeout / 4,
                    std::min(absl::Seconds(1), limits.log_stall_timeout / 16))
              : nullptr),
      play_queues_(std::max(limits.play_queues, 1)) {
  RegisterUnary("CreateMatch", &RefereeService::CreateMatch);
  RegisterUnary("RegisterBot", &RefereeService::RegisterBot);
  // Async (its streams are AsyncBidiStreams, requested in WaitForPlay), and
  // raw: a stream reads grpc::ByteBuffers.
  MarkMethodRaw(MethodIndex("Play"));
  // Async on the same queues (WatchReactor, requested in WaitForWatch),
  // and raw: gRPC reads the request into a grpc::ByteBuffer.
  MarkMethodRaw(MethodIndex("Watch"));
  RegisterUnary("GetMatch", &RefereeService::GetMatch);
  RegisterUnary("ListMatches", &RefereeService::ListMatches);
  RegisterServerStreaming("GetLog", &RefereeService::GetLog);
  RegisterUnary("GetCheckpoint", &RefereeService::GetCheckpoint);
  RegisterUnary("GetInclusionProof", &RefereeService::GetInclusionProof);
  RegisterUnary("GetConsistencyProof", &RefereeService::GetConsistencyProof);
}

grpc::ServerUnaryReactor* RefereeService::CreateMatch(
    grpc::CallbackServerContext* context, const v1::CreateMatchRequest* request,
    v1::CreateMatchResponse* response) {
  if (absl::Status s = RequireAdmin(context, *lobby_); !s.ok()) {
    return Reply(context, s);
  }
  absl::StatusOr<v1::CreateMatchResponse> created =
      lobby_->CreateMatch(*request);
  if (created.ok()) *response = *std::move(created);
  return Reply(context, created.status());
}

grpc::ServerUnaryReactor* RefereeService::RegisterBot(
    grpc::CallbackServerContext* context, const v1::RegisterBotRequest* request,
    v1::RegisterBotResponse* response) {
  if (absl::Status s = RequireAdmin(context, *lobby_); !s.ok()) {
    return Reply(context, s);
  }
  absl::StatusOr<v1::RegisterBotResponse> registered =
      lobby_->RegisterBot(*request);
  if (registered.ok()) *response = *std::move(registered);
  return Reply(context, registered.status());
}

RefereeService::~RefereeService() { Stop(); }

void RefereeService::RegisterWith(grpc::ServerBuilder& builder) {
  builder.RegisterService(this);
  play_queues_.AddTo(builder);
}

void RefereeService::Start() {
  play_queues_.Start([this](grpc::ServerCompletionQueue* queue) {
    // Two waiting per queue, so that a burst of calls (every seat of a
    // tournament connecting at once) finds one while the next is posted.
    WaitForPlay(queue);
    WaitForPlay(queue);
    WaitForWatch(queue);
    WaitForWatch(queue);
  });
}

void RefereeService::Stop() { play_queues_.Shutdown(); }

void RefereeService::WaitForWatch(grpc::ServerCompletionQueue* queue) {
  static const int kWatch = MethodIndex("Watch");
  auto* stream = new WatchReactor(this, lobby_, limits_, &watching_);
  stream->Request(
      [this](grpc::ServerContext* context, grpc::ByteBuffer* request,
             grpc::ServerAsyncWriter<grpc::ByteBuffer>* call,
             grpc::CompletionQueue* call_queue,
             grpc::ServerCompletionQueue* queue, void* tag) {
        RequestAsyncServerStreaming(kWatch, context, request, call, call_queue,
                                    queue, tag);
      },
      &play_queues_, queue, [this, queue] { WaitForWatch(queue); });
}

void RefereeService::WaitForPlay(grpc::ServerCompletionQueue* queue) {
  static const int kPlay = MethodIndex("Play");
  auto* stream = new PlayReactor(lobby_, limits_, linger_.get());
  stream->Request(
      [this](grpc::ServerContext* context, grpc::ByteBuffer* /*request*/,
             grpc::GenericServerAsyncReaderWriter* call,
             grpc::CompletionQueue* call_queue,
             grpc::ServerCompletionQueue* queue, void* tag) {
        RequestAsyncBidiStreaming(kPlay, context, call, call_queue, queue, tag);
      },
      &play_queues_, queue, [this, queue] { WaitForPlay(queue); });
}

absl::Status RefereeService::CheckReader(
    const grpc::ServerContextBase* context) const {
  if (limits_.public_watch) return absl::OkStatus();
  absl::StatusOr<Principal> principal = Authenticate(context, *lobby_);
  if (principal.ok()) return absl::OkStatus();
  return absl::UnauthenticatedError(
      absl::StrCat("this referee serves matches to its token holders only "
                   "(--public_watch=false): ",
                   principal.status().message()));
}

grpc::ServerUnaryReactor* RefereeService::GetMatch(
    grpc::CallbackServerContext* context, const v1::GetMatchRequest* request,
    v1::MatchInfo* response) {
  if (absl::Status s = CheckReader(context); !s.ok()) return Reply(context, s);
  std::shared_ptr<MatchHost> host = lobby_->FindMatch(request->match_id());
  if (host == nullptr) {
    return Reply(context, absl::NotFoundError("unknown match"));
  }
  *response = host->Info(lobby_->connections());
  return Reply(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* RefereeService::ListMatches(
    grpc::CallbackServerContext* context, const v1::ListMatchesRequest* request,
    v1::ListMatchesResponse* response) {
  if (absl::Status s = CheckReader(context); !s.ok()) return Reply(context, s);
  absl::StatusOr<v1::ListMatchesResponse> list = lobby_->ListMatches(*request);
  if (list.ok()) *response = *std::move(list);
  return Reply(context, list.status());
}

grpc::ServerWriteReactor<v1::LogChunk>* RefereeService::GetLog(
    grpc::CallbackServerContext* context, const v1::GetLogRequest* request) {
  // A log holds more than GetMatch shows (every hand, once it is over): a
  // referee that answers GetMatch only to its token holders serves logs
  // only to them too.
  using Failed = FailedWriteReactor<v1::LogChunk>;
  if (absl::Status s = CheckReader(context); !s.ok()) return new Failed(s);
  std::shared_ptr<MatchHost> host = lobby_->FindMatch(request->match_id());
  if (host == nullptr) {
    return new Failed(absl::NotFoundError("unknown match"));
  }
  if (!host->finished()) {
    absl::StatusOr<Principal> principal = Authenticate(context, *lobby_);
    if (!principal.ok() || principal->kind != Principal::Kind::kAdmin) {
      return new Failed(absl::FailedPreconditionError(
          "the match is still running; its log (which holds the seed) is "
          "served before the end only with the admin token"));
    }
  }
  if (log_readers_.fetch_add(1) >= limits_.max_log_readers) {
    log_readers_.fetch_sub(1);
    // UNAVAILABLE, as CreateMatch beyond --max_live_matches: a place
    // frees as soon as a download ends, and clients retry UNAVAILABLE
    // with backoff (the tournament runner does).
    return new Failed(absl::UnavailableError(absl::StrCat(
        "this referee already serves ", limits_.max_log_readers,
        " GetLog calls, as many as it takes at once (--max_log_readers); "
        "retry with backoff")));
  }
  absl::StatusOr<uint64_t> size = RegularFileSize(host->log_path());
  if (!size.ok()) {
    log_readers_.fetch_sub(1);
    return new Failed(size.status());
  }
  return new LogReactor(context, host->log_path(), *size,
                        limits_.log_chunk_bytes, &log_readers_,
                        log_stalls_.get(), limits_.log_stall_timeout);
}

absl::StatusOr<TransparencyLog*> RefereeService::Tlog(
    grpc::CallbackServerContext* context) const {
  if (absl::Status s = CheckReader(context); !s.ok()) return s;
  if (lobby_->transparency_log() == nullptr) {
    return absl::FailedPreconditionError(
        "this referee keeps no transparency log");
  }
  return lobby_->transparency_log();
}

grpc::ServerUnaryReactor* RefereeService::GetCheckpoint(
    grpc::CallbackServerContext* context,
    const v1::GetCheckpointRequest* request, v1::TlogCheckpoint* response) {
  absl::StatusOr<TransparencyLog*> tlog = Tlog(context);
  if (!tlog.ok()) return Reply(context, tlog.status());
  absl::StatusOr<std::string> note = (*tlog)->Checkpoint(request->tree_size());
  if (!note.ok()) return Reply(context, note.status());
  absl::StatusOr<tlog::Checkpoint> checkpoint =
      tlog::OpenCheckpoint(*note, (*tlog)->verifier());
  if (!checkpoint.ok()) return Reply(context, checkpoint.status());
  response->set_note(*note);
  response->set_tree_size(checkpoint->size);
  response->set_root_hash(std::string(AsView(checkpoint->root)));
  response->set_verifier_key(tlog::FormatVerifierKey((*tlog)->verifier()));
  return Reply(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* RefereeService::GetInclusionProof(
    grpc::CallbackServerContext* context,
    const v1::GetInclusionProofRequest* request, v1::InclusionProof* response) {
  absl::StatusOr<TransparencyLog*> tlog = Tlog(context);
  if (!tlog.ok()) return Reply(context, tlog.status());
  std::string key;
  switch (request->log_case()) {
    case v1::GetInclusionProofRequest::kMatchId:
      key = request->match_id();
      break;
    case v1::GetInclusionProofRequest::kLogSha256:
      if (request->log_sha256().size() != 32) {
        return Reply(context,
                     absl::InvalidArgumentError("log_sha256 must be 32 bytes"));
      }
      key = ToHex(request->log_sha256());
      break;
    default:
      return Reply(context, absl::InvalidArgumentError(
                                "name the log: match_id or log_sha256"));
  }
  absl::StatusOr<TlogLeaf> leaf = (*tlog)->FindLeaf(key);
  if (!leaf.ok()) return Reply(context, leaf.status());
  absl::StatusOr<tlog::TlogProof> proof =
      (*tlog)->InclusionProof(*leaf, request->tree_size());
  if (!proof.ok()) return Reply(context, proof.status());
  absl::StatusOr<tlog::Checkpoint> checkpoint =
      tlog::OpenCheckpoint(proof->checkpoint, (*tlog)->verifier());
  if (!checkpoint.ok()) return Reply(context, checkpoint.status());
  response->set_match_id(leaf->match_id);
  response->set_log_sha256(std::string(AsView(leaf->log_sha256)));
  response->set_leaf_index(leaf->index);
  response->set_tree_size(checkpoint->size);
  for (const Digest& hash : proof->hashes) {
    response->add_hashes(std::string(AsView(hash)));
  }
  response->set_checkpoint(proof->checkpoint);
  response->set_tlog_proof(tlog::FormatTlogProof(*proof));
  return Reply(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* RefereeService::GetConsistencyProof(
    grpc::CallbackServerContext* context,
    const v1::GetConsistencyProofRequest* request,
    v1::ConsistencyProof* response) {
  absl::StatusOr<TransparencyLog*> tlog = Tlog(context);
  if (!tlog.ok()) return Reply(context, tlog.status());
  absl::StatusOr<std::vector<Digest>> hashes =
      (*tlog)->ConsistencyProof(request->old_size(), request->new_size());
  if (!hashes.ok()) return Reply(context, hashes.status());
  response->set_old_size(request->old_size());
  response->set_new_size(request->new_size());
  for (const Digest& hash : *hashes) {
    response->add_hashes(std::string(AsView(hash)));
  }
  response->set_proof_file(tlog::FormatConsistencyProof(
      {request->old_size(), request->new_size(), *hashes}));
  return Reply(context, absl::OkStatus());
}

}  // namespace pyramid
