// bench_load's referee phase: Rock, Paper, Pyramid! matches created with
// the admin token and played over Play streams, one per seat or one per
// bot, every seat committing and revealing random legal moves; the barrier
// that holds every match live before the release; and what the phase
// counts for the report.
#ifndef PYRAMID_TOOLS_BENCH_LOAD_LOAD_PHASE_H_
#define PYRAMID_TOOLS_BENCH_LOAD_LOAD_PHASE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "tools/bench_load/client.h"

namespace pyramid::bench_load {

// A Rock, Paper, Pyramid! match as this benchmark plays it: 3 seats, each
// acting in its 9 decisions after the seed decision.
inline constexpr int kSeatsPerMatch = 3;
inline constexpr int64_t kMovesPerMatch = 27;
// Play messages, both ways, for one seat's part in one decision on a stream
// of its own: DecisionRequest, CommitMove, its ack, RevealRequest, Reveal,
// its ack, DecisionResult (a played-through run measures 7.0 a seat-decision
// with MatchEnded and the rest included).
inline constexpr int kMessagesPerSeatDecision = 7;

class MatchTiming;
class PlayStream;

class LoadPhase {
 public:
  struct Options {
    int matches = 0;
    int bots = 0;  // 0: a stream per seat.
    int deadline_ms = 0;
    uint32_t seed_timeout_ms = 0;
    int think_ms = 0;
    bool observation_once = false;
    bool batch = false;
    int64_t client_linger_us = 0;  // A bot's batch stream (PlayStream).
    int create_concurrency = 0;
    std::string admin_token;
  };

  LoadPhase(Options options,
            std::vector<std::unique_ptr<referee::v1::Referee::Stub>>* stubs,
            std::vector<std::unique_ptr<Worker>>* workers);
  ~LoadPhase();

  // Registers the bots and opens their streams (bot mode), then launches
  // the CreateMatch calls; in stream mode a match's seats open their
  // streams as it is created.
  absl::Status Begin();

  // Waits for the barrier (every seat holds its seed decision; or a match
  // ended, a call failed, or the seed decisions' deadline comes close) and
  // releases every seat. `at_barrier` runs just before the release.
  void OpenBarrier(const std::function<void()>& at_barrier);

  // Waits until every stream has finished, or `deadline`; false if not.
  bool WaitDone(Clock::time_point deadline) {
    WaitUntil(
        [&] {
          return finished_streams_.load() >= TotalStreams() ||
                 (failed_.load() && matches_ended_.load() >= created_.load());
        },
        deadline);
    return finished_streams_.load() >= TotalStreams();
  }

  bool released() const { return released_.load(std::memory_order_acquire); }

  // From streams (their worker threads).
  // A seat got its seed decision during set-up.
  void OnReady() { parked_.fetch_add(1); }
  // A DecisionRequest said its view is in the last result: `found` when a
  // result with a view had come just before, as observation-once promises.
  void OnViewFromResult(bool found) {
    views_from_results_.fetch_add(1);
    if (!found) views_missing_.fetch_add(1);
  }
  void OnMatchEnded(const std::string& match_id);
  // The match's timing (made on first use; lives as long as the phase).
  MatchTiming* TimingFor(const std::string& match_id);
  void OnStreamFinished(const grpc::Status& status);
  void NotePlayError(const referee::v1::PlayError& error);

  // Results.
  int TotalStreams() const {
    return options_.bots > 0 ? options_.bots
                             : kSeatsPerMatch * options_.matches;
  }
  Clock::time_point begin() const { return begin_; }
  Clock::time_point release() const {
    return Clock::time_point(Clock::duration(release_ns_.load()));
  }
  Clock::time_point last_end() const {
    return Clock::time_point(Clock::duration(last_end_ns_.load()));
  }
  int created() const { return created_.load(); }
  int matches_ended() const { return matches_ended_.load(); }
  int peak_live() const { return peak_live_.load(); }
  int64_t views_from_results() const { return views_from_results_.load(); }
  int64_t views_missing() const { return views_missing_.load(); }
  int live_at_release() const { return live_at_release_; }
  int parked_at_release() const { return parked_at_release_; }
  bool barrier_complete() const { return barrier_complete_; }
  int create_failures() const { return create_failures_.load(); }
  std::vector<std::string> create_errors() {
    std::lock_guard<std::mutex> lock(mu_);
    return create_errors_;
  }
  std::vector<std::string> play_errors() {
    std::lock_guard<std::mutex> lock(mu_);
    return play_errors_;
  }
  std::vector<std::string> stream_errors() {
    std::lock_guard<std::mutex> lock(mu_);
    return stream_errors_;
  }
  int stream_error_count() {
    std::lock_guard<std::mutex> lock(mu_);
    return stream_error_count_;
  }
  std::vector<std::string> match_ids() {
    std::lock_guard<std::mutex> lock(mu_);
    return match_ids_;
  }
  const Options& options() const { return options_; }
  // "decision:count ..." of the faults, and when the first came.
  std::string FaultSummary() const;

 private:
  class CreateCall;

  absl::Status RegisterBots();
  // The CreateMatch request of match `index`.
  referee::v1::CreateMatchRequest CreateRequest(int index) const;
  void LaunchCreate();
  void OnCreated(int index, const grpc::Status& status,
                 const referee::v1::CreateMatchResponse& response);
  void NoteCreateFailure(const grpc::Status& status);
  // Opens a stream for `token` carrying `seats` seats, on the worker and
  // channel of `index`.
  void OpenStream(int index, const std::string& token, int seats);

  const Options options_;
  std::vector<std::unique_ptr<referee::v1::Referee::Stub>>* const stubs_;
  std::vector<std::unique_ptr<Worker>>* const workers_;

  std::mutex mu_;
  std::vector<std::unique_ptr<PlayStream>> streams_;
  std::vector<std::string> bot_ids_;  // Bot mode.
  std::vector<std::string> match_ids_;
  // Seats that had MatchEnded, by match (the first one ends the match).
  absl::flat_hash_map<std::string, int> ended_seats_;
  absl::flat_hash_map<std::string, std::unique_ptr<MatchTiming>> timings_;
  std::vector<std::string> create_errors_;
  std::vector<std::string> play_errors_;
  std::vector<std::string> stream_errors_;
  int stream_error_count_ = 0;

  std::atomic<int> next_create_{0};
  std::atomic<int> created_{0};
  std::atomic<int> live_{0};
  std::atomic<int> peak_live_{0};
  std::atomic<int> create_failures_{0};
  std::atomic<bool> failed_{false};
  std::atomic<int> matches_ended_{0};
  std::atomic<int> parked_{0};
  std::atomic<int64_t> views_from_results_{0};
  std::atomic<int64_t> views_missing_{0};
  std::atomic<int> finished_streams_{0};
  std::atomic<int64_t> first_created_{0};
  std::atomic<int64_t> last_end_ns_{0};
  std::atomic<int> fault_decisions_[16] = {};
  std::atomic<int64_t> first_fault_ms_{-1};  // After the release.
  std::atomic<bool> released_{false};
  std::atomic<int64_t> release_ns_{0};
  Clock::time_point begin_;
  int live_at_release_ = 0;
  int parked_at_release_ = 0;
  bool barrier_complete_ = false;
};

}  // namespace pyramid::bench_load

#endif  // PYRAMID_TOOLS_BENCH_LOAD_LOAD_PHASE_H_
