#include "tools/bench_load/load_phase.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "referee/service/play_features.h"
#include "tools/bench_load/play_stream.h"

namespace pyramid::bench_load {

namespace v1 = ::pyramid::referee::v1;

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
    std::vector<absl::string_view> features;
    if (options_.observation_once) features.push_back(kObservationOnce);
    if (options_.batch) features.push_back(kBatch);
    streams_.push_back(std::make_unique<PlayStream>(
        this, worker, token, seats, features, options_.client_linger_us));
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

}  // namespace pyramid::bench_load
