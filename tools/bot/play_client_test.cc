// The reference bot's play (play_client.h), without its command line,
// against a referee in this process: one bot token playing every seat of a
// three-seat match of each game, over one Play stream, to the end, each log
// genuine under the referee's key; and Stop ending a Run that waits for
// matches. tests/bot_cli_test.sh runs the bot program itself.
#include "tools/bot/play_client.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
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

}  // namespace
}  // namespace pyramid
