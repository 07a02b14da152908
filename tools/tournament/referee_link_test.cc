// WrongRefereeKey, the runner's check of a fetched log's header against the
// pinned referee key (StopOnWrongKey in runner.cc): what stops a tournament
// on a referee that serves no transparency log checkpoint. (The whole of it,
// against such a referee, is in tests/tournament_test.cc.) The lines a
// link says while it waits for a referee that does not answer. And the
// wait for a place on a referee at its live-match limit, against a fake
// referee whose limit a test sets. And what a referee that does not play
// costs the runner: a Watch kept open in silence ends the wait for the
// match's end, and a log beyond the cap is refused.
#include "tools/tournament/referee_link.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
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
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/core/log_journal_format.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/service/grpc_status.h"
#include "referee/service/testing_clock_step.h"
#include "replay/verifier.h"
#include "tests/fake_log_referees.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

Verdict WithHeaderKey(Verdict::Kind kind, const std::string& key) {
  Verdict verdict;
  verdict.kind = kind;
  verdict.header.set_referee_public_key(key);
  return verdict;
}

TEST(WrongRefereeKeyTest, ALogThatFailsUnderAnotherKeyNamesThatKey) {
  const std::string pinned = SigningKey::Generate().public_key();
  const std::string other = SigningKey::Generate().public_key();
  for (Verdict::Kind kind :
       {Verdict::Kind::kNotGenuine, Verdict::Kind::kUnsealedPrefix}) {
    EXPECT_EQ(WrongRefereeKey(WithHeaderKey(kind, other), pinned),
              std::optional<std::string>(other))
        << VerdictKindName(kind);
  }
}

TEST(WrongRefereeKeyTest, AGenuineLogOrThePinnedKeyIsNoWrongKey) {
  const std::string pinned = SigningKey::Generate().public_key();
  const std::string other = SigningKey::Generate().public_key();
  // Verified against the pinned key: whatever its header says.
  EXPECT_EQ(
      WrongRefereeKey(WithHeaderKey(Verdict::Kind::kGenuine, other), pinned),
      std::nullopt);
  // The right key, and still not genuine: a fault of that log alone.
  EXPECT_EQ(WrongRefereeKey(WithHeaderKey(Verdict::Kind::kNotGenuine, pinned),
                            pinned),
            std::nullopt);
}

TEST(WrongRefereeKeyTest, AHeaderWithoutAWellFormedKeyIsNoWrongKey) {
  const std::string pinned = SigningKey::Generate().public_key();
  for (const std::string& key :
       {std::string(), std::string(31, 'k'), std::string(33, 'k')}) {
    EXPECT_EQ(
        WrongRefereeKey(WithHeaderKey(Verdict::Kind::kNotGenuine, key), pinned),
        std::nullopt)
        << key.size() << " bytes";
  }
}

// The referee's secret key file (DATA_DIR/referee.key, beside its .pub)
// given as --referee_key is refused, naming the public one, and its digits
// are never said: they were printed as "the pinned referee_key" in the
// first log's verdict.
TEST(RefereeLinkTest, ASecretKeyFileIsNoRefereeKey) {
  TempDir dir("referee-link");
  ASSERT_TRUE(dir.ok());
  const SigningKey key = SigningKey::Generate();
  const std::string secret = dir.File("referee.key");
  std::ofstream(secret) << ToHex(key.seed()) << "\n";
  std::ofstream(secret + ".pub") << ToHex(key.public_key()) << "\n";
  const std::string token_file = dir.File("admin.token");
  std::ofstream(token_file) << "some-token\n";
  const absl::StatusOr<std::unique_ptr<RefereeLink>> link =
      RefereeLink::Connect("127.0.0.1:1", secret, token_file, absl::Seconds(1));
  ASSERT_EQ(link.status().code(), absl::StatusCode::kInvalidArgument)
      << link.status();
  EXPECT_TRUE(absl::StrContains(link.status().message(),
                                "holds a secret key; give the public key"))
      << link.status();
  EXPECT_FALSE(absl::StrContains(link.status().message(),
                                 ToHex(key.seed()).substr(0, 16)));
  EXPECT_TRUE(RefereeLink::Connect("127.0.0.1:1", secret + ".pub", token_file,
                                   absl::Seconds(1))
                  .ok());
}

// The embedded referee's journal is replayed into the logs of the log
// directory it is given, not into a "logs" beside the journal's (the
// runner's layout, OUTPUT/logs beside OUTPUT/log-journal, is that
// default): a journal whose logs are elsewhere repairs them where they are,
// both an entry naming its log's file name (as the journal writes it) and
// one naming where the log was before its directory moved.
TEST(RefereeLinkTest, TheJournalIsReplayedIntoTheLogDirectoryGiven) {
  TempDir dir("referee-link");
  ASSERT_TRUE(dir.ok());
  const std::string log_dir = dir.File("games");
  const std::string journal_dir = dir.File("checkpoints");
  std::filesystem::create_directories(log_dir);
  std::filesystem::create_directories(journal_dir);
  const std::string whole[2] = {std::string(1000, 'a'), std::string(1000, 'b')};
  std::string file(kJournalMagic);
  file += EncodeJournalEntry(0, "0.pyrlog", whole[0]);
  file +=
      EncodeJournalEntry(0, dir.File("moved-from/games/1.pyrlog"), whole[1]);
  std::ofstream(JournalFileName(journal_dir, 1), std::ios::binary) << file;
  // A power loss cut both logs.
  for (int i = 0; i < 2; ++i) {
    std::ofstream(absl::StrCat(log_dir, "/", i, ".pyrlog"), std::ios::binary)
        << whole[i].substr(0, 300);
  }
  absl::StatusOr<std::unique_ptr<RefereeLink>> link =
      RefereeLink::StartEmbedded(dir.File("referee.key"), log_dir,
                                 dir.File("tlog.sqlite3"), journal_dir);
  ASSERT_TRUE(link.ok()) << link.status();
  link->reset();
  for (int i = 0; i < 2; ++i) {
    std::ifstream in(absl::StrCat(log_dir, "/", i, ".pyrlog"),
                     std::ios::binary);
    EXPECT_TRUE(std::string(std::istreambuf_iterator<char>(in), {}) == whole[i])
        << i;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.File("logs")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("moved-from")));
}

// Calls that wait out the same outage together say each step of the wait
// once, not once per call: a tournament of many matches in flight while its
// referee restarts gives a line per step.
TEST(RefereeLinkTest, CallsWaitingTogetherSayEachWaitOnce) {
  TempDir dir("referee-link");
  ASSERT_TRUE(dir.ok());
  const std::string token_file = dir.File("admin.token");
  std::ofstream(token_file) << "some-token\n";
  // Port 1 on loopback: every call fails at once, UNAVAILABLE. The window
  // takes the waits of 100, 200 and 400 ms and not the next of 800.
  absl::StatusOr<std::unique_ptr<RefereeLink>> link = RefereeLink::Connect(
      "127.0.0.1:1", std::string(64, 'a'), token_file, absl::Seconds(1));
  ASSERT_TRUE(link.ok()) << link.status();
  absl::Mutex mu;
  std::vector<std::string> lines;
  (*link)->SetRetryHooks([](RefereeLink::Waiting) { return false; },
                         [&](const std::string& line) {
                           absl::MutexLock lock(&mu);
                           lines.push_back(line);
                         });
  constexpr int kCalls = 8;
  std::vector<std::thread> calls;
  for (int i = 0; i < kCalls; ++i) {
    calls.emplace_back([&] {
      EXPECT_EQ((*link)->CheckAdminToken().code(),
                absl::StatusCode::kUnavailable);
    });
  }
  for (std::thread& call : calls) call.join();
  int first_waits = 0;
  int gone = 0;  // The line that the first call to give up says.
  for (const std::string& line : lines) {
    if (absl::StrContains(line, "has not answered for 1s")) {
      ++gone;
      continue;
    }
    EXPECT_TRUE(absl::StartsWith(
        line,
        "tournament: the referee at 127.0.0.1:1 did not answer "
        "(UNAVAILABLE: "))
        << line;
    if (absl::EndsWith(line, "retrying in 100ms (--referee_retry_s)")) {
      ++first_waits;
    }
  }
  // Eight calls began their first wait together (within a second): said
  // once. The later waits drift apart with the calls' own timing, so only
  // that they are fewer than one per call is certain.
  EXPECT_EQ(first_waits, 1) << absl::StrJoin(lines, "\n");
  EXPECT_EQ(gone, 1) << absl::StrJoin(lines, "\n");
  EXPECT_LT(lines.size(), 3u * kCalls) << absl::StrJoin(lines, "\n");
}

namespace v1 = ::pyramid::referee::v1;
using svctest::BigLogReferee;
using svctest::StalledLogReferee;

// A referee that creates matches while fewer than its limit are live,
// refusing more as a referee at its --max_live_matches does (naming the
// limit in the refusal's trailer unless `names_limit` is false), each
// match over `length` after its Watch began.
class LimitedReferee final : public v1::Referee::Service {
 public:
  explicit LimitedReferee(absl::Duration length, bool names_limit = true)
      : length_(length), names_limit_(names_limit) {}

  grpc::Status CreateMatch(grpc::ServerContext* context,
                           const v1::CreateMatchRequest*,
                           v1::CreateMatchResponse* response) override {
    absl::MutexLock lock(&mu_);
    if (live_ >= limit_) {
      if (names_limit_) {
        context->AddTrailingMetadata(kMaxLiveMatchesTrailer,
                                     absl::StrCat(limit_));
      }
      return grpc::Status(
          grpc::StatusCode::UNAVAILABLE,
          absl::StrCat("the referee's limit of live matches is reached "
                       "(--max_live_matches=",
                       limit_, ", ", live_, " live); try again when one ends"));
    }
    ++live_;
    peak_ = std::max(peak_, live_);
    response->set_match_id(absl::StrCat("m", ++created_));
    return grpc::Status::OK;
  }

  grpc::Status Watch(grpc::ServerContext* context, const v1::WatchRequest*,
                     grpc::ServerWriter<v1::WatchEvent>*) override {
    const absl::Time over = absl::Now() + length_;
    while (absl::Now() < over && !context->IsCancelled()) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    absl::MutexLock lock(&mu_);
    --live_;
    return grpc::Status::OK;
  }

  // As a referee restarted with another --max_live_matches.
  void SetLimit(int limit) {
    absl::MutexLock lock(&mu_);
    limit_ = limit;
    peak_ = live_;
  }
  // The most matches live at once since the last SetLimit.
  int peak() {
    absl::MutexLock lock(&mu_);
    return peak_;
  }

 private:
  const absl::Duration length_;
  const bool names_limit_;
  absl::Mutex mu_;
  int limit_ ABSL_GUARDED_BY(mu_) = 1;
  int live_ ABSL_GUARDED_BY(mu_) = 0;
  int peak_ ABSL_GUARDED_BY(mu_) = 0;
  int created_ ABSL_GUARDED_BY(mu_) = 0;
};

// A fake referee served on a loopback port, and a link to it that retries
// for `retry_for`.
class FakeRefereeRig {
 public:
  explicit FakeRefereeRig(v1::Referee::Service& referee) : referee_(referee) {}
  ~FakeRefereeRig() {
    if (server_ != nullptr) server_->Shutdown();
  }

  // Starts the server and connects the link; fails the test if either
  // cannot be done.
  void Start(absl::Duration retry_for) {
    ASSERT_TRUE(dir_.ok());
    const std::string token_file = dir_.File("admin.token");
    std::ofstream(token_file) << "some-token\n";
    int port = 0;
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(&referee_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    absl::StatusOr<std::unique_ptr<RefereeLink>> link =
        RefereeLink::Connect(absl::StrCat("127.0.0.1:", port),
                             std::string(64, 'a'), token_file, retry_for);
    ASSERT_TRUE(link.ok()) << link.status();
    link_ = *std::move(link);
  }

  RefereeLink& link() { return *link_; }

  // Ends the server now, and with it every call in progress.
  void Stop() {
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
  }

 private:
  v1::Referee::Service& referee_;
  TempDir dir_{"referee-link"};
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<RefereeLink> link_;
};

// A referee restarted with a larger --max_live_matches while the link
// keeps matches at its old limit gets as many matches as it now takes,
// though the link's matches keep ending (each end used to let the next
// waiting match in at the old limit, and only a second without any end
// tried beyond it: the limit learnt from a refusal never rose again).
TEST(RefereeLinkTest, ALimitRaisedOnTheRefereeIsTakenUp) {
  LimitedReferee referee(absl::Milliseconds(200));
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(1)));
  RefereeLink* link = &rig.link();
  constexpr int kConcurrency = 4;
  std::atomic<bool> stop{false};
  std::vector<std::thread> players;
  for (int i = 0; i < kConcurrency; ++i) {
    players.emplace_back([&] {
      while (!stop.load()) {
        absl::StatusOr<v1::CreateMatchResponse> created =
            link->CreateMatch(v1::CreateMatchRequest());
        ASSERT_TRUE(created.ok()) << created.status();
        EXPECT_TRUE(
            link->AwaitEnd(created->match_id(), v1::ClockSettings()).ok());
      }
    });
  }
  absl::Time end = absl::Now() + absl::Seconds(30);
  while (link->full_refusals() == 0 && absl::Now() < end) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_GT(link->full_refusals(), 0);
  EXPECT_EQ(referee.peak(), 1);
  referee.SetLimit(kConcurrency);
  end = absl::Now() + absl::Seconds(30);
  while (referee.peak() < kConcurrency && absl::Now() < end) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(referee.peak(), kConcurrency);
  stop = true;
  for (std::thread& player : players) player.join();
}

// Only the trailer naming the limit makes an UNAVAILABLE a full referee
// (docs/protocol.md, "Trailers of a refusal"), not its message: the same
// words without it are an outage, retried until --referee_retry_s.
TEST(RefereeLinkTest, AnUnavailableWithoutTheLimitsTrailerIsAnOutage) {
  LimitedReferee referee(absl::Milliseconds(200), /*names_limit=*/false);
  referee.SetLimit(0);
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Milliseconds(500)));
  RefereeLink* link = &rig.link();
  std::vector<std::string> lines;
  link->SetRetryHooks(nullptr,
                      [&](const std::string& line) { lines.push_back(line); });
  const absl::StatusOr<v1::CreateMatchResponse> created =
      link->CreateMatch(v1::CreateMatchRequest());
  EXPECT_EQ(created.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StartsWith(created.status().message(),
                               "creating a match: the referee's limit"))
      << created.status();
  EXPECT_EQ(link->full_refusals(), 0);
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(absl::StrContains(lines[0], "did not answer")) << lines[0];
}

// A referee whose GetMatch and CreateMatch answer with the code a test
// sets (OK, or a refusal without the limit's trailer), counting the calls.
class ScriptedReferee final : public v1::Referee::Service {
 public:
  grpc::Status GetMatch(grpc::ServerContext*, const v1::GetMatchRequest*,
                        v1::MatchInfo*) override {
    get_match_calls_.fetch_add(1);
    return Answer();
  }
  grpc::Status CreateMatch(grpc::ServerContext*, const v1::CreateMatchRequest*,
                           v1::CreateMatchResponse* response) override {
    create_match_calls_.fetch_add(1);
    // The first `refusals_left_` calls are refused, the rest answered.
    if (refusals_left_.fetch_sub(1) > 0) return Answer();
    response->set_match_id(absl::StrCat("m", create_match_calls_.load()));
    return grpc::Status::OK;
  }

  // What GetMatch answers, and CreateMatch for its next `refusals` calls.
  void Set(grpc::StatusCode code, int refusals = 0) {
    code_ = code;
    refusals_left_ = refusals;
  }
  int get_match_calls() const { return get_match_calls_.load(); }
  int create_match_calls() const { return create_match_calls_.load(); }

 private:
  grpc::Status Answer() const {
    const grpc::StatusCode code = code_.load();
    if (code == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      return grpc::Status(code,
                          "the referee cannot record new matches now (No "
                          "space left on device); new matches are refused "
                          "until space returns");
    }
    return grpc::Status(code, code == grpc::StatusCode::OK ? "" : "down");
  }

  std::atomic<grpc::StatusCode> code_{grpc::StatusCode::OK};
  std::atomic<int> refusals_left_{0};
  std::atomic<int> get_match_calls_{0};
  std::atomic<int> create_match_calls_{0};
};

// A referee that one call waited a whole window for has gone: the next
// call gives up at its first unanswered attempt (a referee gone for good
// cost a window per match the runner went on to try: 100 matches at
// concurrency 8, an hour). Once the referee answers again, a call waits
// out a window of its own again.
TEST(RefereeLinkTest, ACallAfterAWaitedOutOutageGivesUpAtOnce) {
  ScriptedReferee referee;
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Milliseconds(500)));
  RefereeLink& link = rig.link();
  std::vector<std::string> lines;
  link.SetRetryHooks(nullptr,
                     [&](const std::string& line) { lines.push_back(line); });
  referee.Set(grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(link.GetMatch("m1").status().code(),
            absl::StatusCode::kUnavailable);
  const int first = referee.get_match_calls();
  EXPECT_GE(first, 3);  // 100 and 200 ms waits fit in the window.
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(),
            absl::StrCat("tournament: the referee at ", link.address(),
                         " has not answered for 500ms (--referee_retry_s): "
                         "until it answers again, each call to it gives up "
                         "at its first unanswered attempt"));

  EXPECT_EQ(link.GetMatch("m1").status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(referee.get_match_calls(), first + 1);

  referee.Set(grpc::StatusCode::OK);
  EXPECT_TRUE(link.GetMatch("m1").ok());
  referee.Set(grpc::StatusCode::UNAVAILABLE);
  const int before = referee.get_match_calls();
  EXPECT_EQ(link.GetMatch("m1").status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_GE(referee.get_match_calls() - before, 3);
}

// A retry waits out its backoff on the monotonic clock: the wall clock
// stepped an hour back during an outage (NTP, a virtual machine resumed)
// held the next attempt back an hour, since the wait slept until a wall
// clock time. The call is now answered within the longest backoff (5 s)
// of the referee's return.
TEST(RefereeLinkTest, AWallClockStepDoesNotHoldBackARetry) {
  ScriptedReferee referee;
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(10)));
  RefereeLink& link = rig.link();
  referee.Set(grpc::StatusCode::UNAVAILABLE);
  std::atomic<bool> done{false};
  absl::Status status;
  std::thread caller([&] {
    status = link.GetMatch("m1").status();
    done = true;
  });
  absl::SleepFor(absl::Milliseconds(500));  // Its backoff under way.
  bool taken = false;
  bool in_time = false;
  {
    const ScopedWallClockStep step(-absl::Hours(1));  // Seen in 1-2 s.
    taken = step.taken();
    referee.Set(grpc::StatusCode::OK);
    const auto give_up =
        std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done.load() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    in_time = done.load();
    if (!in_time) link.Cancel();  // Ends the wait, to report it.
    caller.join();
  }
  ASSERT_TRUE(taken) << "the step did not take";
  EXPECT_TRUE(in_time) << "the retry waited for the wall clock";
  EXPECT_TRUE(status.ok()) << status;
}

// A window that runs out while another call heard from the referee is no
// sign that it has gone: the next call waits out a window of its own.
TEST(RefereeLinkTest, AWindowWithTheRefereeHeardMeanwhileMarksNothingGone) {
  ScriptedReferee referee;
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Milliseconds(800)));
  RefereeLink& link = rig.link();
  referee.Set(grpc::StatusCode::UNAVAILABLE);  // CreateMatch is answered.
  std::thread heard([&] {
    absl::SleepFor(absl::Milliseconds(300));
    EXPECT_TRUE(link.CreateMatch(v1::CreateMatchRequest()).ok());
  });
  EXPECT_EQ(link.GetMatch("m1").status().code(),
            absl::StatusCode::kUnavailable);
  heard.join();
  const int before = referee.get_match_calls();
  EXPECT_EQ(link.GetMatch("m1").status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_GE(referee.get_match_calls() - before, 3);
}

// A referee without space for a new match (RESOURCE_EXHAUSTED, "try again
// when space returns") is waited for, as a full one is, with one line
// saying so: the match is created once space returns (each such refusal
// was a match "not played", every match left in the tournament refused
// in turn within seconds).
TEST(RefereeLinkTest, ACreationWaitsForSpaceOnTheReferee) {
  ScriptedReferee referee;
  referee.Set(grpc::StatusCode::RESOURCE_EXHAUSTED, /*refusals=*/3);
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Seconds(30)));
  RefereeLink& link = rig.link();
  std::vector<std::string> lines;
  link.SetRetryHooks(nullptr,
                     [&](const std::string& line) { lines.push_back(line); });
  const absl::StatusOr<v1::CreateMatchResponse> created =
      link.CreateMatch(v1::CreateMatchRequest());
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(referee.create_match_calls(), 4);
  ASSERT_EQ(lines.size(), 1u) << absl::StrJoin(lines, "\n");
  EXPECT_TRUE(absl::StartsWith(
      lines[0], absl::StrCat("tournament: the referee at ", link.address(),
                             " cannot record new matches (the referee cannot "
                             "record new matches now (No space left on "
                             "device)")))
      << lines[0];
  EXPECT_EQ(link.full_refusals(), 0);  // No limit of live matches learnt.
}

// Space that does not return within --referee_retry_s, none of the link's
// matches ending or being created meanwhile, ends the wait, saying why;
// a creation after it that is refused fails at once.
TEST(RefereeLinkTest, AWaitForSpaceGivesUpAfterTheRetryWindow) {
  ScriptedReferee referee;
  referee.Set(grpc::StatusCode::RESOURCE_EXHAUSTED, /*refusals=*/1000000);
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Milliseconds(500)));
  RefereeLink& link = rig.link();
  const absl::StatusOr<v1::CreateMatchResponse> created =
      link.CreateMatch(v1::CreateMatchRequest());
  EXPECT_EQ(created.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(created.status().message(),
            absl::StrCat("creating a match: the referee at ", link.address(),
                         " cannot record new matches, and none of this "
                         "tournament's matches has ended or been created for "
                         "500ms (--referee_retry_s): the referee cannot "
                         "record new matches now (No space left on device); "
                         "new matches are refused until space returns"));
  EXPECT_GE(referee.create_match_calls(), 3);
  const int before = referee.create_match_calls();
  EXPECT_EQ(link.CreateMatch(v1::CreateMatchRequest()).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(referee.create_match_calls(), before + 1);
}

// A referee whose Watch streams are refused RESOURCE_EXHAUSTED, as a
// referee whose watcher limits count the admin token refuses them when
// spectators hold every place or at --max_watchers=0, until a test lets
// them in; a stream let in ends the match at once. It creates every match
// asked for, counting the calls.
class WatchRefusingReferee final : public v1::Referee::Service {
 public:
  static constexpr char kRefusal[] =
      "this referee takes no watchers (--max_watchers=0)";

  grpc::Status CreateMatch(grpc::ServerContext*, const v1::CreateMatchRequest*,
                           v1::CreateMatchResponse* response) override {
    response->set_match_id(
        absl::StrCat("m", create_match_calls_.fetch_add(1) + 1));
    return grpc::Status::OK;
  }

  grpc::Status Watch(grpc::ServerContext*, const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::WatchEvent>* writer) override {
    watch_calls_.fetch_add(1);
    if (refusing_.load()) {
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, kRefusal);
    }
    v1::WatchEvent event;
    event.mutable_match()->set_match_id(request->match_id());
    event.mutable_match()->set_status(v1::MATCH_FINISHED);
    writer->Write(event);
    return grpc::Status::OK;
  }

  void SetRefusing(bool refusing) { refusing_ = refusing; }
  int create_match_calls() const { return create_match_calls_.load(); }
  int watch_calls() const { return watch_calls_.load(); }

 private:
  std::atomic<bool> refusing_{true};
  std::atomic<int> create_match_calls_{0};
  std::atomic<int> watch_calls_{0};
};

// A Watch the referee refuses (RESOURCE_EXHAUSTED) says nothing of the
// match: it is asked for again with backoff, one line saying so, until the
// referee takes it, and no match is created meanwhile. Before, the refusal
// was the match's end at once ("not finished: watching: ..."), and the
// runner went on creating every match of its schedule within seconds, each
// refused in turn, their seats left to forfeit.
TEST(RefereeLinkTest, ARefusedWatchIsWaitedOutAndHoldsCreations) {
  WatchRefusingReferee referee;
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Seconds(30)));
  RefereeLink& link = rig.link();
  absl::Mutex mu;
  std::vector<std::string> lines;
  link.SetRetryHooks(nullptr, [&](const std::string& line) {
    absl::MutexLock lock(&mu);
    lines.push_back(line);
  });
  const absl::StatusOr<v1::CreateMatchResponse> first =
      link.CreateMatch(v1::CreateMatchRequest());
  ASSERT_TRUE(first.ok()) << first.status();
  std::thread watching([&] {
    const absl::Status status =
        link.AwaitEnd(first->match_id(), v1::ClockSettings());
    EXPECT_TRUE(status.ok()) << status;
  });
  {
    // (No ASSERT while the threads run.)
    absl::MutexLock lock(&mu);
    EXPECT_TRUE(mu.AwaitWithTimeout(
        absl::Condition(
            +[](std::vector<std::string>* said) { return !said->empty(); },
            &lines),
        absl::Seconds(10)))
        << "the refusal was not waited out";
  }
  std::atomic<bool> created{false};
  std::thread creating([&] {
    const absl::StatusOr<v1::CreateMatchResponse> next =
        link.CreateMatch(v1::CreateMatchRequest());
    EXPECT_TRUE(next.ok()) << next.status();
    created = true;
  });
  absl::SleepFor(absl::Milliseconds(500));
  EXPECT_FALSE(created.load());
  EXPECT_EQ(referee.create_match_calls(), 1);
  EXPECT_GE(referee.watch_calls(), 2);  // Asked for again meanwhile.
  referee.SetRefusing(false);
  watching.join();
  creating.join();
  EXPECT_EQ(referee.create_match_calls(), 2);
  absl::MutexLock lock(&mu);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0],
            absl::StrCat("tournament: the referee at ", link.address(),
                         " refuses the runner's Watch of a match "
                         "(RESOURCE_EXHAUSTED: ",
                         WatchRefusingReferee::kRefusal,
                         "): creating no more matches until it takes it; "
                         "retrying in 100ms (--referee_retry_s)"));
}

// A Watch refused for the whole of --referee_retry_s ends the wait for its
// match, saying so, and every creation after it fails at once, the
// referee asked nothing (as calls to a referee gone do), until the
// referee takes a Watch of the link's again.
TEST(RefereeLinkTest, AWatchRefusedForAWholeWindowStopsCreations) {
  WatchRefusingReferee referee;
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Milliseconds(500)));
  RefereeLink& link = rig.link();
  const absl::StatusOr<v1::CreateMatchResponse> first =
      link.CreateMatch(v1::CreateMatchRequest());
  ASSERT_TRUE(first.ok()) << first.status();
  const absl::Status watched =
      link.AwaitEnd(first->match_id(), v1::ClockSettings());
  EXPECT_EQ(watched.code(), absl::StatusCode::kUnavailable) << watched;
  EXPECT_EQ(watched.message(),
            absl::StrCat("watching: the referee at ", link.address(),
                         " still refuses the runner's Watch after 500ms "
                         "(--referee_retry_s): ",
                         WatchRefusingReferee::kRefusal));
  EXPECT_GE(referee.watch_calls(), 3);  // 100 and 200 ms waits fit.
  for (int i = 0; i < 2; ++i) {
    const absl::StatusOr<v1::CreateMatchResponse> refused =
        link.CreateMatch(v1::CreateMatchRequest());
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_EQ(refused.status().message(),
              absl::StrCat("creating a match: the referee at ", link.address(),
                           " refused the runner's Watch of a match for 500ms "
                           "(--referee_retry_s), and no match is created "
                           "until it takes one again: ",
                           WatchRefusingReferee::kRefusal));
  }
  EXPECT_EQ(referee.create_match_calls(), 1);
  referee.SetRefusing(false);
  EXPECT_TRUE(link.AwaitEnd(first->match_id(), v1::ClockSettings()).ok());
  EXPECT_TRUE(link.CreateMatch(v1::CreateMatchRequest()).ok());
  EXPECT_EQ(referee.create_match_calls(), 2);
}

// A referee that refuses every match with a message holding terminal
// escapes and a line break.
class EscapingReferee final : public v1::Referee::Service {
 public:
  grpc::Status CreateMatch(grpc::ServerContext*, const v1::CreateMatchRequest*,
                           v1::CreateMatchResponse*) override {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "bad\x1b]0;PWNED\x07\x1b[2J\nall matches genuine");
  }
};

// What a referee says reaches the runner's lines escaped: a referee the
// runner does not control could clear the terminal or forge a line.
TEST(RefereeLinkTest, ARefereesMessageIsEscaped) {
  EscapingReferee referee;
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Milliseconds(500)));
  const absl::StatusOr<v1::CreateMatchResponse> created =
      rig.link().CreateMatch(v1::CreateMatchRequest());
  EXPECT_EQ(created.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(created.status().message(),
            "creating a match: bad\\x1B]0;PWNED\\x07\\x1B[2J\\nall matches "
            "genuine");
}

// Short clocks: a decision may take 100 ms.
v1::ClockSettings ShortClocks() {
  v1::ClockSettings clocks;
  clocks.set_commit_timeout_ms(50);
  clocks.set_reveal_timeout_ms(50);
  return clocks;
}

// AwaitEnd of `match_id` on `link`, or CANCELLED with a test failure when
// it has not returned within a generous alarm (2 minutes, however loaded
// the machine): a wait that never ends fails the test instead of hanging
// it.
absl::Status AwaitEndOrAlarm(RefereeLink& link, const std::string& match_id,
                             const v1::ClockSettings& clocks,
                             const v1::GameConfig& game = v1::GameConfig(),
                             int seats = 0) {
  absl::Notification done;
  absl::Status status;
  std::thread waiter([&] {
    status = link.AwaitEnd(match_id, clocks, game, seats);
    done.Notify();
  });
  if (!done.WaitForNotificationWithTimeout(absl::Minutes(2))) {
    ADD_FAILURE() << "AwaitEnd(" << match_id << ") did not end";
    link.Cancel();
  }
  waiter.join();
  return status;
}

// A referee that answers a Watch with the match's summary, then sends
// nothing until the watcher goes: a wedged or hostile referee.
class SilentReferee final : public v1::Referee::Service {
 public:
  grpc::Status Watch(grpc::ServerContext* context,
                     const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::WatchEvent>* writer) override {
    v1::WatchEvent event;
    event.mutable_match()->set_match_id(request->match_id());
    event.mutable_match()->set_status(v1::MATCH_RUNNING);
    writer->Write(event);
    while (!context->IsCancelled()) absl::SleepFor(absl::Milliseconds(10));
    cancelled_.fetch_add(1);
    return grpc::Status::OK;
  }

  // How many of its Watch streams the watcher cancelled.
  int cancelled() const { return cancelled_.load(); }

 private:
  std::atomic<int> cancelled_{0};
};

// A running referee that sends nothing about a match for longer than its
// clocks let any decision take is not playing it: the wait ends with that
// said, and the stream is cancelled, instead of keeping the tournament
// until a second Ctrl-C.
TEST(RefereeLinkTest, AWatchSilentBeyondTheClocksEndsTheWait) {
  SilentReferee referee;
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(1)));
  rig.link().SetSilenceMargin(absl::Milliseconds(200));
  const absl::Status status = AwaitEndOrAlarm(rig.link(), "m1", ShortClocks());
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_TRUE(absl::StrContains(
      status.message(), absl::StrCat("the referee at ", rig.link().address(),
                                     " sent nothing about match m1 for ")))
      << status;
  EXPECT_TRUE(absl::StrContains(
      status.message(),
      "longer than any decision may take under its clocks (commit 50ms + "
      "time bank 0 + reveal 50ms, + 200ms for the referee's own delays)"))
      << status;
  // The stream was cancelled, not left open on the referee.
  const absl::Time end = absl::Now() + absl::Minutes(1);
  while (referee.cancelled() == 0 && absl::Now() < end) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(referee.cancelled(), 1);
}

// A referee that sends an event every `every` for `length`, then ends the
// stream: a match longer than the silence limit, never silent for long.
class BusyReferee final : public v1::Referee::Service {
 public:
  BusyReferee(absl::Duration every, absl::Duration length)
      : every_(every), length_(length) {}

  grpc::Status Watch(grpc::ServerContext* context, const v1::WatchRequest*,
                     grpc::ServerWriter<v1::WatchEvent>* writer) override {
    const absl::Time over = absl::Now() + length_;
    v1::WatchEvent event;
    event.mutable_commit()->set_decision_id(1);
    while (absl::Now() < over && !context->IsCancelled()) {
      writer->Write(event);
      absl::SleepFor(every_);
    }
    return grpc::Status::OK;
  }

 private:
  const absl::Duration every_;
  const absl::Duration length_;
};

// The limit counts from the last event, not from the start: a match that
// plays longer than it ends as it should.
TEST(RefereeLinkTest, AWatchWithEventsIsNotCutAtTheSilenceLimit) {
  // Events 20 ms apart for 7 s, against a limit of 3.1 s.
  BusyReferee referee(absl::Milliseconds(20), absl::Seconds(7));
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(1)));
  rig.link().SetSilenceMargin(absl::Seconds(3));
  EXPECT_TRUE(AwaitEndOrAlarm(rig.link(), "m1", ShortClocks()).ok());
}

// A referee whose first Watch stream sends an event, then breaks
// (UNAVAILABLE, as a restart does) after `breaks_after`; the next one ends
// the match at once.
class RestartingReferee final : public v1::Referee::Service {
 public:
  explicit RestartingReferee(absl::Duration breaks_after)
      : breaks_after_(breaks_after) {}

  grpc::Status Watch(grpc::ServerContext* context,
                     const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::WatchEvent>* writer) override {
    if (watches_.fetch_add(1) > 0) return grpc::Status::OK;
    v1::WatchEvent event;
    event.mutable_match()->set_match_id(request->match_id());
    event.mutable_match()->set_status(v1::MATCH_RUNNING);
    writer->Write(event);
    event.mutable_decision()->set_decision_id(1);  // The match goes on.
    writer->Write(event);
    const absl::Time end = absl::Now() + breaks_after_;
    while (absl::Now() < end && !context->IsCancelled()) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "restarting");
  }

  int watches() const { return watches_.load(); }

 private:
  const absl::Duration breaks_after_;
  std::atomic<int> watches_{0};
};

// A Watch that breaks after playing longer than --referee_retry_s is one
// outage from its break: it is watched again (the retry window counted
// from the call's start, so a match that broke 5 minutes in was given up
// at once, "not finished").
TEST(RefereeLinkTest, AWatchThatBreaksLateIsWatchedAgain) {
  RestartingReferee referee(absl::Seconds(2));
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Seconds(1)));
  const absl::Status status = AwaitEndOrAlarm(rig.link(), "m1", ShortClocks());
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(referee.watches(), 2);
}

// A referee that dies at each start after resuming the match: every Watch
// stream sends the match and its snapshot, then breaks (UNAVAILABLE).
class CrashLoopingReferee final : public v1::Referee::Service {
 public:
  grpc::Status Watch(grpc::ServerContext* context,
                     const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::WatchEvent>* writer) override {
    watches_.fetch_add(1);
    v1::WatchEvent event;
    event.mutable_match()->set_match_id(request->match_id());
    event.mutable_match()->set_status(v1::MATCH_RUNNING);
    writer->Write(event);
    event.mutable_snapshot()->mutable_decision()->set_decision_id(3);
    writer->Write(event);
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "restarting");
  }

  int watches() const { return watches_.load(); }

 private:
  std::atomic<int> watches_{0};
};

// What every new stream begins with (the match, its snapshot) is no sign
// that the match goes on: such streams, breaking one after another, are
// one outage, given up after --referee_retry_s (they were watched again
// for good: each restarted the window, which the backoff, at most 5 s,
// never outgrew).
TEST(RefereeLinkTest, StreamsThatOnlyBeginAreOneOutage) {
  CrashLoopingReferee referee;
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Seconds(6)));
  const absl::Status status = AwaitEndOrAlarm(rig.link(), "m1", ShortClocks());
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_GE(referee.watches(), 2);
}

// The link's downloads are referee/cli/log_fetch's (log_fetch_test tests
// them); the two tests below check its wiring: its words, its stall limit
// and cap, FetchLog's file.

// A log stream that stalls is not waited for without end: the fetch
// fails, naming the stall.
TEST(RefereeLinkTest, ALogThatStallsIsNotWaitedFor) {
  StalledLogReferee referee;
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(1)));
  rig.link().SetLogStallLimit(absl::Milliseconds(300));
  absl::Notification done;
  absl::StatusOr<std::string> log;
  std::thread fetch([&] {
    log = rig.link().GetLog("m1");
    done.Notify();
  });
  // A fetch that never ends fails the test (the referee's end then ends
  // it) instead of hanging it.
  const bool ended = done.WaitForNotificationWithTimeout(absl::Minutes(2));
  EXPECT_TRUE(ended) << "GetLog did not end";
  if (!ended) rig.Stop();
  fetch.join();
  EXPECT_EQ(log.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(
      log.status().message(),
      absl::StrCat("fetching the log: the referee at ", rig.link().address(),
                   " sent nothing of match m1's log for 300ms; not "
                   "fetched"));
}

// A referee whose transparency log's disk is full for its first `full`
// GetCheckpoint calls (RESOURCE_EXHAUSTED), then has room.
class FullTreeReferee final : public v1::Referee::Service {
 public:
  explicit FullTreeReferee(int full) : full_(full) {}

  grpc::Status GetCheckpoint(grpc::ServerContext*,
                             const v1::GetCheckpointRequest*,
                             v1::TlogCheckpoint* checkpoint) override {
    if (calls_.fetch_add(1) < full_) {
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          "transparency log: checkpoint: database or disk is "
                          "full");
    }
    checkpoint->set_tree_size(7);
    return grpc::Status::OK;
  }

  int calls() const { return calls_.load(); }

 private:
  const int full_;
  std::atomic<int> calls_{0};
};

// A full disk at the tree is waited out, as an outage is: the tournament's
// last checkpoint no longer stops the run at a moment without space.
TEST(RefereeLinkTest, AFullTreeIsWaitedOut) {
  FullTreeReferee referee(2);
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(1)));
  const absl::StatusOr<v1::TlogCheckpoint> checkpoint =
      rig.link().GetCheckpoint();
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
  EXPECT_EQ(checkpoint->tree_size(), 7u);
  EXPECT_EQ(referee.calls(), 3);
}

// The wait for space says what the referee answered: it has no space to
// record (RESOURCE_EXHAUSTED), not that it did not answer (the code was
// said as UNAVAILABLE, and the window's end as a referee that "has not
// answered").
TEST(RefereeLinkTest, AWaitForSpaceAtTheTreeSaysSo) {
  FullTreeReferee referee(1);
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(1)));
  RefereeLink& link = rig.link();
  std::vector<std::string> lines;
  link.SetRetryHooks(nullptr,
                     [&](const std::string& line) { lines.push_back(line); });
  ASSERT_TRUE(link.GetCheckpoint().ok());
  ASSERT_EQ(lines.size(), 1u) << absl::StrJoin(lines, "\n");
  EXPECT_EQ(lines[0],
            absl::StrCat("tournament: the referee at ", link.address(),
                         " has no space to record (RESOURCE_EXHAUSTED: "
                         "transparency log: checkpoint: database or disk is "
                         "full): waiting for space; retrying in 100ms "
                         "(--referee_retry_s)"));
}

// Space that does not return within --referee_retry_s ends the wait, saying
// so; the referee, which answered, is not taken for gone: the next call
// waits out a window of its own.
TEST(RefereeLinkTest, AWaitForSpaceAtTheTreeGivesUpSayingSo) {
  FullTreeReferee referee(1000000);
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Milliseconds(500)));
  RefereeLink& link = rig.link();
  std::vector<std::string> lines;
  link.SetRetryHooks(nullptr,
                     [&](const std::string& line) { lines.push_back(line); });
  const absl::StatusOr<v1::TlogCheckpoint> checkpoint = link.GetCheckpoint();
  EXPECT_EQ(checkpoint.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(
      checkpoint.status().message(),
      absl::StrCat("getting a checkpoint: the referee at ", link.address(),
                   " still has no space to record after 500ms "
                   "(--referee_retry_s): transparency log: checkpoint: "
                   "database or disk is full"));
  for (const std::string& line : lines) {
    EXPECT_TRUE(absl::StrContains(line, " has no space to record (")) << line;
  }
  const int before = referee.calls();
  EXPECT_FALSE(link.GetCheckpoint().ok());
  EXPECT_GE(referee.calls() - before, 3);
}

// A referee that sends more than the cap of one log is refused, and the
// log is not written: the runner holds no more than the cap.
TEST(RefereeLinkTest, ALogBeyondTheCapIsRefused) {
  BigLogReferee referee(uint64_t{4} << 20);
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(1)));
  rig.link().SetMaxLogBytes(uint64_t{1} << 20);
  const absl::StatusOr<std::string> log = rig.link().GetLog("m1");
  EXPECT_EQ(log.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(
      log.status().message(),
      absl::StrCat("fetching the log: the referee at ", rig.link().address(),
                   " sent more than 1048576 bytes of match m1's log, "
                   "the most the runner takes of one log; not fetched"));
  TempDir dir("referee-link-logs");
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(rig.link().FetchLog("m1", dir.path(), "m1.pyrlog").code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_FALSE(std::filesystem::exists(dir.File("m1.pyrlog")));
  // Nor is what came of it left beside.
  EXPECT_FALSE(std::filesystem::exists(dir.File("m1.pyrlog.tmp")));
}

// A referee whose GetLog sends `before` chunks of 64 KiB of 'a', waits
// until the test lets it go on, then sends `after` more and ends.
class HeldLogReferee final : public v1::Referee::Service {
 public:
  HeldLogReferee(int before, int after) : before_(before), after_(after) {}

  grpc::Status GetLog(grpc::ServerContext* context, const v1::GetLogRequest*,
                      grpc::ServerWriter<v1::LogChunk>* writer) override {
    v1::LogChunk chunk;
    chunk.set_data(std::string(kChunk, 'a'));
    for (int i = 0; i < before_; ++i) writer->Write(chunk);
    while (!go_on_.WaitForNotificationWithTimeout(absl::Milliseconds(10))) {
      if (context->IsCancelled()) return grpc::Status::OK;
    }
    for (int i = 0; i < after_; ++i) writer->Write(chunk);
    return grpc::Status::OK;
  }

  void GoOn() { go_on_.Notify(); }

  static constexpr size_t kChunk = 64 << 10;

 private:
  const int before_;
  const int after_;
  absl::Notification go_on_;
};

// The size of the file `path`, or -1 when there is none.
int64_t SizeOf(const std::string& path) {
  std::error_code error;
  const uintmax_t size = std::filesystem::file_size(path, error);
  return error ? -1 : static_cast<int64_t>(size);
}

// A fetched log goes to its file as its chunks come, not held whole in
// memory first (up to the cap, 256 MiB): while the referee holds the rest,
// what came is in FILE.tmp, and FILE is not there until the log came
// whole.
TEST(RefereeLinkTest, AFetchedLogIsWrittenAsItComes) {
  HeldLogReferee referee(4, 4);
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(1)));
  TempDir dir("referee-link-logs");
  ASSERT_TRUE(dir.ok());
  absl::Status fetched;
  std::thread fetch(
      [&] { fetched = rig.link().FetchLog("m1", dir.path(), "m1.pyrlog"); });
  const std::string tmp = dir.File("m1.pyrlog.tmp");
  const int64_t before = 4 * HeldLogReferee::kChunk;
  const absl::Time alarm = absl::Now() + absl::Minutes(2);
  while (SizeOf(tmp) != before && absl::Now() < alarm) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(SizeOf(tmp), before) << "what came is not in " << tmp;
  EXPECT_FALSE(std::filesystem::exists(dir.File("m1.pyrlog")));
  referee.GoOn();
  fetch.join();
  ASSERT_TRUE(fetched.ok()) << fetched;
  EXPECT_EQ(SizeOf(dir.File("m1.pyrlog")), 2 * before);
  EXPECT_FALSE(std::filesystem::exists(tmp));
}

// A referee whose first GetLog sends three chunks of 'a' then breaks
// (UNAVAILABLE, as a restart does), and whose next sends two of 'b'.
class BrokenLogReferee final : public v1::Referee::Service {
 public:
  grpc::Status GetLog(grpc::ServerContext*, const v1::GetLogRequest*,
                      grpc::ServerWriter<v1::LogChunk>* writer) override {
    const bool first = calls_.fetch_add(1) == 0;
    v1::LogChunk chunk;
    chunk.set_data(std::string(1000, first ? 'a' : 'b'));
    for (int i = 0; i < (first ? 3 : 2); ++i) writer->Write(chunk);
    if (first) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "restarting");
    return grpc::Status::OK;
  }

 private:
  std::atomic<int> calls_{0};
};

// A download that breaks starts the file again: the log is the second
// download's, with nothing of the first.
TEST(RefereeLinkTest, ABrokenDownloadStartsTheFileAgain) {
  BrokenLogReferee referee;
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(1)));
  TempDir dir("referee-link-logs");
  ASSERT_TRUE(dir.ok());
  const absl::Status fetched =
      rig.link().FetchLog("m1", dir.path(), "m1.pyrlog");
  ASSERT_TRUE(fetched.ok()) << fetched;
  absl::StatusOr<std::string> log = ReadFileToString(dir.File("m1.pyrlog"));
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_EQ(*log, std::string(2000, 'b'));
  EXPECT_FALSE(std::filesystem::exists(dir.File("m1.pyrlog.tmp")));
}

// A game config of `game` with no options set.
v1::GameConfig Game(const std::string& game) {
  v1::GameConfig config;
  config.set_game(game);
  return config;
}

// A referee that answers a Watch with the match, then opens decision
// `decision`, then sends nothing until the watcher goes.
class ClaimingReferee final : public v1::Referee::Service {
 public:
  explicit ClaimingReferee(uint64_t decision) : decision_(decision) {}

  grpc::Status Watch(grpc::ServerContext* context,
                     const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::WatchEvent>* writer) override {
    v1::WatchEvent event;
    event.mutable_match()->set_match_id(request->match_id());
    event.mutable_match()->set_status(v1::MATCH_RUNNING);
    writer->Write(event);
    event.mutable_decision()->set_decision_id(decision_);
    writer->Write(event);
    while (!context->IsCancelled()) absl::SleepFor(absl::Milliseconds(10));
    return grpc::Status::OK;
  }

 private:
  const uint64_t decision_;
};

// A referee that claims a decision number no match of the game reaches,
// once, is not given the silence limit of that many bank increments (a
// limit of ages, for a stream then silent): the claim itself ends the wait,
// naming the bound.
TEST(RefereeLinkTest, AClaimedDecisionBeyondTheRulesEndsTheWait) {
  ClaimingReferee referee(uint64_t{1} << 40);
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(1)));
  rig.link().SetSilenceMargin(absl::Milliseconds(200));
  v1::ClockSettings clocks = ShortClocks();
  clocks.set_time_bank_ms(100);
  clocks.set_time_bank_increment_ms(1000);
  v1::GameConfig game = Game("pyramid_shambo");
  game.mutable_pyramid_shambo()->set_max_throws(5);
  const absl::Status status =
      AwaitEndOrAlarm(rig.link(), "m1", clocks, game, 2);
  EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange) << status;
  EXPECT_EQ(status.message(),
            absl::StrCat("the referee at ", rig.link().address(),
                         " opened decision 1099511627776 of match m1, beyond "
                         "decision 15, the last of a match of pyramid_shambo "
                         "for 2 seats under its rules and the options asked "
                         "(15 moves after the seed decision at most): it is "
                         "not playing the match; not waiting for its end"));
}

// A referee that sends events without end, never ending the match (nor
// silent for long) is cut at the most one stream of the match carries.
TEST(RefereeLinkTest, EventsWithoutEndAreCutAtTheGamesBound) {
  BusyReferee referee(absl::Milliseconds(1), absl::Hours(1));
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(1)));
  const absl::Status status = AwaitEndOrAlarm(rig.link(), "m1", ShortClocks(),
                                              Game("rock_paper_pyramid"), 3);
  EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange) << status;
  // 9 rounds and the seed, each of 1 + 3 + 3 + 1 events; the match, its
  // snapshot and the outcome; twice.
  EXPECT_EQ(status.message(),
            absl::StrCat("the referee at ", rig.link().address(),
                         " sent more than 166 events about match m1 on one "
                         "Watch stream, the most one stream of a match of "
                         "rock_paper_pyramid for 3 seats under its rules and "
                         "the options asked carries (9 moves after the seed "
                         "decision at most): it is not playing the match; "
                         "not waiting for its end"));
}

// A referee whose every Watch stream sends the match, its snapshot and
// `events` commits; the first then breaks (UNAVAILABLE), the next ends the
// match.
class ResendingReferee final : public v1::Referee::Service {
 public:
  explicit ResendingReferee(int events) : events_(events) {}

  grpc::Status Watch(grpc::ServerContext*, const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::WatchEvent>* writer) override {
    v1::WatchEvent event;
    event.mutable_match()->set_match_id(request->match_id());
    event.mutable_match()->set_status(v1::MATCH_RUNNING);
    writer->Write(event);
    event.mutable_snapshot()->mutable_decision()->set_decision_id(1);
    writer->Write(event);
    event.mutable_commit()->set_decision_id(1);
    for (int i = 0; i < events_; ++i) writer->Write(event);
    if (watches_.fetch_add(1) == 0) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "restarting");
    }
    return grpc::Status::OK;
  }

  int watches() const { return watches_.load(); }

 private:
  const int events_;
  std::atomic<int> watches_{0};
};

// Each stream is counted alone: a stream watched again after an outage
// begins anew, and what it sends again is not counted twice against the
// bound (166 for three seats of Rock, Paper, Pyramid!).
TEST(RefereeLinkTest, AStreamWatchedAgainIsCountedAnew) {
  ResendingReferee referee(160);
  FakeRefereeRig rig(referee);
  ASSERT_NO_FATAL_FAILURE(rig.Start(absl::Minutes(1)));
  const absl::Status status = AwaitEndOrAlarm(rig.link(), "m1", ShortClocks(),
                                              Game("rock_paper_pyramid"), 3);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(referee.watches(), 2);
}

}  // namespace
}  // namespace pyramid
