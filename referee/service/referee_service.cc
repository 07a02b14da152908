#include "referee/service/referee_service.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "referee/crypto/protocol.h"
#include "referee/service/call_auth.h"
#include "referee/service/file_range.h"
#include "referee/service/grpc_status.h"
#include "referee/service/log_download.h"
#include "referee/service/match_host.h"
#include "referee/service/match_id.h"
#include "referee/service/one_request.h"
#include "referee/service/parse_request.h"
#include "referee/service/play_stream.h"
#include "referee/service/watch_stream.h"
#include "referee/tlog/checkpoint.h"
#include "referee/tlog/note.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// Whether `caller` holds the admin token.
bool IsAdmin(const absl::StatusOr<Principal>& caller) {
  return caller.ok() && caller->kind == Principal::Kind::kAdmin;
}

// OK when `caller` holds the admin token.
absl::Status RequireAdmin(const absl::StatusOr<Principal>& caller) {
  if (!caller.ok()) return caller.status();
  if (caller->kind != Principal::Kind::kAdmin) {
    return absl::PermissionDeniedError("this call needs the admin token");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Principal> RefereeService::Caller(
    const grpc::ServerContextBase* context) const {
  return Authenticate(context, *lobby_);
}

absl::Status RefereeService::CountNonAdminWatcher(
    const grpc::ServerContextBase* context,
    const absl::StatusOr<Principal>& caller, PeerSlot* slot) const {
  if (IsAdmin(caller)) return absl::OkStatus();
  if (watch_peers_.TryAdd(context->peer(), limits_.max_watchers_per_peer,
                          slot)) {
    return absl::OkStatus();
  }
  if (limits_.max_watchers_per_peer == 0) {
    return absl::ResourceExhaustedError(
        "this referee takes no watchers without the admin token "
        "(--max_watchers_per_peer=0)");
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "this referee already serves ", limits_.max_watchers_per_peer,
      " watchers without the admin token from your address, as many as it "
      "takes (--max_watchers_per_peer); end one first"));
}

absl::Status RefereeService::CountNonAdminCall(
    const grpc::ServerContextBase* context,
    const absl::StatusOr<Principal>& caller, PeerSlot* slot) const {
  if (IsAdmin(caller) ||
      call_peers_.TryAdd(context->peer(), limits_.max_calls_per_peer, slot)) {
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "this referee already has ", limits_.max_calls_per_peer,
      " calls without the admin token from your address in progress (unary "
      "calls and GetLog downloads), as many as it takes "
      "(--max_calls_per_peer); retry once one is done"));
}

namespace {

// A server stream refused before it starts: finishes with `status`.
template <class Response>
class FailedWriteReactor final : public grpc::ServerWriteReactor<Response> {
 public:
  explicit FailedWriteReactor(const absl::Status& status) {
    this->Finish(ToGrpc(status));
  }
  void OnDone() override { delete this; }
};

}  // namespace

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
    absl::Status (RefereeService::*handler)(const absl::StatusOr<Principal>&,
                                            const Request&, Response*)) {
  auto start = [this, handler](grpc::CallbackServerContext* context)
      -> OneRequestReactorBase<Response>* {
    const absl::StatusOr<Principal> caller = Authenticate(context, *lobby_);
    // A caller without the admin token has at most max_calls_per_peer
    // calls in progress from its address, each counted from its headers
    // until done: the call's reactor holds its place.
    PeerSlot slot;
    const absl::Status admitted = CountNonAdminCall(context, caller, &slot);
    AddTrailers(admitted, *context);
    return new OneRequestUnary<Response>(
        context, write_stalls_.get(), std::move(slot), ToGrpc(admitted),
        [this, handler, context, caller](grpc::ByteBuffer* raw,
                                         Response* response) {
          Request request;
          absl::Status status = ParseRequest(*raw, &request);
          // Released before the handler runs (the reactor would after).
          raw->Clear();
          if (status.ok()) status = (this->*handler)(caller, request, response);
          AddTrailers(status, *context);
          return ToGrpc(status);
        });
  };
  const int index = MethodIndex(method);
  MarkMethodStreamed(index, OneRequestHandler<Response>(start));
  MarkMethodRawCallback(index, OneRequestHandler<Response>(start));
}

template <class Request, class Response>
void RefereeService::RegisterServerStreaming(
    const std::string& method,
    grpc::ServerWriteReactor<Response>* (RefereeService::*handler)(
        grpc::CallbackServerContext*, const absl::StatusOr<Principal>&,
        const Request&)) {
  auto start = [this, handler](grpc::CallbackServerContext* context)
      -> OneRequestReactorBase<Response>* {
    // Counted from its headers, as a unary call (RegisterUnary): a caller
    // without the admin token (anonymous, or with a seat or bot token, which
    // outlives its match) has at most max_calls_per_peer calls in progress
    // from its address, GetLog downloads included: --max_log_readers is
    // shared with the tournament runner's admin token, which one client
    // must not be able to take every place of.
    const absl::StatusOr<Principal> caller = Authenticate(context, *lobby_);
    PeerSlot slot;
    const absl::Status admitted = CountNonAdminCall(context, caller, &slot);
    return new OneRequestStream<Response>(
        context, write_stalls_.get(), std::move(slot), ToGrpc(admitted),
        [this, handler, context,
         caller](grpc::ByteBuffer* raw) -> grpc::ServerWriteReactor<Response>* {
          // Reactors copy what they keep of the request.
          Request request;
          absl::Status parsed = ParseRequest(*raw, &request);
          // Released here, so that a stream opened with a request padded
          // (unknown fields, up to the largest message taken) holds none of
          // it.
          raw->Clear();
          if (!parsed.ok()) return new FailedWriteReactor<Response>(parsed);
          return (this->*handler)(context, caller, request);
        });
  };
  const int index = MethodIndex(method);
  MarkMethodStreamed(index, OneRequestHandler<Response>(start));
  MarkMethodRawCallback(index, OneRequestHandler<Response>(start));
}

RefereeService::RefereeService(Lobby* lobby, ServiceLimits limits)
    : lobby_(lobby),
      limits_(limits),
      log_refusals_(
          LimitedSink(limits.messages, kLogRefusalLines, kLogRefusalWindow)),
      linger_(limits.batch_linger > absl::ZeroDuration()
                  ? std::make_unique<DelayedRunner>(limits.batch_linger)
                  : nullptr),
      log_stalls_(
          limits.log_stall_timeout > absl::ZeroDuration()
              ? std::make_unique<WriteStallGuard>(limits.log_stall_timeout)
              : nullptr),
      write_stalls_(
          limits.write_stall_timeout > absl::ZeroDuration()
              ? std::make_unique<WriteStallGuard>(limits.write_stall_timeout)
              : nullptr),
      stream_queues_(std::max(limits.play_queues, 1)) {
  RegisterUnary("CreateMatch", &RefereeService::CreateMatch);
  RegisterUnary("RegisterBot", &RefereeService::RegisterBot);
  // Async (its streams are AsyncBidiStreams, requested in WaitForPlay), and
  // raw: a stream reads grpc::ByteBuffers.
  MarkMethodRaw(MethodIndex("Play"));
  // Async on the same queues (watch_stream.h, requested in WaitForWatch),
  // and raw: gRPC reads the request into a grpc::ByteBuffer.
  MarkMethodRaw(MethodIndex("Watch"));
  RegisterUnary("GetMatch", &RefereeService::GetMatch);
  RegisterUnary("ListMatches", &RefereeService::ListMatches);
  RegisterServerStreaming("GetLog", &RefereeService::GetLog);
  RegisterUnary("GetCheckpoint", &RefereeService::GetCheckpoint);
  RegisterUnary("GetInclusionProof", &RefereeService::GetInclusionProof);
  RegisterUnary("GetConsistencyProof", &RefereeService::GetConsistencyProof);
}

absl::Status RefereeService::CreateMatch(
    const absl::StatusOr<Principal>& caller,
    const v1::CreateMatchRequest& request, v1::CreateMatchResponse* response) {
  if (absl::Status s = RequireAdmin(caller); !s.ok()) return s;
  absl::StatusOr<v1::CreateMatchResponse> created =
      lobby_->CreateMatch(request);
  if (created.ok()) *response = *std::move(created);
  return created.status();
}

absl::Status RefereeService::RegisterBot(
    const absl::StatusOr<Principal>& caller,
    const v1::RegisterBotRequest& request, v1::RegisterBotResponse* response) {
  if (absl::Status s = RequireAdmin(caller); !s.ok()) return s;
  absl::StatusOr<v1::RegisterBotResponse> registered =
      lobby_->RegisterBot(request);
  if (registered.ok()) *response = *std::move(registered);
  return registered.status();
}

RefereeService::~RefereeService() { Stop(); }

void RefereeService::RegisterWith(grpc::ServerBuilder& builder) {
  builder.RegisterService(this);
  stream_queues_.AddTo(builder);
}

void RefereeService::Start() {
  stream_queues_.Start([this](grpc::ServerCompletionQueue* queue) {
    // Two waiting per queue, so that a burst of calls (every seat of a
    // tournament connecting at once) finds one while the next is posted.
    WaitForPlay(queue);
    WaitForPlay(queue);
    WaitForWatch(queue);
    WaitForWatch(queue);
  });
}

void RefereeService::Stop() { stream_queues_.Shutdown(); }

void RefereeService::WaitForWatch(grpc::ServerCompletionQueue* queue) {
  static const int kWatch = MethodIndex("Watch");
  AsyncWriterStream* stream = NewWatchStream(this, lobby_, limits_, &watching_);
  stream->Request(
      [this](grpc::ServerContext* context, grpc::ByteBuffer* request,
             grpc::ServerAsyncWriter<grpc::ByteBuffer>* call,
             grpc::CompletionQueue* call_queue,
             grpc::ServerCompletionQueue* queue, void* tag) {
        RequestAsyncServerStreaming(kWatch, context, request, call, call_queue,
                                    queue, tag);
      },
      &stream_queues_, queue, [this, queue] { WaitForWatch(queue); });
}

void RefereeService::WaitForPlay(grpc::ServerCompletionQueue* queue) {
  static const int kPlay = MethodIndex("Play");
  AsyncBidiStream* stream =
      NewPlayStream(lobby_, limits_, linger_.get(), write_stalls_.get());
  stream->Request(
      [this](grpc::ServerContext* context, grpc::ByteBuffer* /*request*/,
             grpc::GenericServerAsyncReaderWriter* call,
             grpc::CompletionQueue* call_queue,
             grpc::ServerCompletionQueue* queue, void* tag) {
        RequestAsyncBidiStreaming(kPlay, context, call, call_queue, queue, tag);
      },
      &stream_queues_, queue, [this, queue] { WaitForPlay(queue); });
}

absl::Status RefereeService::CheckReader(
    const absl::StatusOr<Principal>& caller) const {
  if (limits_.public_watch || caller.ok()) return absl::OkStatus();
  return absl::UnauthenticatedError(
      absl::StrCat("this referee serves matches to its token holders only "
                   "(--public_watch=false): ",
                   caller.status().message()));
}

absl::Status RefereeService::GetMatch(const absl::StatusOr<Principal>& caller,
                                      const v1::GetMatchRequest& request,
                                      v1::MatchInfo* response) {
  if (absl::Status s = CheckReader(caller); !s.ok()) return s;
  if (absl::Status s = CheckMatchIdForm(request.match_id()); !s.ok()) return s;
  std::shared_ptr<MatchHost> host = lobby_->FindMatch(request.match_id());
  if (host == nullptr) {
    return absl::NotFoundError("unknown match");
  }
  *response = host->Info(lobby_->connections());
  return absl::OkStatus();
}

absl::Status RefereeService::ListMatches(
    const absl::StatusOr<Principal>& caller,
    const v1::ListMatchesRequest& request, v1::ListMatchesResponse* response) {
  if (absl::Status s = CheckReader(caller); !s.ok()) return s;
  absl::StatusOr<v1::ListMatchesResponse> list = lobby_->ListMatches(request);
  if (list.ok()) *response = *std::move(list);
  return list.status();
}

grpc::ServerWriteReactor<v1::LogChunk>* RefereeService::GetLog(
    grpc::CallbackServerContext* context,
    const absl::StatusOr<Principal>& caller, const v1::GetLogRequest& request) {
  // A log holds more than GetMatch shows (every hand, once it is over): a
  // referee that answers GetMatch only to its token holders serves logs
  // only to them too.
  using Failed = FailedWriteReactor<v1::LogChunk>;
  if (absl::Status s = CheckReader(caller); !s.ok()) return new Failed(s);
  if (absl::Status s = CheckMatchIdForm(request.match_id()); !s.ok()) {
    return new Failed(s);
  }
  std::shared_ptr<MatchHost> host = lobby_->FindMatch(request.match_id());
  if (host == nullptr) {
    return new Failed(absl::NotFoundError("unknown match"));
  }
  if (!host->finished()) {
    if (!RequireAdmin(caller).ok()) {
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
  // A known match whose log cannot be read is no unknown match (NOT_FOUND,
  // above): its log is gone from the referee's disk (DATA_LOSS), or the
  // referee is short of descriptors now (UNAVAILABLE, try again). The
  // caller is told the log's file name at most; the operator, the path.
  absl::StatusOr<uint64_t> size = RegularFileSize(host->log_path());
  if (!size.ok()) {
    log_readers_.fetch_sub(1);
    return new Failed(LogReadRefusal(request.match_id(), host->log_path(),
                                     size.status(), log_refusals_));
  }
  return NewLogDownload(context, request.match_id(), host->log_path(), *size,
                        limits_.log_chunk_bytes, &log_refusals_, &log_readers_,
                        log_stalls_.get(), PeerSlot());
}

absl::StatusOr<TransparencyLog*> RefereeService::Tlog(
    const absl::StatusOr<Principal>& caller, uint64_t tree_size) const {
  if (absl::Status s = CheckReader(caller); !s.ok()) return s;
  return lobby_->TlogAsOf(tree_size);
}

absl::Status RefereeService::GetCheckpoint(
    const absl::StatusOr<Principal>& caller,
    const v1::GetCheckpointRequest& request, v1::TlogCheckpoint* response) {
  absl::StatusOr<TransparencyLog*> tlog = Tlog(caller, request.tree_size());
  if (!tlog.ok()) return tlog.status();
  absl::StatusOr<std::string> note = (*tlog)->Checkpoint(request.tree_size());
  if (!note.ok()) return note.status();
  absl::StatusOr<tlog::Checkpoint> checkpoint =
      tlog::OpenCheckpoint(*note, (*tlog)->verifier());
  if (!checkpoint.ok()) return checkpoint.status();
  response->set_note(*note);
  response->set_tree_size(checkpoint->size);
  response->set_root_hash(std::string(AsView(checkpoint->root)));
  response->set_verifier_key(tlog::FormatVerifierKey((*tlog)->verifier()));
  return absl::OkStatus();
}

absl::Status RefereeService::GetInclusionProof(
    const absl::StatusOr<Principal>& caller,
    const v1::GetInclusionProofRequest& request, v1::InclusionProof* response) {
  // Against the latest tree (0), a log still waiting for its entry is
  // entered before it is looked for: its match has ended, and the latest
  // checkpoint covers it.
  absl::StatusOr<TransparencyLog*> tlog = Tlog(caller, request.tree_size());
  if (!tlog.ok()) return tlog.status();
  std::string key;
  switch (request.log_case()) {
    case v1::GetInclusionProofRequest::kMatchId:
      if (absl::Status s = CheckMatchIdForm(request.match_id()); !s.ok())
        return s;
      key = request.match_id();
      break;
    case v1::GetInclusionProofRequest::kLogSha256:
      if (request.log_sha256().size() != 32) {
        return absl::InvalidArgumentError("log_sha256 must be 32 bytes");
      }
      key = ToHex(request.log_sha256());
      break;
    default:
      return absl::InvalidArgumentError("name the log: match_id or log_sha256");
  }
  absl::StatusOr<TlogLeaf> leaf = (*tlog)->FindLeaf(key);
  if (absl::IsNotFound(leaf.status()) &&
      request.log_case() == v1::GetInclusionProofRequest::kMatchId) {
    // A match that ended sealed whose entry could not be made yet (the
    // transparency log's disk full, its database locked): not unknown, and
    // not for good.
    if (std::shared_ptr<MatchHost> host = lobby_->FindMatch(request.match_id());
        host != nullptr &&
        host->Info(lobby_->connections()).status() == v1::MATCH_FINISHED) {
      return absl::UnavailableError(absl::StrCat(
          "match ", request.match_id(),
          " has ended and its log is sealed, but its entry in the "
          "transparency log is not made yet (the referee tries again at "
          "each match's end and checkpoint round; its stderr says why): "
          "try again later"));
    }
  }
  if (!leaf.ok()) return leaf.status();
  absl::StatusOr<tlog::TlogProof> proof =
      (*tlog)->InclusionProof(*leaf, request.tree_size());
  if (!proof.ok()) return proof.status();
  absl::StatusOr<tlog::Checkpoint> checkpoint =
      tlog::OpenCheckpoint(proof->checkpoint, (*tlog)->verifier());
  if (!checkpoint.ok()) return checkpoint.status();
  response->set_match_id(leaf->match_id);
  response->set_log_sha256(std::string(AsView(leaf->log_sha256)));
  response->set_leaf_index(leaf->index);
  response->set_tree_size(checkpoint->size);
  for (const Digest& hash : proof->hashes) {
    response->add_hashes(std::string(AsView(hash)));
  }
  response->set_checkpoint(proof->checkpoint);
  response->set_tlog_proof(tlog::FormatTlogProof(*proof));
  return absl::OkStatus();
}

absl::Status RefereeService::GetConsistencyProof(
    const absl::StatusOr<Principal>& caller,
    const v1::GetConsistencyProofRequest& request,
    v1::ConsistencyProof* response) {
  // Between two given sizes, never the latest: a new_size of 0 is refused
  // below, and enters nothing here.
  absl::StatusOr<TransparencyLog*> tlog =
      Tlog(caller, std::max<uint64_t>(request.new_size(), 1));
  if (!tlog.ok()) return tlog.status();
  absl::StatusOr<std::vector<Digest>> hashes =
      (*tlog)->ConsistencyProof(request.old_size(), request.new_size());
  if (!hashes.ok()) return hashes.status();
  response->set_old_size(request.old_size());
  response->set_new_size(request.new_size());
  for (const Digest& hash : *hashes) {
    response->add_hashes(std::string(AsView(hash)));
  }
  response->set_proof_file(tlog::FormatConsistencyProof(
      {request.old_size(), request.new_size(), *hashes}));
  return absl::OkStatus();
}

}  // namespace pyramid
