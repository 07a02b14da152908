// The gRPC face of the referee (proto/.../referee_service.proto): the
// service's handlers. Each call's caller is authenticated once
// (call_auth.h) and checked, its raw request parsed (parse_request.h); its
// handler translates between gRPC and the Lobby / MatchHost, which hold the
// referee's logic, and answers with the status they return, code for code
// (grpc_status.h). The streams are served each by a file of its own: a
// Play call (play_stream.h), a Watch call (watch_stream.h) and a GetLog
// call's download (log_download.h); the service registers them, owns the
// completion queues and runners they run on, and keeps the counts of Watch
// and GetLog calls that ServiceLimits bounds.
#ifndef PYRAMID_REFEREE_SERVICE_REFEREE_SERVICE_H_
#define PYRAMID_REFEREE_SERVICE_REFEREE_SERVICE_H_

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/service/async_stream.h"
#include "referee/service/delayed_runner.h"
#include "referee/service/lobby.h"
#include "referee/service/messages.h"
#include "referee/service/peer_counts.h"
#include "referee/service/play_features.h"
#include "referee/service/serialized_message.h"
#include "referee/service/token.h"
#include "referee/service/write_stall.h"

namespace pyramid {

struct ServiceLimits {
  // Unsent messages a stream may queue before it is closed
  // RESOURCE_EXHAUSTED (a client that stopped reading); a bot's stream,
  // which carries every seat of the bot, may queue as many per seat when
  // that is more. (10,000 matches released at once send a bot of 3,000
  // seats two messages per seat before it can read any.)
  size_t max_queued_messages = 4096;
  size_t max_queued_messages_per_seat = 64;
  // Refused Play messages a stream may send in a burst, and how many more
  // it earns per second, before it is closed RESOURCE_EXHAUSTED; both per
  // seat the stream plays (a bot's stream: every seat assigned to the bot).
  double flood_burst = 64;
  double flood_refill_per_second = 16;
  // Whether Watch, GetMatch, ListMatches, the transparency log's calls and
  // GetLog of a finished match answer anyone (the default: they expose only
  // public views, and logs once their match is over, never a secret of a
  // running match). When false they need a token this referee issued
  // (admin, seat or bot): UNAUTHENTICATED otherwise.
  bool public_watch = true;
  // Spectators' Watch streams the referee serves at once, and per match:
  // one more is refused RESOURCE_EXHAUSTED. A spectator is any caller but
  // the admin token, whose streams (the operator's, the tournament
  // runner's) are neither refused nor counted, so that no number of
  // spectators keeps the runner from watching its matches.
  size_t max_watchers = 10000;
  size_t max_watchers_per_match = 1000;
  // Watch streams of callers without the admin token (anonymous
  // spectators, and holders of seat or bot tokens, which outlive their
  // matches) from one IP address at once: one more is refused
  // RESOURCE_EXHAUSTED, so that one client cannot hold every place, even
  // for the little while a stream it does not read lasts
  // (write_stall_timeout). Zero: no watcher without the admin token. Only
  // the admin token (the tournament runner's) is never limited so; Play
  // streams are not counted here.
  size_t max_watchers_per_peer = 100;
  // The same for the calls in progress of callers without the admin token,
  // from one IP address, each from its headers until done (its request may
  // not have come yet: one_request.h): unary calls (each holds its answer
  // until delivered, and a ListMatches page may be hundreds of KiB) and
  // GetLog downloads (each holds a place among max_log_readers, which the
  // tournament runner's admin token shares). At least 1.
  size_t max_calls_per_peer = 100;
  // Bytes of events a watcher may have unsent (besides the one being
  // written); one that falls further behind loses them and gets a fresh
  // snapshot instead (WatchSnapshot).
  size_t watch_queue_bytes = 32 << 10;
  // Bytes per GetLog chunk. A GetLog call holds one chunk of its log at a
  // time (read from the file as each write is done), whatever the log's
  // size.
  size_t log_chunk_bytes = 64 << 10;
  // GetLog calls the referee serves at once: one more is refused
  // UNAVAILABLE (retry with backoff). Each holds a chunk (twice: as read
  // and as sent) until its client takes it.
  size_t max_log_readers = 256;
  // Where GetLog says, for the operator, why it could not read a log it
  // was asked for: the log's path and the error (its caller is told the
  // file's name at most, never the directory: LogReadRefusal). An embedder
  // that takes the lobby's messages (LobbyOptions::messages) sets the same
  // sink here. Empty: stderr, a "referee: " line each.
  MessageSink messages;
  // A GetLog call whose client takes no chunk for this long (one that
  // stopped reading) is cancelled, so that clients that never read cannot
  // hold every place for good: once no write of it has finished for this
  // long (checked every quarter of it, so cancelled within about a quarter
  // of it after). Zero: never.
  absl::Duration log_stall_timeout = absl::Seconds(60);
  // Any other call (Play, Watch, health Watch, the unary calls) with a
  // write, or its Finish, in flight for this long (a client that takes
  // nothing, e.g. one that grants no HTTP/2 flow-control window) is
  // cancelled, so that it cannot keep its call, its memory and its place
  // for good (WriteStall; checked every quarter of it). A stream with
  // nothing in flight, waiting for its next event, is never cancelled.
  // So is a unary call, GetLog or health call whose request has not come
  // this long after its headers (one_request.h). Zero: never.
  absl::Duration write_stall_timeout = absl::Seconds(60);
  // How long a bot's "batch" Play stream holds back a message sent to it
  // while nothing else waits, gathering what follows into the same write
  // (docs/protocol.md, "Play stream features"). Zero: no wait.
  absl::Duration batch_linger = absl::Milliseconds(4);
  // Completion queues (each with its thread) the Play and Watch streams
  // are spread over (async_stream.h says why there are several).
  int play_queues = 8;
  // (How long a "batch" stream may wait for an acknowledgement is the
  // lobby's: LobbyOptions::ack_hold.)
};

// Play and Watch are served on gRPC's async API (AsyncBidiStream,
// AsyncWriterStream), every other method on its callback API, taken at its
// headers rather than once its request has come (one_request.h). Every method
// reads its request raw and parses it itself, so that a request that does not
// parse gets INVALID_ARGUMENT saying what was expected (with the typed API gRPC
// answers such a call without a useful status, and a Play message that does not
// parse would end the stream as if the client had half-closed). Play gets the
// documented in-band PlayError instead. Methods are registered by name, their
// index taken from the service descriptor. Responses stay typed; Play writes
// the PlayResponses its StreamWriter has serialized (SerializedMessage).
class RefereeService final : public referee::v1::Referee::Service {
 public:
  RefereeService(Lobby* lobby, ServiceLimits limits = {});
  // Stops the Play and Watch streams' queues (Stop).
  ~RefereeService() override;

  // Registers this service with `builder`, with the completion queues its
  // Play and Watch streams are served on. Call Start once the server is built,
  // and Stop after the server's Shutdown and before the server is destroyed
  // (the requests still waiting on the queues come back failed, and gRPC
  // then finalizes them against the server).
  void RegisterWith(grpc::ServerBuilder& builder);
  void Start();
  void Stop();

  // The guard of ServiceLimits::write_stall_timeout (null: zero), for the
  // health service to share; it lasts as long as the service.
  WriteStallGuard* write_stalls() const { return write_stalls_.get(); }
  // Spectators' Watch calls (without the admin token) not yet done.
  size_t watchers() const { return watching_.load(); }

  // Who makes the call of `context` (Authenticate's answer), for a stream
  // to ask once and hand to the checks below.
  absl::StatusOr<Principal> Caller(
      const grpc::ServerContextBase* context) const;

  // For a Watch whose caller is `caller` and does not hold the admin token
  // (anonymous, or a seat or bot token): counts it against its address's
  // ServiceLimits::max_watchers_per_peer into `slot`, or says why not
  // (RESOURCE_EXHAUSTED). OK, counting nothing, for the admin token.
  absl::Status CountNonAdminWatcher(const grpc::ServerContextBase* context,
                                    const absl::StatusOr<Principal>& caller,
                                    PeerSlot* slot) const;

  // For a unary call or a GetLog whose caller is `caller` (Authenticate's
  // answer, asked once per call) and does not hold the admin token: counts
  // it against its address's ServiceLimits::max_calls_per_peer into `slot`,
  // or says why not (RESOURCE_EXHAUSTED). OK, counting nothing, for the
  // admin token.
  absl::Status CountNonAdminCall(const grpc::ServerContextBase* context,
                                 const absl::StatusOr<Principal>& caller,
                                 PeerSlot* slot) const;

  // OK when `caller` may read matches (ServiceLimits::public_watch: anyone,
  // or a token holder).
  absl::Status CheckReader(const absl::StatusOr<Principal>& caller) const;

  // The base's generated synchronous methods (each answers UNIMPLEMENTED)
  // are never called: the constructor registers the callback handlers
  // below in their place (and Play's and Watch's async streams). Named here
  // so that the handlers, which share their names, overload them instead of
  // hiding them.
  using Service::CreateMatch;
  using Service::GetCheckpoint;
  using Service::GetConsistencyProof;
  using Service::GetInclusionProof;
  using Service::GetLog;
  using Service::GetMatch;
  using Service::ListMatches;
  using Service::RegisterBot;

  // GetLog, given who makes the call and its parsed request (its reactor is
  // the download's, or one that finishes it refused).
  grpc::ServerWriteReactor<referee::v1::LogChunk>* GetLog(
      grpc::CallbackServerContext* context,
      const absl::StatusOr<Principal>& caller,
      const referee::v1::GetLogRequest& request);

 private:
  // The unary methods of referee_service.proto, each given who makes the
  // call (`caller`: Authenticate's answer, asked once per call, by
  // RegisterUnary) and its parsed request. Each returns the status its call
  // finishes with, and fills `response` when that is OK; the call's reactor
  // is RegisterUnary's, which the handlers never see.
  absl::Status CreateMatch(const absl::StatusOr<Principal>& caller,
                           const referee::v1::CreateMatchRequest& request,
                           referee::v1::CreateMatchResponse* response);
  absl::Status RegisterBot(const absl::StatusOr<Principal>& caller,
                           const referee::v1::RegisterBotRequest& request,
                           referee::v1::RegisterBotResponse* response);
  absl::Status GetMatch(const absl::StatusOr<Principal>& caller,
                        const referee::v1::GetMatchRequest& request,
                        referee::v1::MatchInfo* response);
  absl::Status ListMatches(const absl::StatusOr<Principal>& caller,
                           const referee::v1::ListMatchesRequest& request,
                           referee::v1::ListMatchesResponse* response);
  absl::Status GetCheckpoint(const absl::StatusOr<Principal>& caller,
                             const referee::v1::GetCheckpointRequest& request,
                             referee::v1::TlogCheckpoint* response);
  absl::Status GetInclusionProof(
      const absl::StatusOr<Principal>& caller,
      const referee::v1::GetInclusionProofRequest& request,
      referee::v1::InclusionProof* response);
  absl::Status GetConsistencyProof(
      const absl::StatusOr<Principal>& caller,
      const referee::v1::GetConsistencyProofRequest& request,
      referee::v1::ConsistencyProof* response);
  // The lobby's transparency log for a request about its tree of
  // `tree_size` leaves, 0 for the latest tree (Lobby::TlogAsOf: the sealed
  // logs still waiting for their entry are entered first), or
  // FAILED_PRECONDITION; UNAUTHENTICATED for a caller that may not read
  // (CheckReader).
  absl::StatusOr<TransparencyLog*> Tlog(const absl::StatusOr<Principal>& caller,
                                        uint64_t tree_size) const;

  // Registers `handler` for the unary method `method` (its name in
  // referee_service.proto), taken at its headers (one_request.h). Each call
  // is authenticated once and counted (CountNonAdminCall) at its headers,
  // and given its reactor (OneRequestUnary: it holds the call's place until
  // done, cancels a call whose request does not come, or whose answer stays
  // unsent, for ServiceLimits::write_stall_timeout); once its raw request
  // has come, it is parsed and the handler runs; the reactor then finishes
  // the call with the handler's status (or the refusal's, or the parser's),
  // trailers included (AddTrailers).
  template <class Request, class Response>
  void RegisterUnary(
      const std::string& method,
      absl::Status (RefereeService::*handler)(const absl::StatusOr<Principal>&,
                                              const Request&, Response*));
  // The same for a server-streaming method (OneRequestStream), whose
  // handler's reactor serves the call once its request has come.
  template <class Request, class Response>
  void RegisterServerStreaming(
      const std::string& method,
      grpc::ServerWriteReactor<Response>* (RefereeService::*handler)(
          grpc::CallbackServerContext*, const absl::StatusOr<Principal>&,
          const Request&));
  // Posts a Play (Watch) stream that waits for the next call on `queue`.
  void WaitForPlay(grpc::ServerCompletionQueue* queue);
  void WaitForWatch(grpc::ServerCompletionQueue* queue);
  // A method's position in the service, as the generated code numbers
  // methods: its index in the service descriptor.
  static int MethodIndex(const std::string& method);

  Lobby* const lobby_;
  const ServiceLimits limits_;
  // limits_.messages for what GetLog says of a log it cannot read, at most
  // kLogRefusalLines per kLogRefusalWindow: anyone may ask for a log gone
  // from the disk, as often as they like.
  static constexpr int kLogRefusalLines = 10;
  static constexpr absl::Duration kLogRefusalWindow = absl::Minutes(1);
  const MessageSink log_refusals_;
  std::atomic<size_t> watching_{0};     // Spectators' Watch calls not done.
  std::atomic<size_t> log_readers_{0};  // GetLog calls not yet done.
  // Watch streams, and unary calls and GetLog downloads, of callers
  // without the admin token, per address.
  mutable PeerCounts watch_peers_;
  mutable PeerCounts call_peers_;
  // Ends the lingers of bots' "batch" Play streams (null: batch_linger is
  // zero).
  const std::unique_ptr<DelayedRunner> linger_;
  // Cancel GetLog calls that make no progress for log_stall_timeout, and
  // any other call whose write stays in flight for write_stall_timeout
  // (null: zero).
  const std::unique_ptr<WriteStallGuard> log_stalls_;
  const std::unique_ptr<WriteStallGuard> write_stalls_;
  // The Play and Watch streams' completion queues
  // (ServiceLimits::play_queues of them).
  CompletionQueues stream_queues_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_REFEREE_SERVICE_H_
