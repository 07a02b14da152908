#include "tools/bench_load/play_stream.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_join.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/protocol.h"
#include "referee/service/play_features.h"
#include "tools/bench_load/load_phase.h"

namespace pyramid::bench_load {

namespace v1 = ::pyramid::referee::v1;

namespace {

// An arena's options whose first block is `block`, of `size` bytes.
google::protobuf::ArenaOptions ArenaOptionsFor(char* block, size_t size) {
  google::protobuf::ArenaOptions options;
  options.initial_block = block;
  options.initial_block_size = size;
  return options;
}

// splitmix64: seeds think times (not secrets).
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

SeatState::SeatState(PlayStream* stream, MatchTiming* timing,
                     const std::string& match_id, uint32_t seat)
    : stream(stream),
      timing(timing),
      match_id(match_id),
      raw_match_id(FromHex(match_id).value_or("")),
      seat(seat),
      think_rng(Mix(std::hash<std::string>()(match_id) ^ seat)) {}

void SeatState::OnEvent(int kind, bool ok) { stream->OnThought(*this, ok); }

int64_t SeatState::NextThinkUs(int64_t max_us) {
  think_rng = Mix(think_rng);
  return static_cast<int64_t>((think_rng >> 11) * 0x1.0p-53 *
                              static_cast<double>(max_us + 1));
}

PlayStream::PlayStream(LoadPhase* phase, Worker* worker,
                       const std::string& token, int seats,
                       const std::vector<absl::string_view>& features,
                       int64_t linger_us)
    : phase_(phase),
      worker_(worker),
      expected_seats_(seats),
      batch_(absl::c_linear_search(features, kBatch)),
      linger_us_(batch_ && seats > 1 ? linger_us : 0),
      arena_(ArenaOptionsFor(arena_block_.get(), arena_bytes_)),
      write_arena_(ArenaOptionsFor(write_block_.get(), kWriteArenaBytes)) {
  context_.AddMetadata("authorization", "Bearer " + token);
  if (!features.empty()) {
    context_.AddMetadata(kPlayFeatures, absl::StrJoin(features, ","));
  }
}

void PlayStream::OnEvent(int kind, bool ok) {
  switch (kind) {
    case kStart:
      if (!ok) {
        read_closed_ = true;
        MaybeFinish();
        return;
      }
      started_ = true;
      stream_->Read(response_, &tags_[kRead]);
      Pump();
      return;
    case kRead:
      if (!ok) {
        read_closed_ = true;
        MaybeFinish();
        return;
      }
      OnRead();
      return;
    case kWrite:
      writing_ = false;
      if (!ok) {
        outbox_.clear();
        want_writes_done_ = false;
        MaybeFinish();
        return;
      }
      Pump();
      return;
    case kWritesDone:
      writes_done_pending_ = false;
      MaybeFinish();
      return;
    case kFinish:
      phase_->OnStreamFinished(status_);
      return;
    case kRelease:
      for (SeatState* seat : parked_) {
        SeatState::Move move = std::move(*seat->waiting);
        seat->waiting.reset();
        Think(*seat, std::move(move));
      }
      parked_.clear();
      return;
    case kLinger:
      lingering_ = false;
      Pump();
      return;
  }
}

void PlayStream::OnRead() {
  Stats& stats = worker_->stats();
  stats.Add(stats.wire);
  Handle(*response_);
  arena_.Reset();
  response_ = google::protobuf::Arena::CreateMessage<v1::PlayResponse>(&arena_);
  stream_->Read(response_, &tags_[kRead]);
}

void PlayStream::Pump() {
  if (!started_ || writing_ || lingering_ || finish_called_) return;
  Stats& stats = worker_->stats();
  if (!outbox_.empty()) {
    // Up to kMaxBatch queued messages in one write, on a batch stream.
    constexpr size_t kMaxBatch = 256;
    const size_t n = batch_ ? std::min(outbox_.size(), kMaxBatch) : 1;
    write_arena_.Reset();  // The last write is done (writing_ is false).
    v1::PlayRequest* message =
        google::protobuf::Arena::CreateMessage<v1::PlayRequest>(&write_arena_);
    v1::PlayRequestBatch* batch = n == 1 ? nullptr : message->mutable_batch();
    stats.Add(stats.wire);
    for (size_t i = 0; i < n; ++i) {
      v1::PlayRequest& request = n == 1 ? *message : *batch->add_requests();
      outbox_[i].Fill(request);
      stats.Add(stats.sent);
      if (stats.Sample()) {
        stats.Add(stats.sized);
        stats.Add(stats.bytes, request.ByteSizeLong());
      }
    }
    outbox_.erase(outbox_.begin(), outbox_.begin() + n);
    writing_ = true;
    stream_->Write(*message, &tags_[kWrite]);
  } else if (want_writes_done_ && !writes_done_sent_) {
    writes_done_sent_ = true;
    writes_done_pending_ = true;
    stream_->WritesDone(&tags_[kWritesDone]);
  }
}

void PlayStream::MaybeFinish() {
  if (!read_closed_ || writing_ || writes_done_pending_ || finish_called_) {
    return;
  }
  finish_called_ = true;
  stream_->Finish(&status_, &tags_[kFinish]);
}

SeatState& PlayStream::SeatFor(const std::string& match_id, uint32_t seat) {
  std::vector<std::unique_ptr<SeatState>>& seats = seats_[match_id];
  for (const auto& s : seats) {
    if (s->seat == seat) return *s;
  }
  seats.push_back(std::make_unique<SeatState>(this, phase_->TimingFor(match_id),
                                              match_id, seat));
  return *seats.back();
}

void PlayStream::Handle(const v1::PlayResponse& response) {
  if (response.kind_case() != v1::PlayResponse::kBatch) {
    HandleOne(response);
    return;
  }
  for (const v1::PlayResponse& inner : response.batch().responses()) {
    HandleOne(inner);
  }
}

void PlayStream::HandleOne(const v1::PlayResponse& response) {
  Stats& stats = worker_->stats();
  stats.Add(stats.received);
  if (stats.Sample()) {
    stats.Add(stats.sized);
    stats.Add(stats.bytes, response.ByteSizeLong());
  }
  switch (response.kind_case()) {
    case v1::PlayResponse::kDecision: {
      const v1::DecisionRequest& d = response.decision();
      OnDecision(SeatFor(d.match_id(), d.seat()), d);
      return;
    }
    case v1::PlayResponse::kRevealRequest: {
      const v1::RevealRequest& r = response.reveal_request();
      OnRevealRequest(SeatFor(r.match_id(), r.seat()), r);
      return;
    }
    case v1::PlayResponse::kRevealAck:
      if (response.reveal_ack().decision_id() > 0) stats.Add(stats.moves);
      return;
    case v1::PlayResponse::kResult: {
      const v1::DecisionResult& r = response.result();
      OnResult(SeatFor(r.match_id(), r.seat()), r);
      return;
    }
    case v1::PlayResponse::kMatchEnded: {
      const v1::MatchEnded& e = response.match_ended();
      OnEnded(SeatFor(e.match_id(), e.seat()));
      return;
    }
    case v1::PlayResponse::kError:
      OnError(response.error());
      return;
    default:
      return;  // Commit acks need no answer.
  }
}

void PlayStream::OnDecision(SeatState& seat,
                            const v1::DecisionRequest& decision) {
  const uint64_t id = decision.decision_id();
  if (seat.last_decision == id) return;  // Sent again on (re)connection.
  seat.last_decision = id;
  // With observation-once the seat's view is the observation of the result
  // just delivered (a random player needs no view, but it must be there).
  if (decision.observation_in_result()) {
    phase_->OnViewFromResult(seat.result_seen);
  }
  seat.result_seen = false;
  if (!phase_->released()) {
    // Set-up: only seed decisions come; each waits for the release.
    if (id == 0) phase_->OnReady();
    seat.waiting = Choose(seat, decision);
    parked_.push_back(&seat);
    return;
  }
  Think(seat, Choose(seat, decision));
}

void PlayStream::Think(SeatState& seat, SeatState::Move move) {
  const int64_t think_ms = phase_->options().think_ms;
  if (think_ms <= 0) {
    Decide(seat, std::move(move));
    return;
  }
  seat.waiting = std::move(move);
  worker_->After(seat.NextThinkUs(1000 * think_ms), &seat.think_tag);
}

void PlayStream::OnThought(SeatState& seat, bool ok) {
  if (!ok || !seat.waiting) return;
  SeatState::Move move = std::move(*seat.waiting);
  seat.waiting.reset();
  Decide(seat, std::move(move));
}

void PlayStream::OnRevealRequest(SeatState& seat, const v1::RevealRequest& r) {
  if (!seat.reveal_pending || r.decision_id() != seat.reveal_decision) return;
  SendReveal(seat);
}

// The decision's latency, when it is the one being timed.
void PlayStream::OnResult(SeatState& seat, const v1::DecisionResult& result) {
  seat.result_seen = result.has_observation();
  if (!seat.decision_start || result.decision_id() != seat.timed_decision) {
    return;
  }
  const auto now = Clock::now();
  auto us = [now](Clock::time_point since) {
    return static_cast<uint32_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(now - since)
            .count());
  };
  const std::optional<Clock::time_point> last_ready =
      seat.timing->LastReady(result.decision_id());
  Stats& stats = worker_->stats();
  std::lock_guard<std::mutex> lock(stats.latencies_mu);
  const uint32_t latency_us = us(*seat.decision_start);
  stats.latencies_us.push_back(latency_us);
  std::vector<std::vector<uint32_t>>& by_decision =
      stats.latencies_by_decision_us;
  if (by_decision.size() <= result.decision_id()) {
    by_decision.resize(result.decision_id() + 1);
  }
  by_decision[result.decision_id()].push_back(latency_us);
  if (last_ready) stats.last_ready_us.push_back(us(*last_ready));
  seat.decision_start.reset();
}

void PlayStream::OnEnded(SeatState& seat) {
  phase_->OnMatchEnded(seat.match_id);
  if (seat.ended) return;
  seat.ended = true;
  // A seat may still be thinking when its match ends (a seat of it
  // forfeited): it has nothing left to commit, and once every seat of the
  // stream has ended the stream is half-closed and takes no more writes.
  seat.waiting.reset();
  if (++ended_seats_ < expected_seats_) return;
  want_writes_done_ = true;
  Pump();
}

void PlayStream::OnError(const v1::PlayError& error) {
  Stats& stats = worker_->stats();
  if (error.faulted()) {
    stats.Add(stats.faults);
    if (error.message().find("TIMEOUT") != std::string::npos) {
      stats.Add(stats.timeouts);
    }
  } else {
    stats.Add(stats.errors);
  }
  phase_->NotePlayError(error);
}

SeatState::Move PlayStream::Choose(SeatState& seat,
                                   const v1::DecisionRequest& request) {
  SeatState::Move move;
  move.decision = request.decision_id();
  move.committed = request.committed();
  if (move.committed) return move;
  v1::Action action;
  if (request.decision_id() == 0) {
    action.mutable_seed()->set_contribution(
        worker_->RandomBytes(kSeedContributionSize));
    action.mutable_seed()->set_header_hash(request.header_hash());
  } else if (request.legal_actions_size() > 0) {
    Stats& stats = worker_->stats();
    action = request.legal_actions(
        static_cast<int>(stats.Next() % request.legal_actions_size()));
  }
  seat.salt = worker_->RandomBytes(kSaltSize);
  seat.action_bytes = action.SerializeAsString();
  seat.reveal_decision = request.decision_id();
  seat.reveal_pending = true;
  const Digest commitment =
      CommitmentHash(seat.raw_match_id, seat.seat, request.decision_id(),
                     seat.salt, seat.action_bytes);
  move.commitment = std::string(AsView(commitment));
  // A single-seat decision opens its reveal phase right after the commit.
  move.single_seat = request.acting_seats_size() == 1;
  return move;
}

// The decision is timed from here: the seat is ready to commit (its
// DecisionRequest received and its think time over).
void PlayStream::Decide(SeatState& seat, SeatState::Move move) {
  seat.decision_start = Clock::now();
  seat.timed_decision = move.decision;
  seat.timing->Ready(move.decision, *seat.decision_start);
  if (move.committed) return;
  Send(Outgoing{Outgoing::kCommit, &seat, move.decision,
                std::move(move.commitment), ""});
  if (move.single_seat) SendReveal(seat);
}

void PlayStream::SendReveal(SeatState& seat) {
  seat.reveal_pending = false;
  Send(Outgoing{Outgoing::kReveal, &seat, seat.reveal_decision,
                std::move(seat.salt), std::move(seat.action_bytes)});
}

void PlayStream::Outgoing::Fill(v1::PlayRequest& request) const {
  if (kind == kCommit) {
    v1::CommitMove* commit = request.mutable_commit();
    commit->set_match_id(seat->match_id);
    commit->set_seat(seat->seat);
    commit->set_decision_id(decision);
    commit->set_commitment(first);
  } else {
    v1::RevealMove* reveal = request.mutable_reveal();
    reveal->set_match_id(seat->match_id);
    reveal->set_seat(seat->seat);
    reveal->set_decision_id(decision);
    reveal->set_salt(first);
    reveal->set_action(second);
  }
}

}  // namespace pyramid::bench_load
