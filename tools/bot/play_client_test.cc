// The reference bot's play (play_client.h), without its command line,
// against a referee in this process: one bot token playing every seat of a
// three-seat match of each game, over one Play stream, to the end, each log
// genuine under the referee's key; Stop ending a Run that waits for
// matches; and, against a fake referee that ends its stream while the bot's
// answer is on its way, the bot ending that stream too (it waited in Finish
// forever). tests/bot_cli_test.sh runs the bot program itself.
#include "tools/bot/play_client.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/sha256.h"
#include "replay/verifier.h"
#include "tests/test_client.h"
#include "tests/test_referee.h"
#include "tools/bot/strategy.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
namespace fs = std::filesystem;

class PlayClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    svctest::TestRefereeOptions options;
    options.dir_prefix = "play-client-test";
    referee_ = std::make_unique<svctest::TestReferee>(options);
    ASSERT_TRUE(referee_->ok());

    grpc::ClientContext context;
    svctest::Authorize(context, referee_->admin_token());
    v1::RegisterBotRequest request;
    request.set_name("reference");
    const grpc::Status status =
        referee_->stub().RegisterBot(&context, request, &bot_);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  // Three seats: Rock, Paper, Pyramid! takes three, every other game can.
  static constexpr int kSeats = 3;

  // Creates a match of `game` with the bot in every seat.
  void CreateMatch(const std::string& game) {
    v1::CreateMatchRequest request;
    request.mutable_game()->set_game(game);
    for (int seat = 0; seat < kSeats; ++seat) {
      request.add_seats()->set_bot_id(bot_.bot_id());
    }
    grpc::ClientContext context;
    svctest::Authorize(context, referee_->admin_token());
    v1::CreateMatchResponse response;
    const grpc::Status status =
        referee_->stub().CreateMatch(&context, request, &response);
    ASSERT_TRUE(status.ok()) << game << ": " << status.error_message();
  }

  // A client playing with `game`'s heuristic strategy (every game's when
  // empty) until `matches` seats' matches have ended.
  std::unique_ptr<PlayClient> NewClient(int matches) {
    absl::StatusOr<std::unique_ptr<Strategy>> strategy =
        MakeStrategy("", "heuristic");
    EXPECT_TRUE(strategy.ok()) << strategy.status();
    PlayClientOptions options;
    options.matches = matches;
    options.quiet = true;
    return std::make_unique<PlayClient>(options, *std::move(strategy),
                                        Sha256("play-client-test"),
                                        std::nullopt);
  }

  std::unique_ptr<svctest::TestReferee> referee_;
  v1::RegisterBotResponse bot_;
};

TEST_F(PlayClientTest, PlaysAMatchOfEveryGameToItsEnd) {
  for (const std::string& game : BotGames()) {
    ASSERT_NO_FATAL_FAILURE(CreateMatch(game));
  }
  const int seats = kSeats * static_cast<int>(BotGames().size());
  std::unique_ptr<PlayClient> client = NewClient(seats);
  EXPECT_EQ(
      client->Run(*referee_->channel(), referee_->stub(), bot_.bot_token()), 0);
  // Stopped, the referee has sealed every log it wrote.
  referee_->Stop();

  std::vector<std::string> games;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(referee_->dir())) {
    if (entry.path().extension() != ".pyrlog") continue;
    absl::StatusOr<std::string> bytes = ReadFileToString(entry.path().string());
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    VerifyOptions options;
    options.pinned_key = referee_->public_key();
    const Verdict verdict = VerifyLog(*bytes, options);
    EXPECT_EQ(verdict.kind, Verdict::Kind::kGenuine)
        << entry.path() << ": " << verdict.reason;
    // Played to the end by the rules: no seat forfeited.
    EXPECT_NE(verdict.outcome.termination(), v1::TERMINATION_FORFEIT)
        << entry.path();
    EXPECT_EQ(verdict.outcome.seats_size(), kSeats) << entry.path();
    games.push_back(verdict.header.game().game());
  }
  std::vector<std::string> expected = BotGames();
  std::sort(games.begin(), games.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(games, expected);
}

TEST_F(PlayClientTest, StopEndsARunWaitingForMatches) {
  std::unique_ptr<PlayClient> client = NewClient(1);
  int status = -1;
  std::thread run([&] {
    status =
        client->Run(*referee_->channel(), referee_->stub(), bot_.bot_token());
  });
  absl::SleepFor(absl::Milliseconds(200));
  client->Stop();
  run.join();
  // Stopped without a PlayError.
  EXPECT_EQ(status, 0);
}

// A Referee whose first Play stream sends a decision and one more message,
// then ends with `first_status` without reading what the bot sends; its
// second sends the seat's MatchEnded. The bot's strategy (WaitingStrategy)
// decides only once the first stream is over on the bot's side too, so
// that its answer's write fails with a message still unread.
class EndingEarlyReferee final : public v1::Referee::CallbackService {
 public:
  static constexpr char kMatchId[] =
      "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

  explicit EndingEarlyReferee(grpc::Status first_status)
      : first_status_(std::move(first_status)) {}

  grpc::ServerBidiReactor<v1::PlayRequest, v1::PlayResponse>* Play(
      grpc::CallbackServerContext* /*context*/) override {
    return new PlayReactor(this, streams_.fetch_add(1));
  }

  // The probe the strategy makes once the first stream is over: answered
  // on the same connection, after that stream's status and reset.
  grpc::ServerUnaryReactor* GetCheckpoint(
      grpc::CallbackServerContext* context,
      const v1::GetCheckpointRequest* /*request*/,
      v1::TlogCheckpoint* /*response*/) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  // Notified once the first stream's status is sent.
  absl::Notification& first_done() { return first_done_; }
  // Play streams opened.
  int streams() const { return streams_.load(); }

 private:
  class PlayReactor final
      : public grpc::ServerBidiReactor<v1::PlayRequest, v1::PlayResponse> {
   public:
    PlayReactor(EndingEarlyReferee* referee, int stream)
        : referee_(referee), stream_(stream) {
      if (stream_ == 0) {
        v1::DecisionRequest* decision = messages_[0].mutable_decision();
        decision->set_match_id(kMatchId);
        decision->set_game("rock_paper_pyramid");
        decision->set_num_seats(1);
        decision->set_decision_id(1);
        decision->add_acting_seats(0);
        messages_[1].mutable_commit_ack()->set_match_id(kMatchId);
        size_ = 2;
      } else {
        messages_[0].mutable_match_ended()->set_match_id(kMatchId);
        size_ = 1;
      }
      StartWrite(&messages_[0]);
    }

    void OnWriteDone(bool ok) override {
      if (ok && ++written_ < size_) {
        StartWrite(&messages_[written_]);
        return;
      }
      Finish(stream_ == 0 ? referee_->first_status_ : grpc::Status::OK);
    }

    void OnDone() override {
      if (stream_ == 0) referee_->first_done_.Notify();
      delete this;
    }

   private:
    EndingEarlyReferee* const referee_;
    const int stream_;
    v1::PlayResponse messages_[2];
    int size_ = 0;
    int written_ = 0;
  };

  const grpc::Status first_status_;
  std::atomic<int> streams_{0};
  absl::Notification first_done_;
};

// Chooses once the referee's first stream is over on the bot's side too:
// the referee sent its status, and a call on the same connection answered
// after it.
class WaitingStrategy final : public Strategy {
 public:
  WaitingStrategy(EndingEarlyReferee& referee, v1::Referee::Stub& stub)
      : referee_(referee), stub_(stub) {}

  v1::Action Choose(const v1::DecisionRequest& /*request*/,
                    RandomStream& /*stream*/) override {
    EXPECT_TRUE(
        referee_.first_done().WaitForNotificationWithTimeout(absl::Minutes(1)));
    grpc::ClientContext context;
    v1::TlogCheckpoint checkpoint;
    EXPECT_TRUE(
        stub_.GetCheckpoint(&context, v1::GetCheckpointRequest(), &checkpoint)
            .ok());
    return v1::Action();
  }

 private:
  EndingEarlyReferee& referee_;
  v1::Referee::Stub& stub_;
};

// Runs a bot playing one match against an EndingEarlyReferee whose first
// stream ends with `first_status`, and expects Run to return `exit_code`
// within a minute (else it is stopped, and said to return -1) after it
// opened `streams` Play streams.
void ExpectRunAgainstAnEarlyEnd(const grpc::Status& first_status, int exit_code,
                                int streams) {
  EndingEarlyReferee referee(first_status);
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&referee);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  std::shared_ptr<grpc::Channel> channel = grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials());
  std::unique_ptr<v1::Referee::Stub> stub = v1::Referee::NewStub(channel);

  PlayClientOptions options;
  options.matches = 1;
  options.quiet = true;
  PlayClient client(options, std::make_unique<WaitingStrategy>(referee, *stub),
                    Sha256("play-client-test"), std::nullopt);
  int status = -1;
  absl::Notification returned;
  std::thread run([&] {
    status = client.Run(*channel, *stub, "token");
    returned.Notify();
  });
  // Generous: Run returns after one reconnection's backoff (100 ms).
  const bool in_time =
      returned.WaitForNotificationWithTimeout(absl::Minutes(1));
  if (!in_time) client.Stop();  // Ends the wait, to report it.
  run.join();
  server->Shutdown();
  EXPECT_EQ(in_time ? status : -1, exit_code)
      << "(-1: Run had not returned in a minute)";
  EXPECT_EQ(referee.streams(), streams);
}

// The referee ends the stream (its shutdown's status) while the bot's
// answer is on its way, with a message after the decision still unread:
// the bot reconnects (it waited in Finish for good) and plays on.
TEST(PlayClientEarlyEndTest, AfterAFailedWriteTheBotReconnects) {
  ExpectRunAgainstAnEarlyEnd(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                          "the referee is shutting down"),
                             /*exit_code=*/0, /*streams=*/2);
}

// Ended so because another process connected with the token, the stream
// is not reopened: the bot still tells the referee's status from its own
// end of the stream after the failed write.
TEST(PlayClientEarlyEndTest, AfterAFailedWriteAReplacedStreamIsNotReopened) {
  ExpectRunAgainstAnEarlyEnd(
      grpc::Status(grpc::StatusCode::ABORTED, "replaced by a newer stream"),
      /*exit_code=*/1, /*streams=*/1);
}

}  // namespace
}  // namespace pyramid
