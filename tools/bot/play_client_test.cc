// The reference bot's play (play_client.h), without its command line,
// against a referee in this process: one bot token playing every seat of a
// three-seat match of each game, over one Play stream, to the end, each log
// genuine under the referee's key; Stop ending a Run that waits for
// matches; and, against a fake referee that ends its stream while the bot's
// answer is on its way, the bot ending that stream too (it waited in Finish
// forever); and, against a scripted fake referee (ScriptedReferee), the bot
// never committing twice to a decision (the same commitment again while
// it is owed, none once answered), refusing a match id that is not 16
// bytes, saying a MatchEnded without its seat's outcome, and keeping at
// most max_open_decisions commitments, dropping the least recently used
// to make room for a new decision and refusing a dropped one asked again;
// and, with a state directory (--state_dir), a bot started again after the
// one that committed revealing the recorded commitment, or committing to
// it again (never anew), and, without the record, saying the commitment
// lost once; a stream the referee ends DATA_LOSS (it broke the match) not
// reopened; and the waits between tries while the referee is away
// (ReconnectWindow), the last one ending when --reconnect_for_s is up,
// and the wait before the next stream not held back by a step of the wall
// clock (the test's clock_gettime moves CLOCK_REALTIME on demand).
// tests/bot_cli_test.sh runs the bot program itself,
// tests/bot_state_test.sh kills and restarts it mid-match.
#include "tools/bot/play_client.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "referee/service/testing_clock_step.h"
#include "replay/verifier.h"
#include "tests/test_client.h"
#include "tests/test_referee.h"
#include "tools/bot/state_dir.h"
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
  static constexpr char kMatchId[] = "00112233445566778899aabbccddeeff";

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

// A fake referee served on a loopback port, and a stub of its channel
// (server null: it could not be started).
struct ServedReferee {
  std::unique_ptr<grpc::Server> server;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::Referee::Stub> stub;
};

ServedReferee Serve(v1::Referee::Service& referee) {
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&referee);
  ServedReferee served;
  served.server = builder.BuildAndStart();
  if (served.server == nullptr) return served;
  served.channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                                       grpc::InsecureChannelCredentials());
  served.stub = v1::Referee::NewStub(served.channel);
  return served;
}

// Runs a bot playing one match against an EndingEarlyReferee whose first
// stream ends with `first_status`, and expects Run to return `exit_code`
// within a minute (else it is stopped, and said to return -1) after it
// opened `streams` Play streams.
void ExpectRunAgainstAnEarlyEnd(const grpc::Status& first_status, int exit_code,
                                int streams) {
  EndingEarlyReferee referee(first_status);
  ServedReferee served = Serve(referee);
  ASSERT_NE(served.server, nullptr);
  std::unique_ptr<v1::Referee::Stub>& stub = served.stub;

  PlayClientOptions options;
  options.matches = 1;
  options.quiet = true;
  PlayClient client(options, std::make_unique<WaitingStrategy>(referee, *stub),
                    Sha256("play-client-test"), std::nullopt);
  int status = -1;
  absl::Notification returned;
  std::thread run([&] {
    status = client.Run(*served.channel, *stub, "token");
    returned.Notify();
  });
  // Generous: Run returns after one reconnection's backoff (100 ms).
  const bool in_time =
      returned.WaitForNotificationWithTimeout(absl::Minutes(1));
  if (!in_time) client.Stop();  // Ends the wait, to report it.
  run.join();
  served.server->Shutdown();
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

// A referee that plays a script on its Play streams, one list of steps per
// stream (a stream past the last list ends at once, UNAVAILABLE), and
// keeps every message the bot sends (a batch's one by one).
class ScriptedReferee final : public v1::Referee::Service {
 public:
  struct Step {
    // Sends this message...
    std::optional<v1::PlayResponse> send;
    // ...or reads until the bot sends a commit (or a reveal) of this
    // decision of this match...
    std::string until_match;
    uint64_t until_decision = 0;
    bool until_reveal = false;
    // ...or ends the stream with this status.
    std::optional<grpc::Status> end;
  };

  explicit ScriptedReferee(std::vector<std::vector<Step>> streams)
      : streams_(std::move(streams)) {}

  grpc::Status Play(grpc::ServerContext* /*context*/,
                    grpc::ServerReaderWriter<v1::PlayResponse, v1::PlayRequest>*
                        stream) override {
    const size_t n = opened_.fetch_add(1);
    if (n >= streams_.size()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no more script");
    }
    for (const Step& step : streams_[n]) {
      if (step.send) {
        if (!stream->Write(*step.send)) break;
      } else if (step.end) {
        return *step.end;
      } else if (!ReadUntil(*stream, step)) {
        return grpc::Status(grpc::StatusCode::UNAVAILABLE, "bot gone");
      }
    }
    return grpc::Status::OK;
  }

  // Play streams opened.
  size_t opened() const { return opened_.load(); }

  // What the bot sent, in order.
  std::vector<v1::PlayRequest> received() {
    absl::MutexLock lock(&mutex_);
    return received_;
  }

 private:
  bool ReadUntil(
      grpc::ServerReaderWriter<v1::PlayResponse, v1::PlayRequest>& stream,
      const Step& step) {
    v1::PlayRequest request;
    while (stream.Read(&request)) {
      std::vector<v1::PlayRequest> messages;
      if (request.has_batch()) {
        messages.assign(request.batch().requests().begin(),
                        request.batch().requests().end());
      } else {
        messages.push_back(request);
      }
      bool found = false;
      absl::MutexLock lock(&mutex_);
      for (const v1::PlayRequest& m : messages) {
        received_.push_back(m);
        if (step.until_reveal
                ? m.has_reveal() && m.reveal().match_id() == step.until_match &&
                      m.reveal().decision_id() == step.until_decision
                : m.has_commit() && m.commit().match_id() == step.until_match &&
                      m.commit().decision_id() == step.until_decision) {
          found = true;
        }
      }
      if (found) return true;
    }
    return false;
  }

  const std::vector<std::vector<Step>> streams_;
  std::atomic<size_t> opened_{0};
  absl::Mutex mutex_;
  std::vector<v1::PlayRequest> received_ ABSL_GUARDED_BY(mutex_);
};

// Chooses the empty action.
class EmptyStrategy final : public Strategy {
 public:
  v1::Action Choose(const v1::DecisionRequest& /*request*/,
                    RandomStream& /*stream*/) override {
    return v1::Action();
  }
};

using Step = ScriptedReferee::Step;

constexpr char kMatch[] = "00112233445566778899aabbccddeeff";
constexpr char kOtherMatch[] = "ffeeddccbbaa99887766554433221100";
// The match of the last decision of a script, whose commit ends it.
constexpr char kProbeMatch[] = "0123456789abcdef0123456789abcdef";

Step Send(v1::PlayResponse response) {
  Step step;
  step.send = std::move(response);
  return step;
}

// A decision of `match` for seat 0, acting with seat 1 (so that its reveal
// waits for a RevealRequest) unless `alone`.
Step Decision(const std::string& match, uint64_t decision, bool alone = false,
              std::optional<uint32_t> seat = std::nullopt) {
  v1::PlayResponse response;
  v1::DecisionRequest* d = response.mutable_decision();
  d->set_match_id(match);
  d->set_game("rock_paper_pyramid");
  d->set_seat(seat.value_or(0));
  d->set_num_seats(2);
  d->set_decision_id(decision);
  d->add_acting_seats(seat.value_or(0));
  if (!alone) d->add_acting_seats(1);
  return Send(std::move(response));
}

Step UntilCommit(const std::string& match, uint64_t decision) {
  Step step;
  step.until_match = match;
  step.until_decision = decision;
  return step;
}

Step UntilReveal(const std::string& match, uint64_t decision) {
  Step step = UntilCommit(match, decision);
  step.until_reveal = true;
  return step;
}

Step End(grpc::Status status) {
  Step step;
  step.end = std::move(status);
  return step;
}

// Plays `streams` against a PlayClient with `options` (matches 0: it
// returns once the referee closes its last stream), and returns what
// the bot sent. Every stream's script should end with the probe (a
// decision of kProbeMatch and UntilCommit of it), so that everything the
// bot answers before it is read.
std::vector<v1::PlayRequest> PlayScript(std::vector<std::vector<Step>> streams,
                                        PlayClientOptions options = {}) {
  ScriptedReferee referee(std::move(streams));
  ServedReferee served = Serve(referee);
  EXPECT_NE(served.server, nullptr);
  if (served.server == nullptr) return {};
  std::unique_ptr<v1::Referee::Stub>& stub = served.stub;
  PlayClient client(options, std::make_unique<EmptyStrategy>(),
                    Sha256("play-client-test"), std::nullopt);
  absl::Notification returned;
  std::thread run([&] {
    client.Run(*served.channel, *stub, "token");
    returned.Notify();
  });
  const bool in_time =
      returned.WaitForNotificationWithTimeout(absl::Minutes(1));
  if (!in_time) client.Stop();
  run.join();
  served.server->Shutdown();
  EXPECT_TRUE(in_time) << "Run had not returned in a minute";
  return referee.received();
}

std::vector<Step> WithProbe(std::vector<Step> steps) {
  steps.push_back(Decision(kProbeMatch, 1, /*alone=*/true));
  steps.push_back(UntilCommit(kProbeMatch, 1));
  return steps;
}

// The commits the bot sent for `match`, as "decision:commitment".
std::vector<std::string> CommitsOf(const std::vector<v1::PlayRequest>& sent,
                                   const std::string& match) {
  std::vector<std::string> out;
  for (const v1::PlayRequest& m : sent) {
    if (m.has_commit() && m.commit().match_id() == match) {
      out.push_back(
          absl::StrCat(m.commit().decision_id(), ":", m.commit().commitment()));
    }
  }
  return out;
}

v1::PlayResponse Ack(bool reveal, const std::string& match, uint64_t decision) {
  v1::PlayResponse response;
  if (reveal) {
    response.mutable_reveal_ack()->set_match_id(match);
    response.mutable_reveal_ack()->set_decision_id(decision);
  } else {
    response.mutable_commit_ack()->set_match_id(match);
    response.mutable_commit_ack()->set_decision_id(decision);
  }
  return response;
}

v1::PlayResponse RevealRequest(const std::string& match, uint64_t decision) {
  v1::PlayResponse response;
  response.mutable_reveal_request()->set_match_id(match);
  response.mutable_reveal_request()->set_decision_id(decision);
  return response;
}

v1::PlayResponse Ended(const std::string& match, uint32_t seat,
                       int outcome_seats) {
  v1::PlayResponse response;
  response.mutable_match_ended()->set_match_id(match);
  response.mutable_match_ended()->set_seat(seat);
  for (int i = 0; i < outcome_seats; ++i) {
    response.mutable_match_ended()->mutable_outcome()->add_seats();
  }
  return response;
}

// A decision asked again is committed to with the same commitment while
// its reveal is owed (after a reconnection: docs/protocol.md,
// "Reconnecting"), and never again once revealed and acknowledged, nor
// after its match ended, nor when an older decision of the seat comes
// after a newer one: a referee asking again could otherwise draw a
// randomised bot's move until it liked one, holding a signed commitment
// for each (an adversarial tester's finding).
TEST(PlayClientScriptTest, ADecisionIsCommittedToOnce) {
  PlayClientOptions options;
  options.quiet = true;
  const std::vector<v1::PlayRequest> sent = PlayScript(
      {
          {Decision(kMatch, 1), UntilCommit(kMatch, 1),
           End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "restarting"))},
          WithProbe({
              Decision(kMatch, 1),  // Owed still: the same commitment.
              UntilCommit(kMatch, 1), Send(Ack(false, kMatch, 1)),
              Send(RevealRequest(kMatch, 1)), UntilReveal(kMatch, 1),
              Send(Ack(true, kMatch, 1)),
              Decision(kMatch, 1),  // Answered: ignored.
              Decision(kMatch, 3), UntilCommit(kMatch, 3),
              Decision(kMatch, 2),  // Older than one answered: ignored.
              // Another seat of the bot, in a match whose end comes one
              // seat at a time.
              Decision(kOtherMatch, 3, false, 1), UntilCommit(kOtherMatch, 3),
              Send(Ended(kOtherMatch, 0, 2)),
              Decision(kOtherMatch, 4),  // Its match is over: ignored.
              Decision(kOtherMatch, 3, false, 1),  // Answered: ignored.
          }),
      },
      options);
  const std::vector<std::string> commits = CommitsOf(sent, kMatch);
  ASSERT_EQ(commits.size(), 3u) << absl::StrJoin(commits, "\n");
  EXPECT_EQ(commits[0], commits[1]);
  EXPECT_EQ(commits[2].substr(0, 2), "3:");
  EXPECT_EQ(CommitsOf(sent, kOtherMatch).size(), 1u);
  int reveals = 0;
  for (const v1::PlayRequest& m : sent) reveals += m.has_reveal() ? 1 : 0;
  EXPECT_EQ(reveals, 2);  // Decision 1's, and the probe's.
}

// A referee that lost a reveal it acknowledged (a power loss under
// --fsync=checkpoints: docs/durability.md) opens the decision again after
// its restart: the bot commits to it again with the same commitment and
// reveals the same choice (it refused, and the seat was faulted).
TEST(PlayClientScriptTest,
     ADecisionReopenedAfterARestartGetsTheSameCommitment) {
  PlayClientOptions options;
  options.quiet = true;
  const std::vector<v1::PlayRequest> sent = PlayScript(
      {
          {Decision(kMatch, 1), UntilCommit(kMatch, 1),
           Send(Ack(false, kMatch, 1)), Send(RevealRequest(kMatch, 1)),
           UntilReveal(kMatch, 1), Send(Ack(true, kMatch, 1)),
           End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "restarting"))},
          WithProbe({Decision(kMatch, 1), UntilCommit(kMatch, 1),
                     Send(Ack(false, kMatch, 1)),
                     Send(RevealRequest(kMatch, 1)), UntilReveal(kMatch, 1)}),
      },
      options);
  const std::vector<std::string> commits = CommitsOf(sent, kMatch);
  ASSERT_EQ(commits.size(), 2u) << absl::StrJoin(commits, "\n");
  EXPECT_EQ(commits[0], commits[1]);
  std::vector<std::string> salts;
  for (const v1::PlayRequest& m : sent) {
    if (m.has_reveal() && m.reveal().match_id() == kMatch) {
      salts.push_back(m.reveal().salt() + m.reveal().action());
    }
  }
  ASSERT_EQ(salts.size(), 2u);
  EXPECT_EQ(salts[0], salts[1]);
}

// A match id that is not 16 bytes in hex (longer, shorter, not hex) is
// refused, unsigned, and the bot plays on (it signed over 32 or 4 bytes,
// and aborted on "zz").
TEST(PlayClientScriptTest, AMatchIdNotOf16BytesIsRefused) {
  PlayClientOptions options;
  options.quiet = true;
  const std::string long_id(64, 'a');
  const std::string short_id(8, 'a');
  const std::vector<v1::PlayRequest> sent =
      PlayScript({WithProbe({
                     Decision(long_id, 1, /*alone=*/true),
                     Decision(short_id, 1, /*alone=*/true),
                     Decision("zz", 1, /*alone=*/true),
                     Decision("zz", 0, /*alone=*/true),
                 })},
                 options);
  ASSERT_EQ(sent.size(), 2u);  // The probe's commit and reveal only.
  EXPECT_EQ(sent[0].commit().match_id(), kProbeMatch);
}

// A MatchEnded whose outcome has no entry for its seat is said, not read
// past the outcome's end (the bot crashed on it), and the bot plays on.
TEST(PlayClientScriptTest, AnEndWithoutTheSeatsOutcomeIsSaid) {
  PlayClientOptions options;
  options.quiet = false;  // It prints each seat's rank.
  const std::vector<v1::PlayRequest> sent =
      PlayScript({WithProbe({
                     Send(Ended(kOtherMatch, 77, 0)),
                     Send(Ended(kMatch, 2, 2)),
                 })},
                 options);
  EXPECT_EQ(CommitsOf(sent, kProbeMatch).size(), 1u);
}

// Runs a bot with `options` and the empty strategy against `referee` to
// its end: Run's exit status and what it wrote to stderr (-1 and "" when
// the referee could not be served).
std::pair<int, std::string> RunQuietly(ScriptedReferee& referee,
                                       const PlayClientOptions& options) {
  ServedReferee served = Serve(referee);
  EXPECT_NE(served.server, nullptr);
  if (served.server == nullptr) return {-1, ""};
  PlayClient client(options, std::make_unique<EmptyStrategy>(),
                    Sha256("play-client-test"), std::nullopt);
  ::testing::internal::CaptureStderr();
  const int status = client.Run(*served.channel, *served.stub, "token");
  std::string said = ::testing::internal::GetCapturedStderr();
  served.server->Shutdown();
  return {status, std::move(said)};
}

// A seat token's stream the referee ends DATA_LOSS, after the PlayError
// saying that it broke the match (docs/protocol.md), is not reopened: the
// match never resumes, and every new stream of the token would end so (the
// bot reconnected every 100 ms for --reconnect_for_s). One line says why,
// with the referee's message, and Run returns 1.
TEST(PlayClientScriptTest, AStreamEndedDataLossIsNotReopened) {
  constexpr char kWhy[] =
      "the match is broken and stopped: cannot write its log (its log "
      "verifies up to its last checkpoint)";
  v1::PlayResponse error;
  error.mutable_error()->set_match_id(kMatch);
  error.mutable_error()->set_code(grpc::StatusCode::DATA_LOSS);
  error.mutable_error()->set_message(kWhy);
  ScriptedReferee referee({{
      Send(error),
      End(grpc::Status(grpc::StatusCode::DATA_LOSS, kWhy)),
  }});
  PlayClientOptions options;
  options.quiet = true;
  // Without the fix the bot retries until this is up, then gives up.
  options.reconnect_for = absl::Seconds(2);
  const auto [status, said] = RunQuietly(referee, options);
  EXPECT_EQ(status, 1);
  EXPECT_EQ(referee.opened(), 1u);
  EXPECT_THAT(said, ::testing::HasSubstr(absl::StrCat(
                        "bot: the referee broke the match; not reconnecting "
                        "(stream ended: DATA_LOSS: ",
                        kWhy, ")\n")));
  EXPECT_THAT(said, ::testing::Not(::testing::HasSubstr("reconnecting to")));
}

// A stream the referee closes (OK) before --matches ended, as it closes a
// seat token's after its one match, is a run not done: one line says so,
// as the kits say it, and Run returns 1 (docs/writing-a-bot.md; it
// returned 0).
TEST(PlayClientScriptTest, AStreamClosedBeforeItsMatchesEndedIsNotDone) {
  ScriptedReferee referee({{
      Send(Ended(kMatch, 0, 2)),
      End(grpc::Status::OK),
  }});
  PlayClientOptions options;
  options.quiet = true;
  options.matches = 2;
  const auto [status, said] = RunQuietly(referee, options);
  EXPECT_EQ(status, 1);
  EXPECT_EQ(referee.opened(), 1u);
  EXPECT_EQ(said,
            "bot: giving up: the referee closed the stream after 1 of 2 "
            "matches: a seat token plays one match\n");
}

// Match `n` (1 to 9) of a script, seat 0 in each.
std::string MatchNo(int n) {
  std::string id(32, '0');
  id.back() = static_cast<char>('0' + n);
  return id;
}

// The reveals the bot sent for `match`.
int RevealsOf(const std::vector<v1::PlayRequest>& sent,
              const std::string& match) {
  int n = 0;
  for (const v1::PlayRequest& m : sent) {
    n += m.has_reveal() && m.reveal().match_id() == match ? 1 : 0;
  }
  return n;
}

// Seats whose MatchEnded never comes (their match ended while the bot was
// away) do not fill the bot for good: past max_open_decisions, the least
// recently used commitment is dropped to make room, and a new decision is
// answered (it was refused, so a long-running bot refused every new
// decision once 4,096 such seats had gathered).
TEST(PlayClientScriptTest, SeatsWhoseEndNeverCameDoNotBlockNewDecisions) {
  PlayClientOptions options;
  options.quiet = true;
  options.max_open_decisions = 3;
  std::vector<Step> steps;
  for (int n = 1; n <= 6; ++n) {
    steps.push_back(Decision(MatchNo(n), 1));
    steps.push_back(UntilCommit(MatchNo(n), 1));
    steps.push_back(Send(RevealRequest(MatchNo(n), 1)));
    steps.push_back(UntilReveal(MatchNo(n), 1));
    steps.push_back(Send(Ack(true, MatchNo(n), 1)));
  }
  const std::vector<v1::PlayRequest> sent =
      PlayScript({WithProbe(std::move(steps))}, options);
  for (int n = 1; n <= 6; ++n) {
    EXPECT_EQ(CommitsOf(sent, MatchNo(n)).size(), 1u) << n;
  }
  EXPECT_EQ(CommitsOf(sent, kProbeMatch).size(), 1u);
}

// What makes room is a commitment whose reveal was acknowledged, else the
// oldest one whose reveal is owed; either way, its decision asked again
// is refused and its reveal asked for is not sent: a commitment is never
// signed twice (a bot that forgot it would commit to a fresh salt and
// perhaps another move, which a referee could draw until it liked one).
TEST(PlayClientScriptTest, ADroppedDecisionIsNeverCommittedToAgain) {
  PlayClientOptions options;
  options.quiet = true;
  options.max_open_decisions = 2;
  const std::string m1 = MatchNo(1), m2 = MatchNo(2), m3 = MatchNo(3),
                    m4 = MatchNo(4);
  const std::vector<v1::PlayRequest> sent = PlayScript(
      {
          {
              Decision(m1, 1),
              UntilCommit(m1, 1),  // Owed.
              Decision(m2, 1),
              UntilCommit(m2, 1),
              Send(RevealRequest(m2, 1)),
              UntilReveal(m2, 1),
              Send(Ack(true, m2, 1)),  // Acknowledged.
              // Drops m2's (acknowledged), though m1's is older.
              Decision(m3, 1),
              UntilCommit(m3, 1),
              End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "restarting")),
          },
          WithProbe({
              Decision(m1, 1), UntilCommit(m1, 1),  // Kept: the same.
              Decision(m2, 1),                      // Dropped: refused.
              Decision(m3, 1), UntilCommit(m3, 1),  // Kept: the same.
              // Drops m1's, the least recently used of the owed.
              Decision(m4, 1), UntilCommit(m4, 1),
              Decision(m1, 1),             // Dropped: refused.
              Send(RevealRequest(m1, 1)),  // Not sent.
          }),
      },
      options);
  for (const std::string& kept : {m1, m3}) {
    const std::vector<std::string> commits = CommitsOf(sent, kept);
    ASSERT_EQ(commits.size(), 2u) << kept;
    EXPECT_EQ(commits[0], commits[1]) << kept;
  }
  EXPECT_EQ(RevealsOf(sent, m1), 0);
  EXPECT_EQ(CommitsOf(sent, m2).size(), 1u);
  EXPECT_EQ(RevealsOf(sent, m2), 1);
  EXPECT_EQ(CommitsOf(sent, m4).size(), 1u);
  EXPECT_EQ(CommitsOf(sent, kProbeMatch).size(), 1u);
}

// A fresh state directory for a test.
std::string NewStateDir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) /
                       absl::StrCat("play-client-state-", getpid(), "-", name);
  fs::remove_all(dir);
  EXPECT_TRUE(MakeStateDir(dir.string()).ok());
  return dir.string();
}

// Whether `reveal` opens `commit` (of seat 0 of kMatch).
bool Opens(const v1::RevealMove& reveal, const v1::CommitMove& commit) {
  const Digest hash =
      CommitmentHash(*FromHex(commit.match_id()), commit.seat(),
                     commit.decision_id(), reveal.salt(), reveal.action());
  return std::string(AsView(hash)) == commit.commitment() &&
         reveal.match_id() == commit.match_id() &&
         reveal.decision_id() == commit.decision_id();
}

// The first commit and reveal of `match` the bot sent (default when none).
v1::CommitMove FirstCommit(const std::vector<v1::PlayRequest>& sent,
                           const std::string& match) {
  for (const v1::PlayRequest& m : sent) {
    if (m.has_commit() && m.commit().match_id() == match) return m.commit();
  }
  return v1::CommitMove();
}
v1::RevealMove FirstReveal(const std::vector<v1::PlayRequest>& sent,
                           const std::string& match) {
  for (const v1::PlayRequest& m : sent) {
    if (m.has_reveal() && m.reveal().match_id() == match) return m.reveal();
  }
  return v1::RevealMove();
}

// A bot that committed and died (its process gone: a new PlayClient on the
// same state directory) is sent the decision marked committed, then its
// RevealRequest: it reveals the bytes its record holds, which open the
// commitment the first one sent; the acknowledgement keeps the record (a
// referee that loses the reveal asks the decision again), until the
// match ends.
TEST(PlayClientStateTest, ARestartedBotRevealsTheRecordedCommitment) {
  PlayClientOptions options;
  options.quiet = true;
  options.state_dir = NewStateDir("reveal");
  const std::vector<v1::PlayRequest> first = PlayScript(
      {WithProbe({Decision(kMatch, 1), UntilCommit(kMatch, 1)})}, options);
  const v1::CommitMove commit = FirstCommit(first, kMatch);
  ASSERT_EQ(commit.decision_id(), 1u);
  EXPECT_EQ(RevealsOf(first, kMatch), 0);
  const fs::path record =
      fs::path(options.state_dir) / absl::StrCat(kMatch, "-0-1.json");
  EXPECT_TRUE(fs::exists(record));

  Step committed = Decision(kMatch, 1);
  committed.send->mutable_decision()->set_committed(true);
  const std::vector<v1::PlayRequest> second = PlayScript(
      {WithProbe({committed, Send(RevealRequest(kMatch, 1)),
                  UntilReveal(kMatch, 1), Send(Ack(true, kMatch, 1))})},
      options);
  EXPECT_TRUE(CommitsOf(second, kMatch).empty());
  ASSERT_EQ(RevealsOf(second, kMatch), 1);
  EXPECT_TRUE(Opens(FirstReveal(second, kMatch), commit));
  EXPECT_TRUE(fs::exists(record));  // Its reveal acknowledged: kept.
  fs::remove_all(options.state_dir);
}

// A bot that wrote its record and died before its commit left (or before
// the referee logged it) is sent the decision again, not committed: the
// next process commits to the same commitment, never a new one, and
// reveals it; the match's end removes every record of the match.
TEST(PlayClientStateTest, ADecisionAskedAgainGetsTheRecordedCommitment) {
  PlayClientOptions options;
  options.quiet = true;
  options.state_dir = NewStateDir("again");
  const std::vector<v1::PlayRequest> first = PlayScript(
      {WithProbe({Decision(kMatch, 1), UntilCommit(kMatch, 1)})}, options);
  const std::vector<v1::PlayRequest> second = PlayScript(
      {WithProbe({Decision(kMatch, 1), UntilCommit(kMatch, 1),
                  Send(RevealRequest(kMatch, 1)), UntilReveal(kMatch, 1),
                  Send(Ended(kMatch, 0, 2))})},
      options);
  const std::vector<std::string> commits = CommitsOf(first, kMatch);
  ASSERT_EQ(commits.size(), 1u);
  EXPECT_EQ(CommitsOf(second, kMatch), commits);
  EXPECT_TRUE(Opens(FirstReveal(second, kMatch), FirstCommit(first, kMatch)));
  for (const fs::directory_entry& entry :
       fs::directory_iterator(options.state_dir)) {
    EXPECT_FALSE(absl::StartsWith(entry.path().filename().string(), kMatch))
        << entry.path();
  }
  fs::remove_all(options.state_dir);
}

// A referee that lost the commit and the reveal of a decision in a power
// loss (docs/durability.md) opens it again, not committed, after the bot
// revealed it, had the reveal acknowledged and restarted: the new process
// sends the same commitment, never a new one, and reveals the same bytes.
TEST(PlayClientStateTest, AnAcknowledgedDecisionAskedAfterARestartIsTheSame) {
  PlayClientOptions options;
  options.quiet = true;
  options.state_dir = NewStateDir("acked");
  const std::vector<v1::PlayRequest> first = PlayScript(
      {WithProbe({Decision(kMatch, 1), UntilCommit(kMatch, 1),
                  Send(Ack(false, kMatch, 1)), Send(RevealRequest(kMatch, 1)),
                  UntilReveal(kMatch, 1), Send(Ack(true, kMatch, 1))})},
      options);
  ASSERT_EQ(RevealsOf(first, kMatch), 1);
  const std::vector<v1::PlayRequest> second = PlayScript(
      {WithProbe({Decision(kMatch, 1), UntilCommit(kMatch, 1),
                  Send(RevealRequest(kMatch, 1)), UntilReveal(kMatch, 1)})},
      options);
  const std::vector<std::string> commits = CommitsOf(first, kMatch);
  ASSERT_EQ(commits.size(), 1u);
  EXPECT_EQ(CommitsOf(second, kMatch), commits);
  ASSERT_EQ(RevealsOf(second, kMatch), 1);
  EXPECT_TRUE(Opens(FirstReveal(second, kMatch), FirstCommit(first, kMatch)));
  fs::remove_all(options.state_dir);
}

// After a restart, the seat's newest decision is the largest with a record
// in the state directory: an older decision without a record of its own is
// refused (nothing sent, as the in-memory rule refuses it), never
// committed to anew; an older one with a record gets that record's
// commitment, and so does the newest.
TEST(PlayClientStateTest, ARestartedBotRefusesAnOlderDecisionWithoutARecord) {
  PlayClientOptions options;
  options.quiet = true;
  options.state_dir = NewStateDir("older");
  const std::vector<v1::PlayRequest> first =
      PlayScript({WithProbe({Decision(kMatch, 1), UntilCommit(kMatch, 1),
                             Decision(kMatch, 3), UntilCommit(kMatch, 3)})},
                 options);
  ASSERT_EQ(CommitsOf(first, kMatch).size(), 2u);
  ::testing::internal::CaptureStderr();
  const std::vector<v1::PlayRequest> second = PlayScript(
      {WithProbe({Decision(kMatch, 2),  // Refused.
                  Decision(kMatch, 1), UntilCommit(kMatch, 1),
                  Decision(kMatch, 3), UntilCommit(kMatch, 3),
                  Send(RevealRequest(kMatch, 3)), UntilReveal(kMatch, 3)})},
      options);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(CommitsOf(second, kMatch), CommitsOf(first, kMatch));
  for (const v1::PlayRequest& m : second) {
    EXPECT_FALSE(m.has_commit() && m.commit().match_id() == kMatch &&
                 m.commit().decision_id() == 2);
  }
  EXPECT_EQ(RevealsOf(second, kMatch), 1);
  EXPECT_TRUE(absl::StrContains(
      said, absl::StrCat("bot: refusing match \"", kMatch,
                         "\" seat 0 decision 2: the seat committed to "
                         "decision 3 already, and a commitment is never "
                         "signed twice\n")))
      << said;
  fs::remove_all(options.state_dir);
}

// Without its record (no state directory), a restarted bot reveals
// nothing, and says once per decision, quiet or not, that the referee
// holds a commitment it does not have.
TEST(PlayClientStateTest, WithoutTheRecordTheLossIsSaidOnce) {
  PlayClientOptions options;
  options.quiet = true;
  Step committed = Decision(kMatch, 1);
  committed.send->mutable_decision()->set_committed(true);
  ::testing::internal::CaptureStderr();
  const std::vector<v1::PlayRequest> sent =
      PlayScript({WithProbe({committed, Send(RevealRequest(kMatch, 1)),
                             Send(RevealRequest(kMatch, 1))})},
                 options);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(RevealsOf(sent, kMatch), 0);
  EXPECT_TRUE(CommitsOf(sent, kMatch).empty());
  const std::string lost = absl::StrCat(
      "bot: match ", kMatch,
      " seat 0 decision 1: the referee holds a commitment this process does "
      "not have (restarted without --state_dir?); the seat will fault at the "
      "reveal deadline\n");
  size_t times = 0;
  for (size_t at = said.find(lost); at != std::string::npos;
       at = said.find(lost, at + 1)) {
    ++times;
  }
  EXPECT_EQ(times, 1u) << said;
}

// The waits of an outage ReconnectWindow gives for `reconnect_for`, each
// try (the stream opened and failed) taking `per_try` after its wait; at
// `*gave_up_after` into the outage it gives up.
std::vector<absl::Duration> Waits(absl::Duration reconnect_for,
                                  absl::Duration per_try,
                                  absl::Duration* gave_up_after) {
  ReconnectWindow window(reconnect_for);
  absl::Time now = absl::UnixEpoch();
  window.Begin(now);
  std::vector<absl::Duration> waits;
  while (std::optional<absl::Duration> wait = window.Wait(now)) {
    waits.push_back(*wait);
    if (waits.size() > 1000) break;  // Not to loop forever if it never ends.
    now += *wait + per_try;
    window.Waited(/*back=*/false);
  }
  *gave_up_after = window.Elapsed(now);
  return waits;
}

// The last wait is cut to what is left of --reconnect_for_s: the last try
// is made when the time is up, and the bot gives up then, not up to 5 s
// late (it waited 800 ms more here, and gave up after 1.5 s).
TEST(ReconnectWindowTest, TheLastWaitEndsWhenTheTimeIsUp) {
  absl::Duration gave_up_after;
  EXPECT_THAT(
      Waits(absl::Seconds(1), absl::ZeroDuration(), &gave_up_after),
      ::testing::ElementsAre(absl::Milliseconds(100), absl::Milliseconds(200),
                             absl::Milliseconds(400), absl::Milliseconds(300)));
  EXPECT_EQ(gave_up_after, absl::Seconds(1));
}

// Tries that take time count: the wait is cut to what they left, and the
// bot gives up once the last try after the time is up has failed.
TEST(ReconnectWindowTest, TheTimeTriesTakeCounts) {
  absl::Duration gave_up_after;
  EXPECT_THAT(
      Waits(absl::Seconds(1), absl::Milliseconds(30), &gave_up_after),
      ::testing::ElementsAre(absl::Milliseconds(100), absl::Milliseconds(200),
                             absl::Milliseconds(400), absl::Milliseconds(210)));
  EXPECT_EQ(gave_up_after, absl::Milliseconds(1030));
}

// Backoff from 100 ms doubling to 5 s, the waits adding up to the whole
// time: the default 300 s end at 300 s.
TEST(ReconnectWindowTest, WaitsDoubleToFiveSecondsAndAddUpToTheTime) {
  absl::Duration gave_up_after;
  const std::vector<absl::Duration> waits =
      Waits(absl::Seconds(300), absl::ZeroDuration(), &gave_up_after);
  ASSERT_GE(waits.size(), 8u);
  EXPECT_THAT(
      std::vector<absl::Duration>(waits.begin(), waits.begin() + 8),
      ::testing::ElementsAre(absl::Milliseconds(100), absl::Milliseconds(200),
                             absl::Milliseconds(400), absl::Milliseconds(800),
                             absl::Milliseconds(1600), absl::Milliseconds(3200),
                             absl::Seconds(5), absl::Seconds(5)));
  absl::Duration total;
  for (absl::Duration wait : waits) {
    EXPECT_LE(wait, absl::Seconds(5));
    total += wait;
  }
  EXPECT_EQ(total, absl::Seconds(300));
  EXPECT_EQ(gave_up_after, absl::Seconds(300));
}

// The referee back (a stream it ended at once) starts the backoff over; a
// fresh outage starts the time over too. Zero: no wait at all.
TEST(ReconnectWindowTest, TheRefereeBackOrAFreshOutageStartsOver) {
  ReconnectWindow window(absl::Seconds(10));
  const absl::Time start = absl::UnixEpoch();
  window.Begin(start);
  window.Waited(/*back=*/false);
  window.Waited(/*back=*/false);
  EXPECT_EQ(window.Wait(start), absl::Milliseconds(400));
  window.Waited(/*back=*/true);
  EXPECT_EQ(window.Wait(start), absl::Milliseconds(100));
  window.Waited(/*back=*/false);
  EXPECT_EQ(window.Wait(start + absl::Seconds(10)), std::nullopt);
  window.Begin(start + absl::Seconds(10));
  EXPECT_EQ(window.Wait(start + absl::Seconds(10)), absl::Milliseconds(100));
  EXPECT_EQ(window.Elapsed(start + absl::Seconds(12)), absl::Seconds(2));

  ReconnectWindow none(absl::ZeroDuration());
  none.Begin(start);
  EXPECT_EQ(none.Wait(start), std::nullopt);
}

// The wait before the next stream, after the referee ended one on a
// channel still connected (ReconnectWindow's first, 100 ms), is the
// monotonic clock's: begun while the wall clock is an hour ahead of the
// kernel's (as when the system clock was stepped an hour back during an
// outage), the next stream opens after 100 ms, not an hour later (the wait
// was absl::Mutex::AwaitWithTimeout's, which Abseil 20220623 turns into a
// wall clock deadline). Polled on the monotonic clock: an absl wait for
// Run would be held back too.
TEST(PlayClientScriptTest, AWallClockStepDoesNotHoldBackTheNextStream) {
  ScriptedReferee referee({
      {End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "restarting"))},
      {Send(Ended(kMatch, 0, 2)), End(grpc::Status::OK)},
  });
  ServedReferee served = Serve(referee);
  ASSERT_NE(served.server, nullptr);
  PlayClientOptions options;
  options.quiet = true;
  options.matches = 1;
  PlayClient client(options, std::make_unique<EmptyStrategy>(),
                    Sha256("play-client-test"), std::nullopt);
  const ScopedWallClockStep step(absl::Hours(1));
  ASSERT_TRUE(step.taken()) << "the step did not take";
  int status = -1;
  std::atomic<bool> returned{false};
  std::thread run([&] {
    status = client.Run(*served.channel, *served.stub, "token");
    returned = true;
  });
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!returned.load() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const bool in_time = returned.load();
  if (!in_time) client.Stop();  // Ends the wait, to report it.
  run.join();
  served.server->Shutdown();
  EXPECT_TRUE(in_time) << "the next stream waited for the wall clock";
  EXPECT_EQ(status, 0);
  EXPECT_EQ(referee.opened(), 2u);
}

}  // namespace
}  // namespace pyramid
