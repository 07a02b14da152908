// MatchHost without gRPC, seats played through it to the end of a Rock,
// Paper, Pyramid! match: once the match is over the host lets the Match go,
// and still answers every question about it as a finished match does; a
// match whose log could not be sealed stays broken, and a broken match
// ends its token seats' streams; a shutdown checkpoint that cannot be
// written is said.
#include "referee/service/match_host.h"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/core/clock.h"
#include "referee/core/local_runner.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "referee/service/delayed_runner.h"
#include "referee/service/view_delta.h"
#include "replay/verifier.h"

namespace pyramid {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kSeats = 3;
constexpr int kFailedPrecondition = 9;  // google.rpc.Code.

// Keeps every message sent to a Play stream, and how it was closed.
class RecordingSink final : public PlaySink {
 public:
  explicit RecordingSink(bool observation_once = false,
                         bool holds_acknowledgements = false)
      : observation_once_(observation_once),
        holds_acknowledgements_(holds_acknowledgements) {}
  void Send(SerializedMessage bytes) override {
    absl::MutexLock lock(&mu_);
    v1::PlayResponse& message = messages.emplace_back();
    EXPECT_TRUE(bytes.ParseTo(message));
  }
  void Close(int code, std::string message) override { closed_with = code; }
  bool observation_once() const override { return observation_once_; }
  bool holds_acknowledgements() const override {
    return holds_acknowledgements_;
  }
  // How many messages came so far (while another thread may send).
  size_t Count() const {
    absl::MutexLock lock(&mu_);
    return messages.size();
  }

  // Read once the host is quiet (nothing sends any more).
  std::vector<v1::PlayResponse> messages;
  int closed_with = -1;

 private:
  const bool observation_once_;
  const bool holds_acknowledgements_;
  mutable absl::Mutex mu_;
};

// A Watch stream in memory: keeps every event it takes. With `refuse_every`
// n > 0, every n-th Offer finds it full, as StreamWriter does when a client
// stops reading (the host must then send a snapshot).
class WatchRecorder final : public WatchSink {
 public:
  explicit WatchRecorder(int refuse_every = 0) : refuse_every_(refuse_every) {}
  void Send(SerializedMessage message) override { Keep(message); }
  bool Offer(SerializedMessage message) override {
    if (refuse_every_ > 0 && ++offers_ % refuse_every_ == 0) {
      ++refused;
      return false;
    }
    Keep(message);
    return true;
  }
  void Close(int code, std::string message) override { closed_with = code; }
  bool closed() const override { return closed_with >= 0; }

  // What a client following these events knows.
  WatchedMatch Followed() const {
    WatchedMatch followed;
    for (const v1::WatchEvent& event : events) {
      EXPECT_TRUE(followed.Apply(event).ok()) << event.ShortDebugString();
    }
    return followed;
  }

  std::vector<v1::WatchEvent> events;
  int closed_with = -1;
  int refused = 0;

 private:
  void Keep(const SerializedMessage& message) {
    v1::WatchEvent event;
    EXPECT_TRUE(event.ParseFromArray(message.bytes.begin(),
                                     static_cast<int>(message.bytes.size())));
    events.push_back(std::move(event));
  }

  const int refuse_every_;
  int offers_ = 0;
};

// A log in memory whose fsync fails after the first: the match is created
// (its header's checkpoint is synced), but its seal cannot be made durable
// (with no periodic checkpoints, the writer syncs next at the seal).
class UnsyncableSink final : public LogSink {
 public:
  absl::Status Append(std::string_view bytes) override {
    return absl::OkStatus();
  }
  absl::Status Sync() override {
    if (syncs_++ == 0) return absl::OkStatus();
    return absl::DataLossError("disk gone");
  }

 private:
  int syncs_ = 0;
};

// A log in memory whose deferred syncs (SyncLater) wait until the test
// opens its gate, then report `status`; every Append fails once *full is
// set (a disk that filled up).
class GatedSink final : public LogSink {
 public:
  absl::Status Append(std::string_view bytes) override {
    if (*full) return absl::ResourceExhaustedError("no space left");
    return absl::OkStatus();
  }
  absl::Status Sync() override { return absl::OkStatus(); }
  SyncJob SyncLater() override {
    ++*jobs;
    return BlockingSync([gate = gate, status = status] {
      gate->WaitForNotification();
      return status;
    });
  }

  // SyncLater calls, the gate and whether the disk is full; they outlive
  // the sink, which the seal closes.
  const std::shared_ptr<int> jobs = std::make_shared<int>(0);
  const std::shared_ptr<bool> full = std::make_shared<bool>(false);
  absl::Status status;
  const std::shared_ptr<absl::Notification> gate =
      std::make_shared<absl::Notification>();
};

// A disk that fills up: every Append fails once *full is set, with
// `error`.
class FillingSink final : public LogSink {
 public:
  explicit FillingSink(const bool* full, std::string error = "no space left")
      : full_(full), error_(std::move(error)) {}
  absl::Status Append(std::string_view bytes) override {
    if (*full_) return absl::ResourceExhaustedError(error_);
    return absl::OkStatus();
  }
  absl::Status Sync() override { return absl::OkStatus(); }

 private:
  const bool* full_;
  const std::string error_;
};

class MatchHostTest : public ::testing::Test {
 protected:
  // `checkpoint_interval`, `pool` (MatchHost::set_sync_pool) and
  // `ack_holder` (MatchHost::set_ack_holder) as given; by default no
  // periodic checkpoint, synced inline, no step held.
  void Start(
      std::unique_ptr<LogSink> sink,
      v1::ClockSettings clocks = v1::ClockSettings(),
      std::function<void(absl::Time)> on_deadline = [](absl::Time) {},
      uint32_t checkpoint_interval = 0, SyncPool* pool = nullptr,
      DelayedRunner* ack_holder = nullptr) {
    MatchConfig config;
    config.game.set_game("rock_paper_pyramid");
    config.clocks = clocks;
    std::vector<HostedSeat> seats;
    for (int i = 0; i < kSeats; ++i) {
      v1::Seat seat;
      seat.set_name("seat " + std::to_string(i));
      config.seats.push_back(seat);
      seats.push_back({seat.name(), "", static_cast<uint64_t>(i + 1)});
      sinks_[i] = std::make_shared<RecordingSink>(observation_once_[i],
                                                  holds_acknowledgements_[i]);
      connections_.Attach(seats.back().route, sinks_[i]);
    }
    config.checkpoint_interval = checkpoint_interval;
    absl::StatusOr<std::unique_ptr<Match>> match =
        Match::Create(config, referee_key_, std::move(sink), &clock_,
                      DeterministicEntropy(Sha256("match-host-test")));
    ASSERT_TRUE(match.ok()) << match.status();
    host_ = std::make_shared<MatchHost>(
        *std::move(match), config.game, std::move(seats), config.clocks,
        v1::FORFEIT_POLICY_FORFEIT, log_path_, 1234, &connections_,
        std::move(on_deadline));
    host_->set_sync_pool(pool);
    host_->set_ack_holder(ack_holder);
    host_->set_messages(messages_);
    host_->Start();
  }

  // The latest DecisionRequest of `seat` for `decision_id`.
  std::optional<v1::DecisionRequest> RequestOf(int seat,
                                               uint64_t decision_id) const {
    std::optional<v1::DecisionRequest> found;
    for (const v1::PlayResponse& message : sinks_.at(seat)->messages) {
      if (message.has_decision() &&
          message.decision().decision_id() == decision_id) {
        found = message.decision();
      }
    }
    return found;
  }

  // Every seat commits to its first legal action (a seed contribution in
  // the seed decision), then every seat reveals it; until the match ends.
  // From decision `first` (the ones before it played already).
  void PlayToTheEnd(
      const std::function<void(uint64_t)>& before_decision = [](uint64_t) {},
      uint64_t first = 0) {
    for (uint64_t id = first; !host_->finished(); ++id) {
      before_decision(id);
      ASSERT_LE(id, 20u) << "the match does not end";
      std::string bytes[kSeats];
      for (int seat = 0; seat < kSeats; ++seat) {
        const std::optional<v1::DecisionRequest> request = RequestOf(seat, id);
        ASSERT_TRUE(request.has_value())
            << "seat " << seat << " decision " << id;
        v1::Action action;
        if (id == 0) {
          action.mutable_seed()->set_contribution(std::string(32, 'a' + seat));
        } else {
          ASSERT_GT(request->legal_actions_size(), 0);
          action = request->legal_actions(0);
        }
        bytes[seat] = action.SerializeAsString();
        ASSERT_TRUE(host_->Commit(seat, CommitTo(seat, id, bytes[seat])));
      }
      for (int seat = 0; seat < kSeats; ++seat) {
        v1::RevealMove reveal;
        reveal.set_match_id(host_->match_id());
        reveal.set_seat(seat);
        reveal.set_decision_id(id);
        reveal.set_salt(Salt(seat));
        reveal.set_action(bytes[seat]);
        ASSERT_TRUE(host_->Reveal(seat, reveal));
      }
    }
  }

  static std::string Salt(int seat) { return std::string(32, 's' + seat); }

  // A match logged to `log` whose steps `holder` may hold
  // (MatchHost::set_ack_holder).
  void StartHolding(std::string* log, DelayedRunner* holder) {
    Start(
        std::make_unique<StringLogSink>(log), {}, [](absl::Time) {}, 0, nullptr,
        holder);
  }

  // A seed contribution's action, serialized.
  static std::string SeedBytes() {
    v1::Action action;
    action.mutable_seed()->set_contribution(std::string(32, 'a'));
    return action.SerializeAsString();
  }

  // `seat`'s commitment to `action_bytes` in decision `id`, salted by Salt().
  v1::CommitMove CommitTo(int seat, uint64_t id,
                          const std::string& action_bytes) const {
    v1::CommitMove commit;
    commit.set_match_id(host_->match_id());
    commit.set_seat(seat);
    commit.set_decision_id(id);
    commit.set_commitment(std::string(AsView(CommitmentHash(
        *FromHex(host_->match_id()), seat, id, Salt(seat), action_bytes))));
    return commit;
  }

  // The view `seat` had at each DecisionRequest after the seed decision, as
  // a client reads it: the request's observation, or with
  // observation_in_result the one of the DecisionResult before it.
  std::vector<std::string> ViewsAtRequests(int seat) const {
    std::vector<std::string> views;
    std::string last_result;
    for (const v1::PlayResponse& message : sinks_.at(seat)->messages) {
      if (message.has_result()) {
        last_result = message.result().observation().SerializeAsString();
      }
      if (!message.has_decision() || message.decision().decision_id() == 0) {
        continue;
      }
      views.push_back(
          message.decision().observation_in_result()
              ? last_result
              : message.decision().observation().SerializeAsString());
    }
    return views;
  }

  // The outcomes of the MatchEnded messages `seat` received.
  std::vector<std::string> EndingsOf(int seat) const {
    std::vector<std::string> outcomes;
    for (const v1::PlayResponse& message : sinks_.at(seat)->messages) {
      if (message.has_match_ended()) {
        outcomes.push_back(message.match_ended().outcome().SerializeAsString());
      }
    }
    return outcomes;
  }

  SigningKey referee_key_ = *SigningKey::FromSeed(std::string(32, 'k'));
  FakeClock clock_;
  Connections connections_;
  std::map<int, std::shared_ptr<RecordingSink>> sinks_;
  // Per seat: whether its stream opted into "observation-once".
  bool observation_once_[kSeats] = {};
  // Per seat: whether its stream takes acknowledgements late.
  bool holds_acknowledgements_[kSeats] = {};
  MessageSink messages_;  // What Start gives the host (empty: stderr).
  std::string log_path_ = "the-log-path";  // What Start gives the host.
  std::shared_ptr<MatchHost> host_;
};

TEST_F(MatchHostTest, ObservationOnceStreamsGetEachViewOnce) {
  // The same match (deterministic entropy and moves) twice: seat 1's stream
  // first without the feature, then with it.
  std::string log;
  Start(std::make_unique<StringLogSink>(&log));
  PlayToTheEnd();
  const std::vector<std::string> full = ViewsAtRequests(1);
  ASSERT_GT(full.size(), 1u);

  observation_once_[1] = true;
  std::string log_once;
  Start(std::make_unique<StringLogSink>(&log_once));
  PlayToTheEnd();
  EXPECT_EQ(ViewsAtRequests(1), full);
  for (const v1::PlayResponse& message : sinks_.at(1)->messages) {
    if (!message.has_decision()) continue;
    const bool seed = message.decision().decision_id() == 0;
    EXPECT_EQ(message.decision().observation_in_result(), !seed);
    EXPECT_FALSE(message.decision().has_observation());
  }
  for (const v1::PlayResponse& message : sinks_.at(0)->messages) {
    if (!message.has_decision()) continue;
    EXPECT_FALSE(message.decision().observation_in_result());
  }
}

TEST_F(MatchHostTest, AFinishedMatchAnswersFromWhatTheHostKept) {
  std::string log;
  Start(std::make_unique<StringLogSink>(&log));
  PlayToTheEnd();

  VerifyOptions options;
  options.pinned_key = referee_key_.public_key();
  const Verdict verdict = VerifyLog(log, options);
  ASSERT_EQ(verdict.kind, Verdict::Kind::kGenuine) << verdict.reason;
  const std::string outcome = verdict.outcome.SerializeAsString();
  for (int seat = 0; seat < kSeats; ++seat) {
    EXPECT_EQ(EndingsOf(seat), std::vector<std::string>({outcome}));
  }

  const v1::MatchInfo info = host_->Info(connections_);
  EXPECT_EQ(info.status(), v1::MATCH_FINISHED);
  EXPECT_EQ(info.outcome().SerializeAsString(), outcome);
  EXPECT_EQ(info.game().game(), "rock_paper_pyramid");
  ASSERT_EQ(info.seats_size(), kSeats);
  EXPECT_EQ(info.seats(2).name(), "seat 2");
  EXPECT_TRUE(info.seats(2).connected());
  EXPECT_EQ(info.created_unix_ms(), 1234);
  EXPECT_EQ(host_->log_path(), "the-log-path");
  EXPECT_EQ(host_->NextDeadline(), absl::InfiniteFuture());

  // A late commit is refused as the Match refuses it: nothing is logged.
  v1::CommitMove late;
  late.set_match_id(host_->match_id());
  late.set_decision_id(10);
  late.set_commitment(std::string(32, 'x'));
  EXPECT_FALSE(host_->Commit(0, late));
  const v1::PlayResponse& refusal = sinks_[0]->messages.back();
  ASSERT_TRUE(refusal.has_error());
  EXPECT_EQ(refusal.error().code(), kFailedPrecondition);
  EXPECT_THAT(refusal.error().message(), HasSubstr("over"));
  EXPECT_FALSE(refusal.error().faulted());
  const size_t sent = sinks_[0]->messages.size();
  host_->CheckDeadlines();  // Nothing is due.
  EXPECT_EQ(sinks_[0]->messages.size(), sent);

  // A reconnecting seat is told the end again; a watcher gets the summary.
  host_->SendOwedTo(1);
  EXPECT_EQ(EndingsOf(1), std::vector<std::string>({outcome, outcome}));
  auto watcher = std::make_shared<WatchRecorder>();
  ASSERT_TRUE(host_->AddWatcher(watcher, 10).ok());
  ASSERT_EQ(watcher->events.size(), 1u);
  EXPECT_EQ(watcher->events[0].match().status(), v1::MATCH_FINISHED);
  EXPECT_EQ(watcher->events[0].match().outcome().SerializeAsString(), outcome);
  EXPECT_EQ(watcher->closed_with, 0);
}

// A watcher present from the start, one that joins late, and one whose
// stream is full now and then all follow the match to the same end; the
// late one's snapshot is exactly what the first one knew at that moment.
TEST_F(MatchHostTest, WatchersFollowTheMatchThroughSnapshotsAndDeltas) {
  std::string log;
  Start(std::make_unique<StringLogSink>(&log));
  auto early = std::make_shared<WatchRecorder>();
  auto behind = std::make_shared<WatchRecorder>(/*refuse_every=*/7);
  ASSERT_TRUE(host_->AddWatcher(early, 10).ok());
  ASSERT_TRUE(host_->AddWatcher(behind, 10).ok());
  auto late = std::make_shared<WatchRecorder>();
  int checked = 0;
  PlayToTheEnd([&](uint64_t id) {
    if (id != 4) return;
    ASSERT_TRUE(host_->AddWatcher(late, 10).ok());
    ASSERT_EQ(late->events.size(), 2u);
    ASSERT_TRUE(late->events[1].has_snapshot());
    const v1::WatchSnapshot& snapshot = late->events[1].snapshot();
    EXPECT_EQ(snapshot.SerializeAsString(),
              early->Followed().state().SerializeAsString())
        << snapshot.ShortDebugString();
    EXPECT_EQ(snapshot.decision().decision_id(), 4u);
    EXPECT_EQ(snapshot.view().decision_id(), 3u);
    ++checked;
  });
  ASSERT_EQ(checked, 1);
  const WatchedMatch followed = early->Followed();
  EXPECT_TRUE(followed.ended());
  EXPECT_EQ(followed.snapshots(), 1);
  EXPECT_TRUE(followed.view().has_rock_paper_pyramid());
  EXPECT_EQ(followed.view().rock_paper_pyramid().rounds_played(),
            followed.view().rock_paper_pyramid().total_rounds());
  for (const auto& other : {late, behind}) {
    const WatchedMatch view = other->Followed();
    EXPECT_TRUE(view.ended());
    EXPECT_EQ(view.view().SerializeAsString(),
              followed.view().SerializeAsString());
    EXPECT_EQ(other->closed_with, 0);
  }
  EXPECT_GT(behind->refused, 0);
  EXPECT_EQ(behind->Followed().snapshots(), 1 + behind->refused);
  // Only what is new: no event repeats the rounds already seen.
  for (const v1::WatchEvent& event : early->events) {
    if (event.has_delta()) {
      EXPECT_LE(event.delta().changed().rock_paper_pyramid().history_size(), 1)
          << event.ShortDebugString();
    }
  }
}

TEST_F(MatchHostTest, AMatchTakesAsManyWatchersAsItsLimit) {
  std::string log;
  Start(std::make_unique<StringLogSink>(&log));
  auto first = std::make_shared<WatchRecorder>();
  auto second = std::make_shared<WatchRecorder>();
  ASSERT_TRUE(host_->AddWatcher(first, 2).ok());
  ASSERT_TRUE(host_->AddWatcher(second, 2).ok());
  auto third = std::make_shared<WatchRecorder>();
  const absl::Status refused = host_->AddWatcher(third, 2);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(), HasSubstr("--max_watchers_per_match"));
  EXPECT_TRUE(third->events.empty());
  // A watcher that left makes room.
  first->Close(1, "cancelled");
  EXPECT_TRUE(host_->AddWatcher(third, 2).ok());
}

// Issue 16: the end is announced only once the seal is durable. A match
// whose seal cannot be synced tells its seats and watchers it broke, never
// that it ended.
TEST_F(MatchHostTest, AMatchWhoseLogCannotBeSealedStaysBroken) {
  Start(std::make_unique<UnsyncableSink>());
  auto watcher = std::make_shared<WatchRecorder>();
  ASSERT_TRUE(host_->AddWatcher(watcher, 10).ok());
  PlayToTheEnd();
  EXPECT_EQ(host_->Info(connections_).status(), v1::MATCH_BROKEN);
  for (int seat = 0; seat < kSeats; ++seat) {
    EXPECT_TRUE(EndingsOf(seat).empty()) << "seat " << seat;
    const v1::PlayResponse& last = sinks_[seat]->messages.back();
    ASSERT_TRUE(last.has_error()) << last.ShortDebugString();
    EXPECT_EQ(last.error().code(),
              static_cast<int>(absl::StatusCode::kDataLoss));
  }
  for (const v1::WatchEvent& event : watcher->events) {
    EXPECT_FALSE(event.has_outcome());
  }
  EXPECT_EQ(watcher->closed_with,
            static_cast<int>(absl::StatusCode::kDataLoss));
}

// What a call logs is written in one batch, and nothing it caused is sent
// before the batch is written: a commit whose record never reached the disk
// is never acknowledged, and no watcher hears of it.
TEST_F(MatchHostTest, NothingIsSentForARecordThatWasNotWritten) {
  bool full = false;
  Start(std::make_unique<FillingSink>(&full));
  auto watcher = std::make_shared<WatchRecorder>();
  ASSERT_TRUE(host_->AddWatcher(watcher, 10).ok());
  const std::string seed(32, 'a');
  v1::Action action;
  action.mutable_seed()->set_contribution(seed);
  ASSERT_TRUE(host_->Commit(0, CommitTo(0, 0, action.SerializeAsString())));
  const size_t events = watcher->events.size();
  full = true;
  host_->Commit(1, CommitTo(1, 0, action.SerializeAsString()));
  EXPECT_EQ(host_->Info(connections_).status(), v1::MATCH_BROKEN);
  int acks[kSeats] = {};
  for (int seat = 0; seat < kSeats; ++seat) {
    for (const v1::PlayResponse& m : sinks_[seat]->messages) {
      acks[seat] += m.has_commit_ack();
    }
    const v1::PlayResponse& last = sinks_[seat]->messages.back();
    ASSERT_TRUE(last.has_error()) << last.ShortDebugString();
    EXPECT_EQ(last.error().code(),
              static_cast<int>(absl::StatusCode::kDataLoss));
  }
  EXPECT_EQ(acks[0], 1);
  EXPECT_EQ(acks[1], 0);  // Its commit is not in the log.
  EXPECT_EQ(watcher->events.size(), events);
  EXPECT_EQ(watcher->closed_with,
            static_cast<int>(absl::StatusCode::kDataLoss));
}

// A token seat's stream plays its match alone: once the match breaks, the
// stream is closed DATA_LOSS behind the PlayError saying why. A seat that
// connects to the broken match while its host still runs (a stream that
// found the host before the lobby let it go) is told the same, its stream
// closed the same way, and is not asked for the open decision.
TEST_F(MatchHostTest, ABrokenMatchEndsItsTokenSeatsStreams) {
  constexpr int kDataLoss = static_cast<int>(absl::StatusCode::kDataLoss);
  bool full = false;
  Start(std::make_unique<FillingSink>(&full));
  full = true;
  host_->Commit(0, CommitTo(0, 0, SeedBytes()));
  ASSERT_EQ(host_->Info(connections_).status(), v1::MATCH_BROKEN);
  for (int seat = 0; seat < kSeats; ++seat) {
    const v1::PlayResponse& last = sinks_[seat]->messages.back();
    ASSERT_TRUE(last.has_error()) << last.ShortDebugString();
    EXPECT_EQ(last.error().code(), kDataLoss);
    EXPECT_EQ(sinks_[seat]->closed_with, kDataLoss) << "seat " << seat;
  }
  auto again = std::make_shared<RecordingSink>();
  connections_.Attach(3, again);  // Seat 2's route: a new stream.
  host_->SendOwedTo(2);
  ASSERT_EQ(again->messages.size(), 1u);
  const v1::PlayResponse& told = again->messages[0];
  ASSERT_TRUE(told.has_error()) << told.ShortDebugString();
  EXPECT_EQ(told.error().code(), kDataLoss);
  EXPECT_EQ(told.error().message(),
            sinks_[2]->messages.back().error().message());
  EXPECT_EQ(again->closed_with, kDataLoss);
}

// A shutdown checkpoint that cannot be written (a full disk) is said on
// stderr, naming the match, the error and what happens next; it said
// nothing. The match is not announced broken (the next start resumes it
// from its log, as after a crash): no seat is sent an error. A match that
// broke before is not said again.
TEST_F(MatchHostTest, AShutdownCheckpointThatCannotBeWrittenIsSaid) {
  bool full = false;
  Start(std::make_unique<FillingSink>(&full));
  v1::Action action;
  action.mutable_seed()->set_contribution(std::string(32, 'a'));
  ASSERT_TRUE(host_->Commit(0, CommitTo(0, 0, action.SerializeAsString())));
  full = true;
  ::testing::internal::CaptureStderr();
  host_->Suspend();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "referee: match " + host_->match_id() +
                ": its shutdown checkpoint could not be written (no space "
                "left); it will be resumed from its log at the next start, "
                "as after a crash (from its last complete record)\n");
  for (int seat = 0; seat < kSeats; ++seat) {
    for (const v1::PlayResponse& m : sinks_[seat]->messages) {
      EXPECT_FALSE(m.has_error()) << seat << ": " << m.ShortDebugString();
    }
  }
  ::testing::internal::CaptureStderr();
  host_->Suspend();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

// Given a sink (set_messages), the host says there what it would say on
// stderr: here, that its match broke.
TEST_F(MatchHostTest, SaysWhatItSaysToTheSinkItIsGiven) {
  std::vector<std::string> said;
  messages_ = [&said](std::string_view message) { said.emplace_back(message); };
  bool full = false;
  Start(std::make_unique<FillingSink>(&full));
  v1::Action action;
  action.mutable_seed()->set_contribution(std::string(32, 'a'));
  full = true;
  ::testing::internal::CaptureStderr();
  host_->Commit(0, CommitTo(0, 0, action.SerializeAsString()));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(host_->Info(connections_).status(), v1::MATCH_BROKEN);
  EXPECT_THAT(said,
              ::testing::ElementsAre(absl::StrCat("match ", host_->match_id(),
                                                  " broken: no space left")));
}

// Why a match broke is told to anyone (MatchInfo.broken_reason, a seat's
// PlayError, a watcher's end) with each file named by its name only: the
// log's directory, whatever it holds, and any other absolute path's (a
// journal file) are the operator's, told on the referee's own line. An
// archived match whose recorded reason named them (recorded before) is
// told the same.
TEST_F(MatchHostTest, ABrokenMatchNamesItsFilesWithoutTheirDirectories) {
  log_path_ = "/var/lib/pyramid: referee/logs/00ab.pyrlog";
  const std::string error =
      absl::StrCat("write ", log_path_,
                   ": No space left on device (and cannot sync the directory "
                   "/var/lib/pyramid: referee/logs; the journal "
                   "/srv/data/journal/0000000000000007.journal)");
  const std::string told =
      "write 00ab.pyrlog: No space left on device (and cannot sync the "
      "directory logs; the journal 0000000000000007.journal)";
  std::vector<std::string> said;
  messages_ = [&said](std::string_view message) { said.emplace_back(message); };
  bool full = false;
  Start(std::make_unique<FillingSink>(&full, error));
  auto watcher = std::make_shared<WatchRecorder>();
  ASSERT_TRUE(host_->AddWatcher(watcher, 10).ok());
  full = true;
  host_->Commit(0, CommitTo(0, 0, SeedBytes()));
  const v1::MatchInfo info = host_->Info(connections_);
  EXPECT_EQ(info.status(), v1::MATCH_BROKEN);
  EXPECT_EQ(info.broken_reason(), told);
  for (int seat = 0; seat < kSeats; ++seat) {
    const v1::PlayResponse& last = sinks_[seat]->messages.back();
    ASSERT_TRUE(last.has_error()) << last.ShortDebugString();
    EXPECT_THAT(last.error().message(), HasSubstr(told));
    EXPECT_THAT(last.error().message(), Not(HasSubstr("/")));
  }
  EXPECT_EQ(watcher->closed_with,
            static_cast<int>(absl::StatusCode::kDataLoss));
  EXPECT_THAT(said, ::testing::ElementsAre(absl::StrCat(
                        "match ", host_->match_id(), " broken: ", error)));

  v1::MatchInfo recorded = info;
  recorded.set_broken_reason(error);
  const MatchHost archived(recorded, log_path_, RoutesOf({}), &connections_);
  EXPECT_EQ(archived.Info(connections_).broken_reason(), told);
}

// A step whose only answer is an acknowledgement to a stream that takes it
// late is held: its record is not written and its ack not sent until the
// next step of the match, which writes both in one append and sends the
// ack just before what that step sends the seat.
TEST_F(MatchHostTest, AStepThatOnlyAcknowledgesIsWrittenWithTheNext) {
  DelayedRunner holder(absl::Minutes(1));
  for (bool& holds : holds_acknowledgements_) holds = true;
  std::string log;
  StartHolding(&log, &holder);
  const std::string bytes = SeedBytes();
  const size_t before = log.size();
  const size_t sent_before = sinks_[0]->Count();
  ASSERT_TRUE(host_->Commit(0, CommitTo(0, 0, bytes)));
  ASSERT_TRUE(host_->Commit(1, CommitTo(1, 0, bytes)));
  EXPECT_EQ(log.size(), before);               // Neither commit is written yet,
  EXPECT_EQ(sinks_[0]->Count(), sent_before);  // nor acknowledged.
  EXPECT_EQ(sinks_[1]->Count(), sent_before);
  ASSERT_TRUE(host_->Commit(2, CommitTo(2, 0, bytes)));
  EXPECT_GT(log.size(), before);
  for (int seat = 0; seat < kSeats; ++seat) {
    const std::vector<v1::PlayResponse>& got = sinks_[seat]->messages;
    ASSERT_EQ(got.size(), sent_before + 2) << "seat " << seat;
    EXPECT_TRUE(got[sent_before].has_commit_ack()) << "seat " << seat;
    EXPECT_TRUE(got[sent_before + 1].has_reveal_request()) << "seat " << seat;
  }
  const std::vector<v1::LogRecord> records = [&] {
    std::vector<v1::LogRecord> parsed;
    for (const RawRecord& record : SplitLog(log).records) {
      EXPECT_TRUE(parsed.emplace_back().ParseFromArray(
          record.bytes.data(), static_cast<int>(record.bytes.size())));
    }
    return parsed;
  }();
  int commits = 0;
  for (const v1::LogRecord& record : records) commits += record.has_commit();
  EXPECT_EQ(commits, kSeats);
  // The reveals likewise: the first two wait for the third.
  const size_t committed = log.size();
  for (int seat = 0; seat < kSeats; ++seat) {
    v1::RevealMove reveal;
    reveal.set_match_id(host_->match_id());
    reveal.set_seat(seat);
    reveal.set_decision_id(0);
    reveal.set_salt(Salt(seat));
    reveal.set_action(bytes);
    ASSERT_TRUE(host_->Reveal(seat, reveal));
    if (seat + 1 < kSeats) {
      EXPECT_EQ(log.size(), committed);
    }
  }
  EXPECT_GT(log.size(), committed);
  EXPECT_TRUE(sinks_[0]->messages[sent_before + 2].has_reveal_ack());
  EXPECT_TRUE(sinks_[0]->messages[sent_before + 3].has_result());
  // The rest of the match plays as without holds, to a genuine log.
  PlayToTheEnd([](uint64_t) {}, 1);
  VerifyOptions options;
  options.pinned_key = referee_key_.public_key();
  EXPECT_EQ(VerifyLog(log, options).kind, Verdict::Kind::kGenuine);
}

// Whatever tells a seat or a watcher about the match ends a hold first: a
// reconnecting seat gets its held acknowledgement, written, before the
// request that says it committed; a watcher's snapshot comes after the
// held record is written.
TEST_F(MatchHostTest, ResumeAndAWatcherEndAHold) {
  DelayedRunner holder(absl::Minutes(1));
  holds_acknowledgements_[0] = true;
  holds_acknowledgements_[1] = true;
  std::string log;
  StartHolding(&log, &holder);
  const std::string bytes = SeedBytes();
  const size_t before = log.size();
  const size_t sent_before = sinks_[0]->Count();
  ASSERT_TRUE(host_->Commit(0, CommitTo(0, 0, bytes)));
  EXPECT_EQ(log.size(), before);
  host_->SendOwedTo(0);
  EXPECT_GT(log.size(), before);
  ASSERT_EQ(sinks_[0]->messages.size(), sent_before + 2);
  EXPECT_TRUE(sinks_[0]->messages[sent_before].has_commit_ack());
  EXPECT_TRUE(sinks_[0]->messages[sent_before + 1].decision().committed());

  const size_t written = log.size();
  ASSERT_TRUE(host_->Commit(1, CommitTo(1, 0, bytes)));
  EXPECT_EQ(log.size(), written);
  auto watcher = std::make_shared<WatchRecorder>();
  ASSERT_TRUE(host_->AddWatcher(watcher, 10).ok());
  EXPECT_GT(log.size(), written);
  EXPECT_TRUE(sinks_[1]->messages.back().has_commit_ack());
}

// A hold ends after the holder's delay when no step follows; a stream that
// takes acknowledgements at once ends it earlier.
TEST_F(MatchHostTest, AHoldLastsTheHoldersDelayAtMost) {
  DelayedRunner holder(absl::Milliseconds(20));
  holds_acknowledgements_[0] = true;
  std::string log;
  StartHolding(&log, &holder);
  const std::string bytes = SeedBytes();
  const size_t sent_before = sinks_[0]->Count();
  const absl::Time start = absl::Now();
  ASSERT_TRUE(host_->Commit(0, CommitTo(0, 0, bytes)));
  while (sinks_[0]->Count() == sent_before &&
         absl::Now() - start < absl::Seconds(30)) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(20));
  ASSERT_EQ(sinks_[0]->Count(), sent_before + 1);
  EXPECT_TRUE(sinks_[0]->messages.back().has_commit_ack());

  // Seat 1 takes its acknowledgements at once: seat 2's held commit goes
  // out with seat 1's.
  holds_acknowledgements_[0] = false;
  holds_acknowledgements_[2] = true;
  DelayedRunner long_holder(absl::Minutes(1));
  std::string second_log;
  StartHolding(&second_log, &long_holder);
  const size_t sent_to_2 = sinks_[2]->Count();
  ASSERT_TRUE(host_->Commit(2, CommitTo(2, 0, bytes)));
  EXPECT_EQ(sinks_[2]->Count(), sent_to_2);
  ASSERT_TRUE(host_->Commit(1, CommitTo(1, 0, bytes)));
  EXPECT_EQ(sinks_[2]->Count(), sent_to_2 + 1);
  EXPECT_TRUE(sinks_[1]->messages.back().has_commit_ack());
}

// The host keeps each seat's stream while the connections do not change:
// a stream attached (or one detached) since is what the seat's next
// message finds.
TEST_F(MatchHostTest, ASeatsNextMessageGoesToItsCurrentStream) {
  std::string log;
  Start(std::make_unique<StringLogSink>(&log));
  const std::string bytes = SeedBytes();
  const uint64_t version = connections_.version();
  auto second = std::make_shared<RecordingSink>();
  connections_.Attach(1, second);  // Seat 0's route: a new stream.
  EXPECT_NE(connections_.version(), version);
  EXPECT_EQ(sinks_[0]->closed_with, 10);  // ABORTED: replaced.
  ASSERT_TRUE(host_->Commit(0, CommitTo(0, 0, bytes)));
  ASSERT_FALSE(second->messages.empty());
  EXPECT_TRUE(second->messages.back().has_commit_ack());

  const uint64_t attached = connections_.version();
  connections_.Detach(1, second.get());
  EXPECT_NE(connections_.version(), attached);
  const size_t sent = second->messages.size();
  ASSERT_TRUE(host_->Commit(1, CommitTo(1, 0, bytes)));
  ASSERT_TRUE(host_->Commit(2, CommitTo(2, 0, bytes)));  // Reveal requests.
  EXPECT_EQ(second->messages.size(), sent);  // Seat 0 has no stream now.
  EXPECT_TRUE(sinks_[1]->messages.back().has_reveal_request());
}

// CallWhenOver calls back once the match is over: at its end, at once
// when it is over already, and when it breaks.
TEST_F(MatchHostTest, CallWhenOverCallsBackOnceTheMatchIsOver) {
  std::string log;
  Start(std::make_unique<StringLogSink>(&log));
  int calls = 0;
  host_->CallWhenOver([&] { ++calls; });
  PlayToTheEnd([&](uint64_t) { EXPECT_EQ(calls, 0); });
  EXPECT_EQ(calls, 1);
  host_->CallWhenOver([&] { ++calls; });
  EXPECT_EQ(calls, 2);

  bool full = false;
  Start(std::make_unique<FillingSink>(&full));
  int broken_calls = 0;
  host_->CallWhenOver([&] { ++broken_calls; });
  full = true;
  host_->Commit(0, CommitTo(0, 0, SeedBytes()));
  EXPECT_EQ(host_->Info(connections_).status(), v1::MATCH_BROKEN);
  EXPECT_EQ(broken_calls, 1);
}

// With a sync pool, a step that wrote a checkpoint sends nothing until its
// sync is done, and what the match sends after it waits behind it; then
// all of it goes out in order. A sync that fails sends none of it and
// breaks the match.
TEST_F(MatchHostTest, WhatACheckpointCausesWaitsForItsSyncOnThePool) {
  for (const bool fails : {false, true}) {
    SCOPED_TRACE(fails ? "the sync fails" : "the sync succeeds");
    auto pool = std::make_unique<SyncPool>(1);
    auto owned = std::make_unique<GatedSink>();
    GatedSink* sink = owned.get();
    if (fails) sink->status = absl::DataLossError("disk gone");
    for (auto& [seat, recording] : sinks_) recording->messages.clear();
    Start(
        std::move(owned), v1::ClockSettings(), [](absl::Time) {},
        /*checkpoint_interval=*/2, pool.get());
    ASSERT_EQ(*sink->jobs, 0) << "the checkpoint came before the commits";
    // Seats commit in turn until a commit's step owes a sync. (The pool's
    // thread is blocked in it meanwhile: the sinks are the test's alone.)
    v1::Action action;
    action.mutable_seed()->set_contribution(std::string(32, 'a'));
    const std::string bytes = action.SerializeAsString();
    int held = -1;
    size_t before = 0;
    for (int seat = 0; seat < kSeats && held < 0; ++seat) {
      before = sinks_[seat]->messages.size();
      ASSERT_TRUE(host_->Commit(seat, CommitTo(seat, 0, bytes)));
      if (*sink->jobs > 0) held = seat;
    }
    ASSERT_GE(held, 0) << "no commit wrote a checkpoint";
    EXPECT_EQ(sinks_[held]->messages.size(), before);  // Its ack waits.
    // A refusal after it waits behind it too.
    host_->Commit(held, CommitTo(held, 0, bytes));
    EXPECT_EQ(sinks_[held]->messages.size(), before);
    sink->gate->Notify();
    pool.reset();  // Runs the sync and what follows it; joins.
    const std::vector<v1::PlayResponse>& got = sinks_[held]->messages;
    if (fails) {
      EXPECT_EQ(host_->Info(connections_).status(), v1::MATCH_BROKEN);
      ASSERT_EQ(got.size(), before + 1);  // Only that the match broke.
      EXPECT_EQ(got.back().error().code(),
                static_cast<int>(absl::StatusCode::kDataLoss));
    } else {
      EXPECT_EQ(host_->Info(connections_).status(), v1::MATCH_RUNNING);
      ASSERT_GE(got.size(), before + 2);
      EXPECT_TRUE(got[before].has_commit_ack()) << got[before].DebugString();
      EXPECT_TRUE(got.back().has_error()) << got.back().DebugString();
    }
    host_.reset();
  }
}

// With a sync pool, a match that breaks while a sync is pending (a write
// behind the checkpoint fails) says so behind what waits for that sync.
// Whether the sync then succeeds or fails, each seat is told once that the
// match broke, a token seat's stream is closed DATA_LOSS behind it, and the
// match is entered (on_end) once, broken. Before, a sync that failed
// dropped the break notices with what waited, and the seats were never
// told; one that succeeded ended the match that broke at its seal, which
// was entered again, and then said to be finished.
TEST_F(MatchHostTest, ABreakBehindAPendingSyncIsToldOnceWhateverTheSync) {
  constexpr int kDataLoss = static_cast<int>(absl::StatusCode::kDataLoss);
  for (const bool fails : {false, true}) {
    SCOPED_TRACE(fails ? "the sync fails" : "the sync succeeds");
    auto pool = std::make_unique<SyncPool>(1);
    auto owned = std::make_unique<GatedSink>();
    if (fails) owned->status = absl::DataLossError("disk gone");
    // (The sink goes with the match's log, which the seal closes.)
    const std::shared_ptr<int> jobs = owned->jobs;
    const std::shared_ptr<absl::Notification> gate = owned->gate;
    const std::shared_ptr<bool> full = owned->full;
    v1::ClockSettings clocks;
    clocks.set_commit_timeout_ms(1000);
    clocks.set_reveal_timeout_ms(1000);
    Start(
        std::move(owned), clocks, [](absl::Time) {},
        /*checkpoint_interval=*/2, pool.get());
    // Seats commit in turn until a commit's step owes a sync, which waits
    // at the gate.
    const std::string bytes = SeedBytes();
    for (int seat = 0; seat < kSeats && *jobs == 0; ++seat) {
      ASSERT_TRUE(host_->Commit(seat, CommitTo(seat, 0, bytes)));
    }
    ASSERT_GT(*jobs, 0) << "no commit wrote a checkpoint";
    std::vector<v1::MatchStatus> ends;
    host_->set_on_end(
        [&](const v1::MatchInfo& info) { ends.push_back(info.status()); });
    // The disk fills up: what the deadlines cause (the faults of the seats
    // that did not move in time, the end and its seal) cannot be written,
    // and the match breaks.
    *full = true;
    clock_.Advance(absl::Seconds(2));
    host_->CheckDeadlines();
    ASSERT_EQ(host_->Info(connections_).status(), v1::MATCH_BROKEN);
    gate->Notify();
    pool.reset();  // Runs the sync and what follows it; joins.
    // Entered once, broken: a sync done does not end a match that broke.
    EXPECT_EQ(ends, std::vector<v1::MatchStatus>{v1::MATCH_BROKEN});
    EXPECT_EQ(host_->Info(connections_).status(), v1::MATCH_BROKEN);
    for (int seat = 0; seat < kSeats; ++seat) {
      SCOPED_TRACE(absl::StrCat("seat ", seat));
      int told = 0;
      for (const v1::PlayResponse& m : sinks_[seat]->messages) {
        told += m.error().code() == kDataLoss ? 1 : 0;
      }
      EXPECT_EQ(told, 1);
      ASSERT_FALSE(sinks_[seat]->messages.empty());
      EXPECT_EQ(sinks_[seat]->messages.back().error().code(), kDataLoss);
      EXPECT_EQ(sinks_[seat]->closed_with, kDataLoss);
    }
    host_.reset();
  }
}

// With a sync pool, the seal's sync runs there too, and the end waits for
// it: no seat or watcher hears of it, a seat that reconnects is not told
// it, GetMatch says the match runs, and on_end (the transparency log's
// entry) is not called, until the seal is durable; then each seat gets one
// MatchEnded. A seal whose sync fails breaks the match instead.
TEST_F(MatchHostTest, TheEndWaitsForTheSealsSyncOnThePool) {
  for (const bool fails : {false, true}) {
    SCOPED_TRACE(fails ? "the sync fails" : "the sync succeeds");
    auto pool = std::make_unique<SyncPool>(1);
    auto owned = std::make_unique<GatedSink>();
    owned->status = fails ? absl::DataLossError("disk gone") : absl::OkStatus();
    const std::shared_ptr<int> jobs = owned->jobs;
    const std::shared_ptr<absl::Notification> gate = owned->gate;
    v1::ClockSettings clocks;
    clocks.set_commit_timeout_ms(1000);
    Start(
        std::move(owned), clocks, [](absl::Time) {},
        /*checkpoint_interval=*/0, pool.get());
    std::vector<v1::MatchInfo> ends;
    auto watcher = std::make_shared<WatchRecorder>();
    // The end is entered (the lobby's on_end: transparency log, registry,
    // the live count) before any seat or watcher hears of it, an end or a
    // break, so that whoever hears of it can have it proved at once, or
    // create the next match in its place.
    int heard_before_entry = 0;
    host_->set_on_end([&](const v1::MatchInfo& info) {
      ends.push_back(info);
      for (int seat = 0; seat < kSeats; ++seat) {
        heard_before_entry += static_cast<int>(EndingsOf(seat).size());
        for (const v1::PlayResponse& m : sinks_[seat]->messages) {
          heard_before_entry +=
              m.error().code() == static_cast<int>(absl::StatusCode::kDataLoss)
                  ? 1
                  : 0;  // The break (a fault is not: the match goes on).
        }
      }
      for (const auto& event : watcher->events) {
        heard_before_entry += event.has_outcome() ? 1 : 0;
      }
      heard_before_entry += watcher->closed_with != -1 ? 1 : 0;
    });
    // Nobody commits: every seat times out, and the match ends forfeited.
    clock_.Advance(absl::Seconds(2));
    host_->CheckDeadlines();
    ASSERT_EQ(*jobs, 1) << "the seal's sync is not on the pool";
    ASSERT_TRUE(host_->AddWatcher(watcher, 10).ok());
    host_->SendOwedTo(1);
    for (int seat = 0; seat < kSeats; ++seat) {
      EXPECT_TRUE(EndingsOf(seat).empty()) << "seat " << seat;
    }
    EXPECT_TRUE(ends.empty());
    EXPECT_EQ(watcher->closed_with, -1);
    EXPECT_EQ(host_->Info(connections_).status(), v1::MATCH_RUNNING);
    gate->Notify();
    pool.reset();  // Runs the sync and what follows it; joins.
    ASSERT_EQ(ends.size(), 1u);
    EXPECT_EQ(heard_before_entry, 0);
    if (fails) {
      EXPECT_EQ(ends[0].status(), v1::MATCH_BROKEN);
      for (int seat = 0; seat < kSeats; ++seat) {
        EXPECT_TRUE(EndingsOf(seat).empty()) << "seat " << seat;
        EXPECT_EQ(sinks_[seat]->messages.back().error().code(),
                  static_cast<int>(absl::StatusCode::kDataLoss));
      }
      EXPECT_EQ(watcher->closed_with,
                static_cast<int>(absl::StatusCode::kDataLoss));
    } else {
      EXPECT_EQ(ends[0].status(), v1::MATCH_FINISHED);
      EXPECT_EQ(host_->Info(connections_).status(), v1::MATCH_FINISHED);
      for (int seat = 0; seat < kSeats; ++seat) {
        EXPECT_EQ(EndingsOf(seat).size(), 1u) << "seat " << seat;
      }
      ASSERT_FALSE(watcher->events.empty());
      EXPECT_TRUE(watcher->events.back().has_outcome());
      EXPECT_EQ(watcher->closed_with, 0);
    }
    host_.reset();
  }
}

// Issue 19. Two calls race: the one that opened the seed decision is about
// to hand its (commit) deadline to the scheduler when, on another thread,
// every seat commits and the reveal phase opens with a new deadline. The
// injected scheduler lets the second call run to the end first if it can.
// Whatever the interleaving, the last deadline handed over must be the
// match's current one; before the fix the stale commit deadline came last,
// and the reveal deadline never fired.
TEST_F(MatchHostTest, TheLastDeadlineHandedOverIsTheCurrentOne) {
  v1::ClockSettings clocks;
  clocks.set_commit_timeout_ms(10000);
  clocks.set_reveal_timeout_ms(3000);
  absl::Mutex mu;
  std::vector<absl::Time> handed_over;
  bool first = true;
  std::thread racer;
  absl::Notification racer_done;
  auto on_deadline = [&](absl::Time when) {
    bool race;
    {
      absl::MutexLock lock(&mu);
      race = first;
      first = false;
    }
    if (race) {
      racer = std::thread([&] {
        for (int seat = 0; seat < kSeats; ++seat) {
          v1::Action action;
          action.mutable_seed()->set_contribution(std::string(32, 'a' + seat));
          EXPECT_TRUE(host_->Commit(
              seat, CommitTo(seat, 0, action.SerializeAsString())));
        }
        racer_done.Notify();
      });
      // Without the fix the racer finishes inside this wait; with it, the
      // racer waits for the host's lock and this wait times out.
      racer_done.WaitForNotificationWithTimeout(absl::Milliseconds(500));
    }
    absl::MutexLock lock(&mu);
    handed_over.push_back(when);
  };
  std::string log;
  Start(std::make_unique<StringLogSink>(&log), clocks, on_deadline);
  racer.join();

  for (int seat = 0; seat < kSeats; ++seat) {  // The reveal phase is open.
    EXPECT_TRUE(sinks_[seat]->messages.back().has_reveal_request()) << seat;
  }
  const absl::Time reveal_deadline = clock_.Now() + absl::Milliseconds(3000);
  EXPECT_EQ(host_->NextDeadline(), reveal_deadline);
  absl::MutexLock lock(&mu);
  ASSERT_FALSE(handed_over.empty());
  EXPECT_EQ(handed_over.back(), reveal_deadline);
}

}  // namespace
}  // namespace pyramid
