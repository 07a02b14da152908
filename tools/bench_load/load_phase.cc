#include "tools/bench_load/load_phase.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/arena.h"
#include "grpcpp/alarm.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/protocol.h"

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
            const std::string& match_id, uint32_t seat)
      : stream(stream),
        timing(timing),
        match_id(match_id),
        raw_match_id(FromHex(match_id).value_or("")),
        seat(seat),
        think_rng(Mix(std::hash<std::string>()(match_id) ^ seat)) {}
  void OnEvent(int kind, bool ok) override;  // Its think time is over.

  // A uniform pseudo-random wait in [0, max_us] microseconds.
  int64_t NextThinkUs(int64_t max_us) {
    think_rng = Mix(think_rng);
    return static_cast<int64_t>((think_rng >> 11) * 0x1.0p-53 *
                                static_cast<double>(max_us + 1));
  }

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
  // `features`: the Play stream features it opts into, comma-separated
  // (it handles "batch" and "observation-once").
  PlayStream(LoadPhase* phase, Worker* worker, const std::string& token,
             int seats, const std::string& features, int64_t linger_us)
      : phase_(phase),
        worker_(worker),
        expected_seats_(seats),
        batch_(absl::StrContains(features, "batch")),
        linger_us_(batch_ && seats > 1 ? linger_us : 0) {
    context_.AddMetadata("authorization", "Bearer " + token);
    if (!features.empty()) {
      context_.AddMetadata("pyramid-play-features", features);
    }
  }

  void Start(v1::Referee::Stub* stub) {
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
  void Handle(const v1::PlayResponse& response);
  void HandleOne(const v1::PlayResponse& response);
  // Handle() for each kind of message that needs more than a count.
  void OnDecision(SeatState& seat, const v1::DecisionRequest& decision);
  void OnRevealRequest(SeatState& seat, const v1::RevealRequest& r);
  void OnResult(SeatState& seat, const v1::DecisionResult& result);
  void OnEnded(SeatState& seat);
  void OnError(const v1::PlayError& error);
  // Chooses the seat's move for `request` (and its salt): the commit to send.
  SeatState::Move Choose(SeatState& seat, const v1::DecisionRequest& request);
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
    void Fill(v1::PlayRequest& request) const;
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
  std::unique_ptr<
      grpc::ClientAsyncReaderWriter<v1::PlayRequest, v1::PlayResponse>>
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
  google::protobuf::Arena arena_{
      ArenaOptionsFor(arena_block_.get(), arena_bytes_)};
  v1::PlayResponse* response_ =
      google::protobuf::Arena::CreateMessage<v1::PlayResponse>(&arena_);
  // The write in flight's message, on its own arena, reset when the next
  // write is built (the one before is done by then).
  static constexpr size_t kWriteArenaBytes = 16 << 10;
  const std::unique_ptr<char[]> write_block_{new char[kWriteArenaBytes]};
  google::protobuf::Arena write_arena_{
      ArenaOptionsFor(write_block_.get(), kWriteArenaBytes)};
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

void SeatState::OnEvent(int kind, bool ok) { stream->OnThought(*this, ok); }

LoadPhase::LoadPhase(Options options,
                     std::vector<std::unique_ptr<v1::Referee::Stub>>* stubs,
                     std::vector<std::unique_ptr<Worker>>* workers)
    : options_(std::move(options)), stubs_(stubs), workers_(workers) {}

LoadPhase::~LoadPhase() = default;

MatchTiming* LoadPhase::TimingFor(const std::string& match_id) {
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<MatchTiming>& timing = timings_[match_id];
  if (timing == nullptr) timing = std::make_unique<MatchTiming>();
  return timing.get();
}

class LoadPhase::CreateCall final : public Handler {
 public:
  CreateCall(LoadPhase* phase, int index, Worker* worker,
             v1::Referee::Stub* stub)
      : phase_(phase), index_(index) {
    context_.AddMetadata("authorization",
                         "Bearer " + phase->options_.admin_token);
    reader_ = stub->AsyncCreateMatch(&context_, phase->CreateRequest(index),
                                     worker->cq());
    reader_->Finish(&response_, &status_, &tag_);
  }
  void OnEvent(int kind, bool ok) override {
    phase_->OnCreated(
        index_,
        ok ? status_ : grpc::Status(grpc::StatusCode::UNKNOWN, "call failed"),
        response_);
    delete this;
  }

 private:
  LoadPhase* const phase_;
  const int index_;
  Tag tag_{this, 0};
  grpc::ClientContext context_;
  v1::CreateMatchResponse response_;
  grpc::Status status_;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::CreateMatchResponse>>
      reader_;
};

absl::Status LoadPhase::Begin() {
  begin_ = Clock::now();
  if (options_.bots > 0) {
    if (absl::Status s = RegisterBots(); !s.ok()) return s;
  }
  const int n = std::min(options_.create_concurrency, options_.matches);
  for (int i = 0; i < n; ++i) LaunchCreate();
  return absl::OkStatus();
}

// Bot b plays global seat k = kSeatsPerMatch * match + seat when k % bots == b.
absl::Status LoadPhase::RegisterBots() {
  const int bots = options_.bots;
  const int seats = kSeatsPerMatch * options_.matches;
  for (int b = 0; b < bots; ++b) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + options_.admin_token);
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    v1::RegisterBotRequest request;
    request.set_name(absl::StrCat("bench-bot-", b));
    v1::RegisterBotResponse response;
    const grpc::Status status = (*stubs_)[b % stubs_->size()]->RegisterBot(
        &context, request, &response);
    if (!status.ok()) {
      return absl::UnavailableError(
          absl::StrCat("RegisterBot: ", status.error_message()));
    }
    bot_ids_.push_back(response.bot_id());
    OpenStream(b, response.bot_token(), seats / bots + (b < seats % bots));
  }
  return absl::OkStatus();
}

void LoadPhase::OpenStream(int index, const std::string& token, int seats) {
  Worker* worker = (*workers_)[index % workers_->size()].get();
  PlayStream* stream;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> features;
    if (options_.observation_once) features.push_back("observation-once");
    if (options_.batch) features.push_back("batch");
    streams_.push_back(std::make_unique<PlayStream>(
        this, worker, token, seats, absl::StrJoin(features, ","),
        options_.client_linger_us));
    stream = streams_.back().get();
  }
  stream->Start((*stubs_)[index % stubs_->size()].get());
}

v1::CreateMatchRequest LoadPhase::CreateRequest(int index) const {
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int s = 0; s < kSeatsPerMatch; ++s) {
    v1::SeatSpec* seat = request.add_seats();
    if (options_.bots > 0) {
      seat->set_bot_id(bot_ids_[(kSeatsPerMatch * index + s) % options_.bots]);
    }
  }
  v1::ClockSettings* clocks = request.mutable_clocks();
  clocks->set_commit_timeout_ms(options_.deadline_ms);
  clocks->set_reveal_timeout_ms(options_.deadline_ms);
  // The time every seat has to connect before play starts.
  clocks->set_seed_timeout_ms(options_.seed_timeout_ms);
  request.set_forfeit_policy(v1::FORFEIT_POLICY_FORFEIT);
  return request;
}

void LoadPhase::LaunchCreate() {
  const int index = next_create_.fetch_add(1);
  if (index >= options_.matches) return;
  Worker* worker = (*workers_)[index % workers_->size()].get();
  new CreateCall(this, index, worker, (*stubs_)[index % stubs_->size()].get());
}

void LoadPhase::NoteCreateFailure(const grpc::Status& status) {
  create_failures_.fetch_add(1);
  failed_.store(true);
  std::lock_guard<std::mutex> lock(mu_);
  if (create_errors_.size() < 5) {
    create_errors_.push_back(
        absl::StrCat(status.error_code(), ": ", status.error_message()));
  }
}

void LoadPhase::OnCreated(int index, const grpc::Status& status,
                          const v1::CreateMatchResponse& response) {
  if (!status.ok() || response.seat_tokens_size() != kSeatsPerMatch) {
    NoteCreateFailure(status);
    return;
  }
  int64_t zero = 0;
  first_created_.compare_exchange_strong(
      zero, Clock::now().time_since_epoch().count());
  created_.fetch_add(1);
  const int live = live_.fetch_add(1) + 1;
  int peak = peak_live_.load();
  while (live > peak && !peak_live_.compare_exchange_weak(peak, live)) {
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    match_ids_.push_back(response.match_id());
  }
  LaunchCreate();
  if (options_.bots > 0) return;  // The bots' streams carry its seats.
  // Stream mode: the match's seats open their streams (its seed decision
  // waits for them, see seed_timeout_ms).
  for (int s = 0; s < kSeatsPerMatch; ++s) {
    OpenStream(kSeatsPerMatch * index + s, response.seat_tokens(s), 1);
  }
}

void LoadPhase::OpenBarrier(const std::function<void()>& at_barrier) {
  const int seats = kSeatsPerMatch * options_.matches;
  WaitUntil([&] { return first_created_.load() != 0 || failed_.load(); },
            Clock::now() + std::chrono::seconds(30));
  // Release while the seed decisions still have a deadline in hand.
  const auto first = Clock::time_point(Clock::duration(first_created_.load()));
  const auto give_up = first +
                       std::chrono::milliseconds(options_.seed_timeout_ms) -
                       std::chrono::milliseconds(options_.deadline_ms);
  WaitUntil(
      [&] {
        return parked_.load() >= seats || failed_.load() ||
               matches_ended_.load() > 0;
      },
      give_up);
  at_barrier();
  live_at_release_ = created_.load() - matches_ended_.load();
  parked_at_release_ = parked_.load();
  barrier_complete_ =
      parked_at_release_ >= seats && live_at_release_ == options_.matches;
  release_ns_.store(Clock::now().time_since_epoch().count());
  released_.store(true, std::memory_order_release);
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& stream : streams_) stream->Release();
}

void LoadPhase::OnMatchEnded(const std::string& match_id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (++ended_seats_[match_id] > 1) return;
  }
  live_.fetch_sub(1);
  matches_ended_.fetch_add(1);
  last_end_ns_.store(Clock::now().time_since_epoch().count());
}

void LoadPhase::OnStreamFinished(const grpc::Status& status) {
  if (!status.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stream_errors_.size() < 5) {
      stream_errors_.push_back(
          absl::StrCat(status.error_code(), ": ", status.error_message()));
    }
    ++stream_error_count_;
  }
  finished_streams_.fetch_add(1);
}

void LoadPhase::NotePlayError(const v1::PlayError& error) {
  if (error.faulted()) {
    fault_decisions_[std::min<uint64_t>(error.decision_id(), 15)].fetch_add(1);
    const int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           Clock::now() - release())
                           .count();
    int64_t first = first_fault_ms_.load();
    while ((first < 0 || ms < first) &&
           !first_fault_ms_.compare_exchange_weak(first, ms)) {
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (play_errors_.size() < 5) {
    play_errors_.push_back(
        absl::StrCat("match ", error.match_id(), " seat ", error.seat(),
                     " decision ", error.decision_id(), ": ", error.message()));
  }
}

std::string LoadPhase::FaultSummary() const {
  std::string out;
  for (int d = 0; d < 16; ++d) {
    if (const int n = fault_decisions_[d].load(); n > 0) {
      absl::StrAppend(&out, out.empty() ? "" : " ", "d", d, d == 15 ? "+" : "",
                      ":", n);
    }
  }
  if (!out.empty()) {
    absl::StrAppend(&out, "; first ", first_fault_ms_.load(),
                    " ms after the release");
  }
  return out;
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
