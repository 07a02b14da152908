// bench_load's Play streams: PlayStream, one stream of the referee phase
// (a seat token's, or a bot token's carrying every seat of that bot), the
// seats it plays (SeatState: commit-reveal, random legal moves, think
// times, each decision's latency) and MatchTiming, when a match's decision
// had its last acting seat ready. LoadPhase (load_phase.h) opens them and
// counts what they report.
#ifndef PYRAMID_TOOLS_BENCH_LOAD_PLAY_STREAM_H_
#define PYRAMID_TOOLS_BENCH_LOAD_PLAY_STREAM_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/arena.h"
#include "grpcpp/alarm.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "tools/bench_load/client.h"

namespace pyramid::bench_load {

class LoadPhase;
class PlayStream;

// When the last acting seat of a match's decision was ready to commit, for
// the decision latency without the other seats' think time. Seats of one
// match may be on different threads. Two slots: a seat's result of decision
// d comes before its request of d + 1, so d + 2 cannot open before every
// seat has had its result of d.
class MatchTiming {
 public:
  void Ready(uint64_t decision, Clock::time_point now) {
    std::lock_guard<std::mutex> lock(mu_);
    Slot& slot = slots_[decision % 2];
    if (slot.decision != decision) {
      slot = {decision, now};
    } else {
      slot.last_ready = std::max(slot.last_ready, now);
    }
  }
  std::optional<Clock::time_point> LastReady(uint64_t decision) {
    std::lock_guard<std::mutex> lock(mu_);
    const Slot& slot = slots_[decision % 2];
    if (slot.decision != decision) return std::nullopt;
    return slot.last_ready;
  }

 private:
  struct Slot {
    uint64_t decision = ~uint64_t{0};
    Clock::time_point last_ready;
  };
  std::mutex mu_;
  Slot slots_[2];
};

// One seat of one match as the client plays it: commit-reveal, random legal
// moves. It belongs to the PlayStream that carries it and is touched only
// on that stream's worker thread.
struct SeatState final : public Handler {
  SeatState(PlayStream* stream, MatchTiming* timing,
            const std::string& match_id, uint32_t seat);
  void OnEvent(int kind, bool ok) override;  // Its think time is over.

  // A uniform pseudo-random wait in [0, max_us] microseconds.
  int64_t NextThinkUs(int64_t max_us);

  PlayStream* const stream;
  MatchTiming* const timing;  // The phase's, for this match.
  const std::string match_id;
  const std::string raw_match_id;
  const uint32_t seat;
  uint64_t think_rng;
  // The move chosen for a decision, not yet sent: its commit, prepared as
  // the request arrives (the request itself, with its view and legal
  // actions, is not kept while the seat thinks).
  struct Move {
    uint64_t decision = 0;
    bool committed = false;    // The referee already holds the commitment.
    bool single_seat = false;  // Reveal right after the commit.
    std::string commitment;    // CommitMove.commitment.
  };
  // The move this seat holds back: parked until the release, or being
  // thought about.
  std::optional<Move> waiting;
  std::optional<uint64_t> last_decision;  // Duplicates are ignored.
  // A DecisionResult (with the seat's view) came since the last request.
  bool result_seen = false;
  bool ended = false;
  // The pending reveal.
  uint64_t reveal_decision = 0;
  bool reveal_pending = false;
  std::string salt;
  std::string action_bytes;
  // Latency of the open decision (only decisions taken after the release).
  uint64_t timed_decision = 0;
  std::optional<Clock::time_point> decision_start;
  Tag think_tag{this, 0};  // The end of its think time (Worker::After).
};

// One Play stream: a seat token's (one seat of one match) or a bot
// token's (every seat of that bot in every match; messages name the match
// and seat). Its seats are made as their first message arrives. All its
// events arrive on one worker's queue (one thread).
class PlayStream final : public Handler {
 public:
  enum Kind { kStart, kRead, kWrite, kWritesDone, kFinish, kRelease, kLinger };

  // `seats`: how many seats the stream carries in all; it half-closes once
  // each of them has had its MatchEnded.
  // `features`: the Play stream features it opts into
  // (referee/service/play_features.h; it handles kBatch and
  // kObservationOnce).
  PlayStream(LoadPhase* phase, Worker* worker, const std::string& token,
             int seats, const std::vector<absl::string_view>& features,
             int64_t linger_us);

  void Start(referee::v1::Referee::Stub* stub) {
    stream_ = stub->PrepareAsyncPlay(&context_, worker_->cq());
    stream_->StartCall(&tags_[kStart]);
  }

  // Called by the phase once the barrier opens (from another thread): the
  // alarm brings the stream's own thread to play its parked seed decisions.
  void Release() {
    release_alarm_.Set(worker_->cq(), gpr_now(GPR_CLOCK_MONOTONIC),
                       &tags_[kRelease]);
  }

  void OnEvent(int kind, bool ok) override;
  // A seat's think time is over: it commits.
  void OnThought(SeatState& seat, bool ok);

 private:
  SeatState& SeatFor(const std::string& match_id, uint32_t seat);
  void OnRead();
  // A batch's messages one by one, or the message.
  void Handle(const referee::v1::PlayResponse& response);
  void HandleOne(const referee::v1::PlayResponse& response);
  // Handle() for each kind of message that needs more than a count.
  void OnDecision(SeatState& seat,
                  const referee::v1::DecisionRequest& decision);
  void OnRevealRequest(SeatState& seat, const referee::v1::RevealRequest& r);
  void OnResult(SeatState& seat, const referee::v1::DecisionResult& result);
  void OnEnded(SeatState& seat);
  void OnError(const referee::v1::PlayError& error);
  // Chooses the seat's move for `request` (and its salt): the commit to send.
  SeatState::Move Choose(SeatState& seat,
                         const referee::v1::DecisionRequest& request);
  // Commits after the seat's think time (at once when --think_ms=0).
  void Think(SeatState& seat, SeatState::Move move);
  // Sends the commit (and a single-seat decision's reveal): the seat is
  // ready, and the decision is timed from here.
  void Decide(SeatState& seat, SeatState::Move move);
  // Reveals the move committed to last (salt and action, once).
  void SendReveal(SeatState& seat);
  // A message to send, as its fields: the PlayRequest is built when it is
  // written, on an arena (no heap message per request to make and free).
  struct Outgoing {
    enum Kind { kCommit, kReveal } kind;
    SeatState* seat;  // Lives as long as the stream.
    uint64_t decision;
    std::string first;   // The commitment, or the reveal's salt.
    std::string second;  // The reveal's action bytes.
    void Fill(referee::v1::PlayRequest& request) const;
  };
  // Queues a message; it goes out once the worker has handled the events
  // that are ready (OnIdle), with whatever else they made this stream send.
  void Send(Outgoing message) {
    outbox_.push_back(std::move(message));
    if (linger_us_ > 0 && !writing_ && !lingering_ && outbox_.size() == 1) {
      lingering_ = true;
      worker_->After(linger_us_, &tags_[kLinger]);
      return;
    }
    worker_->Defer(this);
  }
  void OnIdle() override { Pump(); }
  void Pump();
  void MaybeFinish();

  LoadPhase* const phase_;
  Worker* const worker_;
  const int expected_seats_;
  const bool batch_;  // Writes several queued messages as one batch.
  // A bot's batch stream: how long a message sent while nothing is queued
  // or being written waits for others to join it (0: not at all).
  const int64_t linger_us_;
  bool lingering_ = false;  // A kLinger timer is set.
  Tag tags_[7] = {{this, kStart},      {this, kRead},   {this, kWrite},
                  {this, kWritesDone}, {this, kFinish}, {this, kRelease},
                  {this, kLinger}};
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientAsyncReaderWriter<referee::v1::PlayRequest,
                                                referee::v1::PlayResponse>>
      stream_;
  grpc::Alarm release_alarm_;
  // By match id: its seats on this stream (one, but for a bot that holds
  // several seats of a match).
  absl::flat_hash_map<std::string, std::vector<std::unique_ptr<SeatState>>>
      seats_;
  std::vector<SeatState*> parked_;  // Holding a decision until the release.
  int ended_seats_ = 0;
  // Each message is parsed into an arena that is reset after it is handled:
  // no malloc/free per sub-message (observations carry dozens). The client
  // stays cheap, so the referee is what the run measures. A bot's batch
  // stream reads many messages at once: its first block is larger.
  const size_t arena_bytes_ =
      batch_ && expected_seats_ > 1 ? size_t{256} << 10 : size_t{8} << 10;
  const std::unique_ptr<char[]> arena_block_{new char[arena_bytes_]};
  google::protobuf::Arena arena_;
  referee::v1::PlayResponse* response_ =
      google::protobuf::Arena::CreateMessage<referee::v1::PlayResponse>(
          &arena_);
  // The write in flight's message, on its own arena, reset when the next
  // write is built (the one before is done by then).
  static constexpr size_t kWriteArenaBytes = 16 << 10;
  const std::unique_ptr<char[]> write_block_{new char[kWriteArenaBytes]};
  google::protobuf::Arena write_arena_;
  std::deque<Outgoing> outbox_;
  bool started_ = false;
  bool writing_ = false;
  bool want_writes_done_ = false;
  bool writes_done_sent_ = false;
  bool writes_done_pending_ = false;
  bool read_closed_ = false;
  bool finish_called_ = false;
  grpc::Status status_;
};

}  // namespace pyramid::bench_load

#endif  // PYRAMID_TOOLS_BENCH_LOAD_PLAY_STREAM_H_
