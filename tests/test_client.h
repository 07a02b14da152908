// Test-only clients of the referee service (proto/.../referee_service.proto)
// for tests/service_test.cc, tests/e2e_test.cc, tests/hidden_info_test.cc
// and tests/hostile_client_test.cc: a Play client that sends arbitrary
// bytes and records every message it receives, an optional honest
// auto-player inside it, a random player for long games of single-seat
// decisions, a Watch client, calls whose request is any bytes, and helpers
// to read and verify logs.
//
// Every client can append what it receives to a shared EventLog, which puts
// the messages of all clients in one order (the order their reader threads
// got them), so a test can ask "did anything reach anyone before X".
#ifndef PYRAMID_TESTS_TEST_CLIENT_H_
#define PYRAMID_TESTS_TEST_CLIENT_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/random_stream.h"
#include "replay/verifier.h"

namespace pyramid::svctest {

namespace v1 = ::pyramid::referee::v1;

// How long a test waits for something that should happen (generous: the
// test machine is shared). Nothing waits this long when the code is right.
inline constexpr absl::Duration kWait = absl::Seconds(15);

// Every message received by the clients that share it, in one order.
class EventLog {
 public:
  struct Event {
    uint64_t seq = 0;  // 1, 2, ... in the order received.
    absl::Time at;
    std::string who;  // The receiving client's name.
    std::string raw;  // The message bytes.
    std::optional<v1::PlayResponse> play;
    std::optional<v1::WatchEvent> watch;
  };
  // Stores `event` and returns the seq it was given.
  uint64_t Add(Event event);
  std::vector<Event> Snapshot() const;

 private:
  mutable std::mutex mu_;
  std::vector<Event> events_;
};

// A move prepared for commit-reveal.
struct Move {
  std::string salt;    // 32 random bytes.
  std::string action;  // The serialized Action.
};
Move NewMove(const v1::Action& action);
v1::Action SeedAction();  // 32 random bytes of seed contribution.
v1::Action Piece(v1::RppColour colour, v1::RppSize size);

v1::PlayRequest CommitMsg(const std::string& match_id, uint32_t seat,
                          uint64_t decision_id, const Move& move);
v1::PlayRequest RevealMsg(const std::string& match_id, uint32_t seat,
                          uint64_t decision_id, const Move& move);

using Pred = std::function<bool(const v1::PlayResponse&)>;
Pred IsDecision(const std::string& match_id, uint32_t seat, uint64_t decision);
Pred IsRevealRequest(const std::string& match_id, uint32_t seat,
                     uint64_t decision);
Pred IsCommitAck(const std::string& match_id, uint32_t seat, uint64_t decision);
Pred IsRevealAck(const std::string& match_id, uint32_t seat, uint64_t decision);
Pred IsResult(const std::string& match_id, uint32_t seat, uint64_t decision);
Pred IsEnded(const std::string& match_id, uint32_t seat);
// A PlayError; `code` -1 matches any code.
Pred IsError(const std::string& match_id, uint32_t seat, uint64_t decision,
             int code = -1);
Pred IsAnyError(int code = -1);

// One Play stream, sending raw bytes (so it can send what no stub would).
// A reader thread records every message. Thread-safe.
class PlayClient {
 public:
  // `token` empty: no authorization metadata; `authorization` set: that
  // exact metadata value instead of "Bearer <token>". `features`, when not
  // empty, is sent as the pyramid-play-features metadata.
  PlayClient(std::shared_ptr<grpc::Channel> channel, const std::string& token,
             std::string name = "play", EventLog* log = nullptr,
             std::optional<std::string> authorization = std::nullopt,
             const std::string& features = "");
  ~PlayClient();  // Disconnects.
  PlayClient(const PlayClient&) = delete;
  PlayClient& operator=(const PlayClient&) = delete;

  // Writes one message; false once the stream is gone.
  bool Send(const v1::PlayRequest& request);
  bool SendRaw(const std::string& bytes);

  // The first message ever received that matches `pred`, waiting for it.
  std::optional<v1::PlayResponse> Await(const Pred& pred,
                                        absl::Duration timeout = kWait);
  // Waits until `n` received messages match `pred`; false on timeout.
  bool AwaitCount(const Pred& pred, int n, absl::Duration timeout = kWait);
  int Count(const Pred& pred) const;
  // Every message received, in order; a PlayResponse.batch counts as the
  // messages it carries.
  std::vector<v1::PlayResponse> Messages() const;
  // How many messages each batch received carried, in order.
  std::vector<int> BatchSizes() const;
  // Waits until more than `n` messages were received or the stream ended
  // (or `timeout` passed), then returns the messages after the first `n`.
  std::vector<v1::PlayResponse> AwaitAfter(size_t n,
                                           absl::Duration timeout = kWait);
  // The EventLog seq of the first message matching `pred` (0: none).
  uint64_t SeqOf(const Pred& pred) const;

  // Waits until the server ends the stream and returns its status
  // (DEADLINE_EXCEEDED here on timeout).
  grpc::Status AwaitEnd(absl::Duration timeout = kWait);
  bool ended() const;
  // Drops the connection as a crashing client would.
  void Disconnect();
  // Closes the sending side (a half-close: WritesDone); reading goes on.
  bool CloseSending();

  // Plays like an honest bot from now on: commits (the seed, or one of the
  // listed legal actions) to every DecisionRequest of a decision in
  // [start_at, stop_at) and reveals on request. Messages already received
  // are answered too.
  void AutoPlay(uint64_t start_at = 0,
                uint64_t stop_at = std::numeric_limits<uint64_t>::max());

  // Salts and seed contributions this client has sent (secrets that must
  // never reach anyone else).
  std::vector<std::string> Secrets() const;

 private:
  void ReadLoop();
  // Under mu_: answers `message` if auto-playing.
  void AutoAnswer(const v1::PlayResponse& message);
  bool WriteLocked(const std::string& bytes);
  // Records the salts and seeds `request` reveals (in a batch too).
  void NoteSecrets(const v1::PlayRequest& request);

  const std::shared_ptr<grpc::Channel> channel_;
  const std::string name_;
  EventLog* const log_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>>
      stream_;

  std::mutex write_mu_;  // Serialises writes and Finish.
  bool finished_ = false;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::pair<uint64_t, v1::PlayResponse>> received_;
  std::vector<int> batch_sizes_;
  bool ended_ = false;
  grpc::Status status_;
  bool auto_ = false;
  uint64_t start_at_ = 0;
  uint64_t stop_at_ = 0;
  std::map<std::tuple<std::string, uint32_t, uint64_t>, Move> pending_;
  std::vector<std::string> secrets_;

  std::thread reader_;
};

// Plays every seat a client is sent, honestly, until destroyed: commits to
// each DecisionRequest (the seed, or a listed legal action drawn from a
// stream keyed by `seed`) and reveals once, right after the commit in a
// single-seat decision, else on the RevealRequest. Unlike
// PlayClient::AutoPlay it never repeats a reveal, which the referee refuses
// and, over a long game of single-seat decisions, counts as a flood.
// Destroy it before its client.
class RandomPlayer {
 public:
  RandomPlayer(PlayClient& client, const Digest& seed);
  ~RandomPlayer();
  RandomPlayer(const RandomPlayer&) = delete;
  RandomPlayer& operator=(const RandomPlayer&) = delete;

 private:
  void Run();
  void Answer(const v1::PlayResponse& message);

  PlayClient& client_;
  RandomStream stream_;
  // Committed, not yet revealed.
  std::map<std::tuple<std::string, uint32_t, uint64_t>, Move> pending_;
  std::set<std::tuple<std::string, uint32_t, uint64_t>> committed_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// One Watch stream; records every event.
class WatchClient {
 public:
  WatchClient(std::shared_ptr<grpc::Channel> channel,
              const std::string& match_id, std::string name = "watch",
              EventLog* log = nullptr);
  ~WatchClient();

  std::vector<v1::WatchEvent> Events() const;
  // Whether an event `pred` holds for arrives within `timeout`; false as
  // soon as the stream ends without one.
  bool AwaitEvent(const std::function<bool(const v1::WatchEvent&)>& pred,
                  absl::Duration timeout = kWait);
  grpc::Status AwaitEnd(absl::Duration timeout = kWait);

 private:
  const std::shared_ptr<grpc::Channel> channel_;
  const std::string name_;
  EventLog* const log_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> reader_stream_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<v1::WatchEvent> events_;
  bool ended_ = false;
  grpc::Status status_;
  std::thread reader_;
};

// Raw messages, for the services whose .proto Debian does not ship
// (health, reflection): bytes <-> ByteBuffer, and the length-delimited
// fields numbered `number` of a message given as bytes.
grpc::ByteBuffer ToBuffer(const std::string& bytes);
std::string FromBuffer(const grpc::ByteBuffer& buffer);
std::vector<std::string> Fields(const std::string& message, int number);

// grpc.health.v1.Health/Check for `service` ("": the server as a whole): the
// ServingStatus number (1 = SERVING, 2 = NOT_SERVING), or -1 when the call
// fails (NOT_FOUND for a service the server does not serve).
int HealthStatus(const std::shared_ptr<grpc::Channel>& channel,
                 const std::string& service = "");
// The services server reflection (grpc.reflection.v1alpha) lists.
std::set<std::string> ReflectedServices(
    const std::shared_ptr<grpc::Channel>& channel);

// Adds "authorization: Bearer <token>" (nothing for an empty token).
void Authorize(grpc::ClientContext& context, const std::string& token);

// The log of a match via GetLog (`token` may be empty).
grpc::Status FetchLog(v1::Referee::Stub& stub, const std::string& match_id,
                      const std::string& token, std::string* bytes);

// A call of the Referee's unary `method` (its name: "GetMatch") whose
// request is `request` as it is, bytes that need not parse (what no stub
// would send), with `token` ("": no authorization): its status
// (DEADLINE_EXCEEDED after kWait).
grpc::Status RawRefereeCall(const std::shared_ptr<grpc::Channel>& channel,
                            const std::string& method,
                            const std::string& request,
                            const std::string& token = "");
// The same of a server-streaming `method` ("Watch"), read to its end: the
// status it ends with; `*responses` counts the messages it sent before.
grpc::Status RawRefereeStream(const std::shared_ptr<grpc::Channel>& channel,
                              const std::string& method,
                              const std::string& request,
                              const std::string& token, int* responses);

// Every complete record of a log file's bytes, parsed.
std::vector<v1::LogRecord> ParseRecords(const std::string& bytes);
// VerifyLog with the referee key pinned.
Verdict VerifyBytes(const std::string& bytes, const std::string& public_key);

}  // namespace pyramid::svctest

#endif  // PYRAMID_TESTS_TEST_CLIENT_H_
