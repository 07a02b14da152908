// The referee service over real gRPC on loopback, in one process: a
// grpc::Server on 127.0.0.1:0 running a Lobby + RefereeService, driven by
// the generated stub and by tests/test_client.h (which can send arbitrary
// bytes). Covers authentication, the Play protocol (including a bot stream
// that multiplexes matches and reconnect-and-resume), server-side clocks and
// forfeits, the Watch stream's secrecy, health and reflection, and one test
// per kind of bad input; after each, the match's log must still verify.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "referee/service/health_service.h"
#include "referee/service/lobby.h"
#include "referee/service/referee_service.h"
#include "referee/service/token.h"
#include "referee/service/view_delta.h"
#include "tests/temp_dir.h"
#include "tests/test_client.h"
#include "tests/test_referee.h"

namespace pyramid {
namespace {

using google::protobuf::util::MessageDifferencer;
using svctest::EventLog;
using svctest::FetchLog;
using svctest::IsAnyError;
using svctest::IsCommitAck;
using svctest::IsDecision;
using svctest::IsEnded;
using svctest::IsError;
using svctest::IsResult;
using svctest::IsRevealAck;
using svctest::IsRevealRequest;
using svctest::kWait;
using svctest::Move;
using svctest::NewMove;
using svctest::PlayClient;
using svctest::TestRefereeOptions;
using svctest::WatchClient;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kGame[] = "rock_paper_pyramid";
constexpr int kSeats = 3;

// google.rpc.Code values as PlayError carries them.
constexpr int kInvalidArgument = 3;
constexpr int kNotFound = 5;
constexpr int kAlreadyExists = 6;
constexpr int kPermissionDenied = 7;
constexpr int kResourceExhausted = 8;
constexpr int kFailedPrecondition = 9;
constexpr int kDataLoss = 15;

// The service tests' referee: messages up to 1 MiB, a checkpoint every 8
// records.
TestRefereeOptions ServiceOptions() {
  TestRefereeOptions options;
  options.dir_prefix = "svctest";
  options.max_message_bytes = 1 << 20;
  options.checkpoint_interval = 8;
  return options;
}

// The shared in-process referee (tests/test_referee.h), with the logs of its
// kGame matches.
class ServiceReferee : public svctest::TestReferee {
 public:
  explicit ServiceReferee(const TestRefereeOptions& options = ServiceOptions())
      : TestReferee(options) {}

  std::string LogPath(const std::string& match_id) const {
    return absl::StrCat(dir(), "/", kGame, "-", match_id, ".pyrlog");
  }
  std::string LogBytes(const std::string& match_id) const {
    absl::StatusOr<std::string> bytes = ReadFileToString(LogPath(match_id));
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    return bytes.ok() ? *bytes : "";
  }
  std::vector<v1::LogRecord> Records(const std::string& match_id) const {
    return svctest::ParseRecords(LogBytes(match_id));
  }
  Verdict Verify(const std::string& match_id) const {
    return svctest::VerifyBytes(LogBytes(match_id), public_key());
  }
};

struct Created {
  std::string id;
  std::vector<std::string> tokens;
};

v1::ClockSettings Clocks(uint32_t commit_ms, uint32_t reveal_ms,
                         uint32_t bank_ms = 0, uint32_t increment_ms = 0) {
  v1::ClockSettings clocks;
  clocks.set_commit_timeout_ms(commit_ms);
  clocks.set_reveal_timeout_ms(reveal_ms);
  clocks.set_time_bank_ms(bank_ms);
  clocks.set_time_bank_increment_ms(increment_ms);
  return clocks;
}

// Records of one kind in a log.
std::vector<v1::LogRecord> OfKind(const std::vector<v1::LogRecord>& records,
                                  v1::LogRecord::KindCase kind) {
  std::vector<v1::LogRecord> out;
  for (const v1::LogRecord& r : records) {
    if (r.kind_case() == kind) out.push_back(r);
  }
  return out;
}

// When decision `d`'s reveal phase opened, its reveal deadline counting
// from there: the arrival of its last commit, as logged (0: none).
int64_t LastCommitMs(const std::vector<v1::LogRecord>& records, uint64_t d) {
  int64_t last = 0;
  for (const v1::LogRecord& r : OfKind(records, v1::LogRecord::kCommit)) {
    if (r.commit().decision_id() == d) {
      last = std::max(last, r.commit().received_unix_ms());
    }
  }
  return last;
}

// Breaks the match whose log is `path` as a failing disk would: the
// referee's descriptor of the file is replaced by one open for reading
// only, so that the match's next write fails (EBADF) and the match stops,
// broken.
void BreakLog(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path log = fs::canonical(path);
  int found = -1;
  for (const fs::directory_entry& fd :
       fs::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    if (fs::read_symlink(fd.path(), error) == log && !error) {
      found = std::stoi(fd.path().filename().string());
      break;
    }
  }
  ASSERT_GE(found, 0) << "no descriptor of " << path;
  const int read_only = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(read_only, 0) << strerror(errno);
  ASSERT_EQ(dup3(read_only, found, O_CLOEXEC), found) << strerror(errno);
  close(read_only);
}

// Restores a file descriptor on destruction.
class Redirect {
 public:
  Redirect(int fd, const std::string& path) : fd_(fd), saved_(dup(fd)) {
    fflush(nullptr);
    const int file = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(file, fd_);
    close(file);
  }
  ~Redirect() {
    fflush(nullptr);
    dup2(saved_, fd_);
    close(saved_);
  }

 private:
  const int fd_;
  const int saved_;
};

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { ref_ = std::make_unique<ServiceReferee>(); }
  void TearDown() override { ref_.reset(); }

  // Creates a match with `seats` (default: three token seats).
  Created NewMatch(v1::ClockSettings clocks = {},
                   v1::ForfeitPolicy policy = v1::FORFEIT_POLICY_FORFEIT,
                   std::vector<std::string> bot_ids = {"", "", ""},
                   ServiceReferee* referee = nullptr) {
    if (referee == nullptr) referee = ref_.get();
    v1::CreateMatchRequest request;
    request.mutable_game()->set_game(kGame);
    for (const std::string& bot : bot_ids) request.add_seats()->set_bot_id(bot);
    *request.mutable_clocks() = clocks;
    request.set_forfeit_policy(policy);
    grpc::ClientContext context;
    svctest::Authorize(context, referee->admin_token());
    v1::CreateMatchResponse response;
    grpc::Status status =
        referee->stub().CreateMatch(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return Created{
        response.match_id(),
        {response.seat_tokens().begin(), response.seat_tokens().end()}};
  }

  v1::RegisterBotResponse NewBot(const std::string& name) {
    v1::RegisterBotRequest request;
    request.set_name(name);
    grpc::ClientContext context;
    svctest::Authorize(context, ref_->admin_token());
    v1::RegisterBotResponse response;
    grpc::Status status =
        ref_->stub().RegisterBot(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  std::unique_ptr<PlayClient> Connect(const std::string& token,
                                      const std::string& name = "play",
                                      EventLog* log = nullptr,
                                      ServiceReferee* referee = nullptr) {
    if (referee == nullptr) referee = ref_.get();
    return std::make_unique<PlayClient>(referee->NewChannel(), token, name,
                                        log);
  }

  // One "batch" stream per seat of `match` from `first_seat` on (indexed
  // by seat; null before it), each once it holds its seed request.
  std::vector<std::unique_ptr<PlayClient>> ConnectBatchSeats(
      const Created& match, uint32_t first_seat = 0) {
    std::vector<std::unique_ptr<PlayClient>> seats(kSeats);
    for (uint32_t seat = first_seat; seat < kSeats; ++seat) {
      seats[seat] = std::make_unique<PlayClient>(
          ref_->NewChannel(), match.tokens[seat], absl::StrCat("seat", seat),
          nullptr, std::nullopt, "batch");
      EXPECT_TRUE(seats[seat]->Await(IsDecision(match.id, seat, 0)));
    }
    return seats;
  }

  // A seed contribution for each seat.
  static std::vector<Move> SeedMoves() {
    std::vector<Move> moves;
    for (uint32_t seat = 0; seat < kSeats; ++seat) {
      moves.push_back(NewMove(svctest::SeedAction()));
    }
    return moves;
  }

  // One client per seat of `match`.
  std::vector<std::unique_ptr<PlayClient>> ConnectSeats(
      const Created& match, EventLog* log = nullptr,
      ServiceReferee* referee = nullptr) {
    std::vector<std::unique_ptr<PlayClient>> clients;
    for (int seat = 0; seat < kSeats; ++seat) {
      clients.push_back(Connect(match.tokens[seat], absl::StrCat("seat", seat),
                                log, referee));
    }
    return clients;
  }

  v1::MatchInfo Info(const std::string& match_id) {
    grpc::ClientContext context;
    v1::GetMatchRequest request;
    request.set_match_id(match_id);
    v1::MatchInfo info;
    grpc::Status status = ref_->stub().GetMatch(&context, request, &info);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return info;
  }

  // The first listed legal action of `seat` in decision `d` (its seed when
  // d is 0), from the DecisionRequest the seat received.
  static v1::Action Choice(PlayClient& client, const std::string& match,
                           uint32_t seat, uint64_t d) {
    if (d == 0) return svctest::SeedAction();
    std::optional<v1::PlayResponse> request =
        client.Await(IsDecision(match, seat, d));
    EXPECT_TRUE(request.has_value()) << "no DecisionRequest " << d;
    if (!request || request->decision().legal_actions_size() == 0) return {};
    return request->decision().legal_actions(
        (d + seat) % request->decision().legal_actions_size());
  }

  // Plays decision `d` honestly for every seat, step by step, checking the
  // acks; returns the moves.
  static std::vector<Move> PlayDecision(
      std::vector<std::unique_ptr<PlayClient>>& clients,
      const std::string& match, uint64_t d) {
    std::vector<Move> moves;
    for (uint32_t seat = 0; seat < clients.size(); ++seat) {
      moves.push_back(NewMove(Choice(*clients[seat], match, seat, d)));
      EXPECT_TRUE(
          clients[seat]->Send(svctest::CommitMsg(match, seat, d, moves[seat])));
      EXPECT_TRUE(clients[seat]->Await(IsCommitAck(match, seat, d)))
          << "seat " << seat << " decision " << d;
    }
    for (uint32_t seat = 0; seat < clients.size(); ++seat) {
      EXPECT_TRUE(clients[seat]->Await(IsRevealRequest(match, seat, d)));
      EXPECT_TRUE(
          clients[seat]->Send(svctest::RevealMsg(match, seat, d, moves[seat])));
      EXPECT_TRUE(clients[seat]->Await(IsRevealAck(match, seat, d)));
    }
    for (uint32_t seat = 0; seat < clients.size(); ++seat) {
      EXPECT_TRUE(clients[seat]->Await(IsResult(match, seat, d)));
    }
    return moves;
  }

  // Lets every client play honestly from decision `from` on, waits for the
  // end, and checks that the log on disk and GetLog both verify.
  void FinishAndVerify(std::vector<std::unique_ptr<PlayClient>>& clients,
                       const std::string& match, uint64_t from) {
    for (auto& client : clients) client->AutoPlay(from);
    for (uint32_t seat = 0; seat < clients.size(); ++seat) {
      ASSERT_TRUE(clients[seat]->Await(IsEnded(match, seat)))
          << "seat " << seat << " saw no end";
    }
    ExpectGenuine(match);
  }

  // The log as GetLog serves it must verify, and equal the file on disk.
  void ExpectGenuine(const std::string& match) {
    std::string fetched;
    grpc::Status status = FetchLog(ref_->stub(), match, "", &fetched);
    ASSERT_TRUE(status.ok()) << status.error_message();
    const Verdict verdict = svctest::VerifyBytes(fetched, ref_->public_key());
    EXPECT_EQ(verdict.kind, Verdict::Kind::kGenuine) << verdict.reason;
    EXPECT_EQ(fetched, ref_->LogBytes(match));
  }

  std::unique_ptr<ServiceReferee> ref_;
};

// --- Item 3: authentication ------------------------------------------------

grpc::Status CallCreateMatch(v1::Referee::Stub& stub,
                             const std::optional<std::string>& authorization) {
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game(kGame);
  for (int i = 0; i < kSeats; ++i) request.add_seats();
  grpc::ClientContext context;
  if (authorization) context.AddMetadata("authorization", *authorization);
  v1::CreateMatchResponse response;
  return stub.CreateMatch(&context, request, &response);
}

grpc::Status CallRegisterBot(v1::Referee::Stub& stub,
                             const std::optional<std::string>& authorization) {
  v1::RegisterBotRequest request;
  request.set_name("b");
  grpc::ClientContext context;
  if (authorization) context.AddMetadata("authorization", *authorization);
  v1::RegisterBotResponse response;
  return stub.RegisterBot(&context, request, &response);
}

// The same token with the last hex digit of its secret changed.
std::string Tampered(std::string token) {
  token.back() = token.back() == '0' ? '1' : '0';
  return token;
}

TEST_F(ServiceTest, AdminCallsNeedTheAdminToken) {
  const Created match = NewMatch();
  const v1::RegisterBotResponse bot = NewBot("alice");
  const std::string admin = ref_->admin_token();
  for (auto* call : {&CallCreateMatch, &CallRegisterBot}) {
    EXPECT_EQ(call(ref_->stub(), std::nullopt).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(call(ref_->stub(), "Bearer").error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(call(ref_->stub(), "Basic " + admin).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(call(ref_->stub(), "Bearer " + Tampered(admin)).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(
        call(ref_->stub(), "Bearer " + Tampered(match.tokens[0])).error_code(),
        grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(call(ref_->stub(), "Bearer " + match.tokens[0]).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_EQ(call(ref_->stub(), "Bearer " + bot.bot_token()).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_TRUE(call(ref_->stub(), "Bearer " + admin).ok());
  }
}

TEST_F(ServiceTest, TokensCarryAtLeast128RandomBitsAndAreDistinct) {
  std::set<std::string> seen;
  std::vector<std::string> tokens;
  for (int i = 0; i < 3; ++i) {
    for (const std::string& t : NewMatch().tokens) tokens.push_back(t);
    tokens.push_back(NewBot(absl::StrCat("bot", i)).bot_token());
  }
  for (const std::string& token : tokens) {
    // "<id>.<secret>": 8 bytes of id, 32 bytes (256 bits) of secret, hex.
    ASSERT_EQ(token.size(), 16u + 1 + 64u) << token.size();
    ASSERT_EQ(token[16], '.');
    const absl::StatusOr<std::string> secret = FromHex(token.substr(17));
    ASSERT_TRUE(secret.ok());
    EXPECT_GE(secret->size() * 8, 128u);
    EXPECT_TRUE(seen.insert(token).second) << "a token was issued twice";
    EXPECT_TRUE(seen.insert(token.substr(17)).second) << "a secret repeats";
  }
}

TEST_F(ServiceTest, PlayWithoutAValidTokenIsUnauthenticated) {
  const Created match = NewMatch();
  struct Case {
    std::string name;
    std::optional<std::string> authorization;
    grpc::StatusCode code;
  };
  const std::vector<Case> cases = {
      {"none", std::nullopt, grpc::StatusCode::UNAUTHENTICATED},
      {"empty bearer", "Bearer ", grpc::StatusCode::UNAUTHENTICATED},
      {"not bearer", match.tokens[0], grpc::StatusCode::UNAUTHENTICATED},
      {"garbage", "Bearer xyz", grpc::StatusCode::UNAUTHENTICATED},
      {"wrong secret", "Bearer " + Tampered(match.tokens[0]),
       grpc::StatusCode::UNAUTHENTICATED},
      {"admin", "Bearer " + ref_->admin_token(),
       grpc::StatusCode::PERMISSION_DENIED},
  };
  for (const Case& c : cases) {
    PlayClient client(ref_->NewChannel(), "", c.name, nullptr, c.authorization);
    const grpc::Status status = client.AwaitEnd();
    EXPECT_EQ(status.error_code(), c.code)
        << c.name << ": " << status.error_message();
    EXPECT_TRUE(client.Messages().empty()) << c.name << " was sent something";
  }
  // The match is untouched: the real seats can still play it.
  auto clients = ConnectSeats(match);
  FinishAndVerify(clients, match.id, 0);
}

TEST_F(ServiceTest, SeatTokenActsOnlyForItsOwnSeat) {
  const Created match = NewMatch();
  const Created other = NewMatch();
  auto clients = ConnectSeats(match);
  PlayClient& seat0 = *clients[0];
  ASSERT_TRUE(seat0.Await(IsDecision(match.id, 0, 0)));
  const size_t records = ref_->Records(match.id).size();
  const size_t other_records = ref_->Records(other.id).size();

  const Move move = NewMove(svctest::SeedAction());
  // Another seat of the same match, a seat of another match, a seat that
  // does not exist, and a reveal for another seat.
  seat0.Send(svctest::CommitMsg(match.id, 1, 0, move));
  seat0.Send(svctest::CommitMsg(other.id, 0, 0, move));
  seat0.Send(svctest::CommitMsg(match.id, 99, 0, move));
  seat0.Send(svctest::RevealMsg(match.id, 2, 0, move));
  EXPECT_TRUE(seat0.Await(IsError(match.id, 1, 0, kPermissionDenied)));
  EXPECT_TRUE(seat0.Await(IsError(other.id, 0, 0, kPermissionDenied)));
  EXPECT_TRUE(seat0.Await(IsError(match.id, 99, 0, kPermissionDenied)));
  EXPECT_TRUE(seat0.Await(IsError(match.id, 2, 0, kPermissionDenied)));
  EXPECT_EQ(ref_->Records(match.id).size(), records);
  EXPECT_EQ(ref_->Records(other.id).size(), other_records);
  EXPECT_FALSE(seat0.ended());  // In-band errors keep the stream open.

  FinishAndVerify(clients, match.id, 0);
  // A seat hears only about its own seat of its own match.
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    for (const v1::PlayResponse& m : clients[seat]->Messages()) {
      if (m.has_error()) continue;  // Echoes what was sent.
      const google::protobuf::Message* inner = nullptr;
      switch (m.kind_case()) {
        case v1::PlayResponse::kDecision:
          inner = &m.decision();
          break;
        case v1::PlayResponse::kRevealRequest:
          inner = &m.reveal_request();
          break;
        case v1::PlayResponse::kCommitAck:
          inner = &m.commit_ack();
          break;
        case v1::PlayResponse::kRevealAck:
          inner = &m.reveal_ack();
          break;
        case v1::PlayResponse::kResult:
          inner = &m.result();
          break;
        case v1::PlayResponse::kMatchEnded:
          inner = &m.match_ended();
          break;
        default:
          ADD_FAILURE() << "unexpected " << m.ShortDebugString();
      }
      if (inner == nullptr) continue;
      const auto* d = inner->GetDescriptor();
      const auto* r = inner->GetReflection();
      EXPECT_EQ(r->GetString(*inner, d->FindFieldByName("match_id")), match.id);
      EXPECT_EQ(r->GetUInt32(*inner, d->FindFieldByName("seat")), seat)
          << m.ShortDebugString();
    }
  }
}

TEST_F(ServiceTest, BotTokenActsOnlyForItsBotsSeats) {
  const v1::RegisterBotResponse alice = NewBot("alice");
  const v1::RegisterBotResponse bob = NewBot("bob");
  const Created match = NewMatch({}, v1::FORFEIT_POLICY_FORFEIT,
                                 {alice.bot_id(), bob.bot_id(), ""});
  EXPECT_EQ(match.tokens[0], "");
  EXPECT_EQ(match.tokens[1], "");
  PlayClient client(ref_->NewChannel(), alice.bot_token(), "alice");
  ASSERT_TRUE(client.Await(IsDecision(match.id, 0, 0)));
  const Move move = NewMove(svctest::SeedAction());
  client.Send(svctest::CommitMsg(match.id, 1, 0, move));  // Bob's seat.
  client.Send(svctest::CommitMsg(match.id, 2, 0, move));  // A token seat.
  EXPECT_TRUE(client.Await(IsError(match.id, 1, 0, kPermissionDenied)));
  EXPECT_TRUE(client.Await(IsError(match.id, 2, 0, kPermissionDenied)));
  EXPECT_EQ(client.Count(IsDecision(match.id, 1, 0)), 0);
  // A seat token cannot play a bot's seat either.
  PlayClient seat2(ref_->NewChannel(), match.tokens[2], "seat2");
  seat2.Send(svctest::CommitMsg(match.id, 0, 0, move));
  EXPECT_TRUE(seat2.Await(IsError(match.id, 0, 0, kPermissionDenied)));
  // Header, its checkpoint, decision 0: nothing else.
  EXPECT_EQ(ref_->Records(match.id).size(), 3u);
}

TEST_F(ServiceTest, TokensNeverAppearInOutputOrLogs) {
  const TempDir out_dir("svctest");
  EXPECT_TRUE(out_dir.ok());
  const std::string out = out_dir.File("stdout"), err = out_dir.File("stderr");
  std::vector<std::string> secrets;
  std::vector<std::string> log_files;
  {
    Redirect redirect_out(STDOUT_FILENO, out);
    Redirect redirect_err(STDERR_FILENO, err);
    TestRefereeOptions config = ServiceOptions();
    config.max_message_bytes = 4096;
    auto referee = std::make_unique<ServiceReferee>(config);
    secrets.push_back(referee->admin_token());
    v1::RegisterBotRequest bot_request;
    bot_request.set_name("bot");
    grpc::ClientContext bot_context;
    svctest::Authorize(bot_context, referee->admin_token());
    v1::RegisterBotResponse bot;
    referee->stub().RegisterBot(&bot_context, bot_request, &bot);
    secrets.push_back(bot.bot_token());
    const Created match = NewMatch({}, v1::FORFEIT_POLICY_FORFEIT,
                                   {bot.bot_id(), "", ""}, referee.get());
    for (const std::string& t : match.tokens) {
      if (!t.empty()) secrets.push_back(t);
    }
    // Failed and refused attempts, an oversized message, then the match.
    CallCreateMatch(referee->stub(), "Bearer " + match.tokens[1]);
    CallCreateMatch(referee->stub(),
                    "Bearer " + Tampered(referee->admin_token()));
    {
      PlayClient bad(referee->NewChannel(), Tampered(bot.bot_token()));
      bad.AwaitEnd();
      PlayClient big(referee->NewChannel(), match.tokens[2]);
      v1::PlayRequest huge = svctest::RevealMsg(
          match.id, 2, 0, Move{std::string(32, 's'), std::string(8192, 'a')});
      big.Send(huge);
      big.AwaitEnd();
    }
    std::vector<std::unique_ptr<PlayClient>> clients;
    clients.push_back(
        std::make_unique<PlayClient>(referee->NewChannel(), bot.bot_token()));
    clients.push_back(
        std::make_unique<PlayClient>(referee->NewChannel(), match.tokens[1]));
    clients.push_back(
        std::make_unique<PlayClient>(referee->NewChannel(), match.tokens[2]));
    for (auto& c : clients) c->AutoPlay();
    for (uint32_t seat = 0; seat < kSeats; ++seat) {
      EXPECT_TRUE(clients[seat]->Await(IsEnded(match.id, seat)));
    }
    clients.clear();
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(referee->dir())) {
      if (entry.is_regular_file()) {
        absl::StatusOr<std::string> bytes =
            ReadFileToString(entry.path().string());
        if (bytes.ok()) log_files.push_back(*bytes);
      }
    }
    referee.reset();
  }
  ASSERT_EQ(secrets.size(), 4u);
  ASSERT_FALSE(log_files.empty());
  std::vector<std::string> outputs = {*ReadFileToString(out),
                                      *ReadFileToString(err)};
  for (const std::string& secret : secrets) {
    // The whole token, its secret half in hex, and its raw secret bytes.
    std::vector<std::string> needles = {secret};
    if (secret.size() == 81) {
      needles.push_back(secret.substr(17));
      needles.push_back(*FromHex(secret.substr(17)));
    }
    for (const std::string& needle : needles) {
      for (const std::string& text : outputs) {
        EXPECT_FALSE(absl::StrContains(text, needle)) << "token in output";
      }
      for (const std::string& file : log_files) {
        EXPECT_FALSE(absl::StrContains(file, needle)) << "token in a log";
      }
    }
  }
}

// --- Item 4: play ------------------------------------------------------------

TEST_F(ServiceTest, DecisionRequestsCarryObservationLegalActionsDeadlines) {
  const int64_t before = absl::ToUnixMillis(absl::Now());
  const Created match = NewMatch(Clocks(20000, 15000));
  auto clients = ConnectSeats(match);
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    std::optional<v1::PlayResponse> seed =
        clients[seat]->Await(IsDecision(match.id, seat, 0));
    ASSERT_TRUE(seed);
    const v1::DecisionRequest& d = seed->decision();
    EXPECT_EQ(d.game(), kGame);
    EXPECT_EQ(d.num_seats(), 3u);
    EXPECT_THAT(d.acting_seats(), ElementsAre(0, 1, 2));
    EXPECT_TRUE(d.simultaneous());
    EXPECT_FALSE(d.committed());
    EXPECT_FALSE(d.has_observation());
    EXPECT_FALSE(d.legal_actions_listed());
    EXPECT_EQ(d.legal_actions_size(), 0);
    EXPECT_GE(d.commit_deadline_unix_ms(), before + 20000);
    EXPECT_LE(d.commit_deadline_unix_ms(),
              absl::ToUnixMillis(absl::Now()) + 20000);
  }
  PlayDecision(clients, match.id, 0);
  const std::vector<v1::LogRecord> records = ref_->Records(match.id);
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    // The commit ack carries the time written in the log.
    const v1::CommitAck ack =
        clients[seat]->Await(IsCommitAck(match.id, seat, 0))->commit_ack();
    bool logged = false;
    for (const v1::LogRecord& r : OfKind(records, v1::LogRecord::kCommit)) {
      if (r.commit().seat() == seat && r.commit().decision_id() == 0) {
        EXPECT_EQ(r.commit().received_unix_ms(), ack.received_unix_ms());
        logged = true;
      }
    }
    EXPECT_TRUE(logged);
    const v1::RevealRequest reveal =
        clients[seat]
            ->Await(IsRevealRequest(match.id, seat, 0))
            ->reveal_request();
    EXPECT_GT(reveal.reveal_deadline_unix_ms(), 0);
    EXPECT_LE(reveal.reveal_deadline_unix_ms(),
              absl::ToUnixMillis(absl::Now()) + 15000);

    std::optional<v1::PlayResponse> d1 =
        clients[seat]->Await(IsDecision(match.id, seat, 1));
    ASSERT_TRUE(d1);
    const v1::DecisionRequest& d = d1->decision();
    ASSERT_TRUE(d.has_observation());
    EXPECT_FALSE(d.observation().public_view());
    EXPECT_EQ(d.observation().seat(), seat);
    EXPECT_TRUE(d.observation().has_rock_paper_pyramid());
    EXPECT_EQ(d.observation().rock_paper_pyramid().rounds_played(), 0u);
    EXPECT_TRUE(d.legal_actions_listed());
    ASSERT_EQ(d.legal_actions_size(), 9);  // 3 colours x 3 sizes.
    for (int i = 1; i < d.legal_actions_size(); ++i) {
      EXPECT_LT(d.legal_actions(i - 1).SerializeAsString(),
                d.legal_actions(i).SerializeAsString());
    }
    EXPECT_GT(d.commit_deadline_unix_ms(), 0);
    // The seed's result: the seat's own view of the initial state.
    const v1::DecisionResult result =
        clients[seat]->Await(IsResult(match.id, seat, 0))->result();
    EXPECT_EQ(result.observation().seat(), seat);
    EXPECT_TRUE(result.observation().has_rock_paper_pyramid());
  }
  FinishAndVerify(clients, match.id, 1);
}

TEST_F(ServiceTest, FullMatchOverTheWireVerifies) {
  const Created match = NewMatch();
  // A running match's log is served only to the admin.
  std::string bytes;
  EXPECT_EQ(FetchLog(ref_->stub(), match.id, "", &bytes).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(
      FetchLog(ref_->stub(), match.id, match.tokens[0], &bytes).error_code(),
      grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(
      FetchLog(ref_->stub(), match.id, ref_->admin_token(), &bytes).ok());
  EXPECT_EQ(bytes, ref_->LogBytes(match.id));

  auto clients = ConnectSeats(match);
  FinishAndVerify(clients, match.id, 0);
  const Verdict verdict = ref_->Verify(match.id);
  const v1::MatchInfo info = Info(match.id);
  EXPECT_EQ(info.status(), v1::MATCH_FINISHED);
  EXPECT_EQ(info.outcome().SerializeAsString(),
            verdict.outcome.SerializeAsString());
  const std::vector<v1::LogRecord> records = ref_->Records(match.id);
  const size_t decisions =
      OfKind(records, v1::LogRecord::kDecisionOpened).size();
  EXPECT_EQ(decisions, 10u);  // The seed and nine rounds.
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    PlayClient& c = *clients[seat];
    const v1::MatchEnded ended =
        c.Await(IsEnded(match.id, seat))->match_ended();
    EXPECT_EQ(ended.outcome().SerializeAsString(),
              verdict.outcome.SerializeAsString());
    int commit_acks = 0, reveal_acks = 0, results = 0;
    for (const v1::PlayResponse& m : c.Messages()) {
      commit_acks += m.has_commit_ack();
      reveal_acks += m.has_reveal_ack();
      results += m.has_result();
      EXPECT_FALSE(m.has_error()) << m.ShortDebugString();
    }
    EXPECT_EQ(commit_acks, static_cast<int>(decisions));
    EXPECT_EQ(reveal_acks, static_cast<int>(decisions));
    EXPECT_EQ(results, static_cast<int>(decisions));
  }
  // A seat token plays one match: its stream ends OK after its MatchEnded.
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    const grpc::Status end = clients[seat]->AwaitEnd();
    EXPECT_TRUE(end.ok()) << seat << ": " << end.error_code() << " "
                          << end.error_message();
    EXPECT_TRUE(IsEnded(match.id, seat)(clients[seat]->Messages().back()));
  }
}

// What a seat token's stream is sent before the referee ends it is all
// there: on "batch" streams, whose acknowledgements a match holds for the
// next step, the last RevealAck still comes, before the MatchEnded that is
// the stream's last message; the stream then ends OK.
TEST_F(ServiceTest, ASeatTokensStreamEndsOkAfterItsMatchEnded) {
  const Created match = NewMatch();
  std::vector<std::unique_ptr<PlayClient>> seats = ConnectBatchSeats(match);
  FinishAndVerify(seats, match.id, 0);
  const size_t decisions =
      OfKind(ref_->Records(match.id), v1::LogRecord::kDecisionOpened).size();
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    const grpc::Status end = seats[seat]->AwaitEnd();
    EXPECT_TRUE(end.ok()) << seat << ": " << end.error_code() << " "
                          << end.error_message();
    const std::vector<v1::PlayResponse> messages = seats[seat]->Messages();
    ASSERT_FALSE(messages.empty());
    EXPECT_TRUE(IsEnded(match.id, seat)(messages.back()))
        << messages.back().ShortDebugString();
    EXPECT_EQ(seats[seat]->Count(IsEnded(match.id, seat)), 1);
    EXPECT_EQ(
        static_cast<size_t>(seats[seat]->Count(
            [](const v1::PlayResponse& m) { return m.has_reveal_ack(); })),
        decisions)
        << seat;
  }
}

// A seat that closes its sending side in the middle of a match ends its
// stream: the referee finishes it OK at once, sending nothing more (the OK
// is the client's own doing, docs/protocol.md "Results"); the match goes on,
// and a new stream with the same token is asked for what the seat owes.
TEST_F(ServiceTest, AHalfCloseMidMatchEndsTheStreamOkAndANewOneGoesOn) {
  const Created match = NewMatch();
  std::vector<std::unique_ptr<PlayClient>> seats = ConnectSeats(match);
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    ASSERT_TRUE(seats[seat]->Await(IsDecision(match.id, seat, 0)));
  }
  ASSERT_TRUE(seats[0]->CloseSending());
  const grpc::Status end = seats[0]->AwaitEnd();
  EXPECT_TRUE(end.ok()) << end.error_code() << " " << end.error_message();
  EXPECT_EQ(seats[0]->Count(IsEnded(match.id, 0)), 0);
  seats[0] = Connect(match.tokens[0], "seat0-again");
  FinishAndVerify(seats, match.id, 0);
}

// A bot's stream carries every match of the bot: one match's end does not
// end it. A late commit is refused in band, and the bot's next match
// reaches the same stream.
TEST_F(ServiceTest, ABotsStreamStaysOpenAfterOneOfItsMatchesEnds) {
  const v1::RegisterBotResponse bot = NewBot("stays");
  const Created match =
      NewMatch({}, v1::FORFEIT_POLICY_FORFEIT, {bot.bot_id(), "", ""});
  PlayClient stream(ref_->NewChannel(), bot.bot_token(), "bot");
  std::unique_ptr<PlayClient> one = Connect(match.tokens[1], "seat1");
  std::unique_ptr<PlayClient> two = Connect(match.tokens[2], "seat2");
  for (PlayClient* client : {&stream, one.get(), two.get()}) {
    client->AutoPlay();
  }
  ASSERT_TRUE(stream.Await(IsEnded(match.id, 0)));
  stream.Send(svctest::CommitMsg(match.id, 0, 10, NewMove({})));
  EXPECT_TRUE(stream.Await(IsError(match.id, 0, 10, kFailedPrecondition)));
  const Created next =
      NewMatch({}, v1::FORFEIT_POLICY_FORFEIT, {"", bot.bot_id(), ""});
  EXPECT_TRUE(stream.Await(IsDecision(next.id, 1, 0)));
  EXPECT_FALSE(stream.ended());
  // The token seats' streams ended with their match.
  EXPECT_TRUE(one->AwaitEnd().ok());
  EXPECT_TRUE(two->AwaitEnd().ok());
  ExpectGenuine(match.id);
}

// A seat token's stream plays one match: when that match breaks (its log
// cannot be written), the seat is told why (a DATA_LOSS PlayError), and
// its stream then ends DATA_LOSS, saying the same, instead of staying open
// with nothing more to come. A seat token that connects to the broken
// match afterwards is told again, and its stream ends the same way.
TEST_F(ServiceTest, ASeatTokensStreamEndsDataLossOnceItsMatchBreaks) {
  const Created match = NewMatch();
  std::vector<std::unique_ptr<PlayClient>> seats = ConnectSeats(match);
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    ASSERT_TRUE(seats[seat]->Await(IsDecision(match.id, seat, 0)));
  }
  ASSERT_NO_FATAL_FAILURE(BreakLog(ref_->LogPath(match.id)));
  seats[0]->Send(
      svctest::CommitMsg(match.id, 0, 0, NewMove(svctest::SeedAction())));
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    const grpc::Status end = seats[seat]->AwaitEnd();
    EXPECT_EQ(end.error_code(), grpc::StatusCode::DATA_LOSS)
        << seat << ": " << end.error_code() << " " << end.error_message();
    EXPECT_THAT(end.error_message(),
                HasSubstr("the match is broken and stopped"));
    const std::vector<v1::PlayResponse> messages = seats[seat]->Messages();
    ASSERT_FALSE(messages.empty());
    EXPECT_TRUE(IsError(match.id, seat, 0, kDataLoss)(messages.back()))
        << messages.back().ShortDebugString();
    EXPECT_EQ(messages.back().error().message(), end.error_message());
  }
  EXPECT_EQ(Info(match.id).status(), v1::MATCH_BROKEN);

  seats[1].reset();
  seats[1] = Connect(match.tokens[1], "seat1-after-the-break");
  const grpc::Status end = seats[1]->AwaitEnd();
  EXPECT_EQ(end.error_code(), grpc::StatusCode::DATA_LOSS)
      << end.error_code() << " " << end.error_message();
  const std::vector<v1::PlayResponse> told = seats[1]->Messages();
  ASSERT_EQ(told.size(), 1u);
  EXPECT_TRUE(IsError(match.id, 1, 0, kDataLoss)(told[0]))
      << told[0].ShortDebugString();
  EXPECT_EQ(told[0].error().message(), end.error_message());
}

// A bot's stream carries every match of the bot: one match's break does
// not end it (the bot is told why, in band), and the bot's next match
// reaches the same stream; the token seats' streams of the broken match
// ended.
TEST_F(ServiceTest, ABotsStreamStaysOpenAfterOneOfItsMatchesBreaks) {
  const v1::RegisterBotResponse bot = NewBot("outlives");
  const Created match =
      NewMatch({}, v1::FORFEIT_POLICY_FORFEIT, {bot.bot_id(), "", ""});
  PlayClient stream(ref_->NewChannel(), bot.bot_token(), "bot");
  std::unique_ptr<PlayClient> one = Connect(match.tokens[1], "seat1");
  std::unique_ptr<PlayClient> two = Connect(match.tokens[2], "seat2");
  ASSERT_TRUE(stream.Await(IsDecision(match.id, 0, 0)));
  ASSERT_TRUE(one->Await(IsDecision(match.id, 1, 0)));
  ASSERT_TRUE(two->Await(IsDecision(match.id, 2, 0)));
  ASSERT_NO_FATAL_FAILURE(BreakLog(ref_->LogPath(match.id)));
  stream.Send(
      svctest::CommitMsg(match.id, 0, 0, NewMove(svctest::SeedAction())));
  EXPECT_TRUE(stream.Await(IsError(match.id, 0, 0, kDataLoss)));
  EXPECT_EQ(one->AwaitEnd().error_code(), grpc::StatusCode::DATA_LOSS);
  EXPECT_EQ(two->AwaitEnd().error_code(), grpc::StatusCode::DATA_LOSS);
  const Created next =
      NewMatch({}, v1::FORFEIT_POLICY_FORFEIT, {"", bot.bot_id(), ""});
  EXPECT_TRUE(stream.Await(IsDecision(next.id, 1, 0)));
  EXPECT_FALSE(stream.ended());
}

TEST_F(ServiceTest, ObservationOnceIsAFeatureAClientOptsInto) {
  const Created match = NewMatch();
  // Seat 0 lists the feature among others the referee does not know; seat
  // 1 lists only those; seat 2 sends no feature metadata.
  const std::string features[kSeats] = {"someday, observation-once",
                                        "observation-twice", ""};
  std::vector<std::unique_ptr<PlayClient>> clients;
  for (int seat = 0; seat < kSeats; ++seat) {
    clients.push_back(std::make_unique<PlayClient>(
        ref_->NewChannel(), match.tokens[seat], absl::StrCat("seat", seat),
        nullptr, std::nullopt, features[seat]));
  }
  FinishAndVerify(clients, match.id, 0);
  for (int seat = 0; seat < kSeats; ++seat) {
    int requests = 0;
    std::string view;  // The seat's view, as a client follows it.
    for (const v1::PlayResponse& m : clients[seat]->Messages()) {
      if (m.has_result()) view = m.result().observation().SerializeAsString();
      if (!m.has_decision() || m.decision().decision_id() == 0) continue;
      ++requests;
      const bool once = seat == 0;
      EXPECT_EQ(m.decision().observation_in_result(), once) << seat;
      EXPECT_EQ(m.decision().has_observation(), !once) << seat;
      if (!once) {
        EXPECT_EQ(m.decision().observation().SerializeAsString(), view);
      }
    }
    EXPECT_EQ(requests, 9) << seat;  // Nine rounds.
  }
}

// A bot that plays two seats of a match on a "batch" stream: its batched
// commits and reveals are taken as if sent one by one, and what they cause
// for the stream comes back batched; a stream without the feature never
// gets a batch, and a batch that holds a batch, or nothing, is refused.
TEST_F(ServiceTest, BatchIsAFeatureAClientOptsInto) {
  const v1::RegisterBotResponse bot = NewBot("batcher");
  const Created match = NewMatch({}, v1::FORFEIT_POLICY_FORFEIT,
                                 {bot.bot_id(), bot.bot_id(), ""});
  PlayClient stream(ref_->NewChannel(), bot.bot_token(), "bot", nullptr,
                    std::nullopt, "observation-once, batch");
  std::unique_ptr<PlayClient> other = Connect(match.tokens[2], "seat2");
  other->AutoPlay();
  ASSERT_TRUE(stream.Await(IsDecision(match.id, 0, 0)));
  ASSERT_TRUE(stream.Await(IsDecision(match.id, 1, 0)));

  const Move moves[2] = {NewMove(svctest::SeedAction()),
                         NewMove(svctest::SeedAction())};
  // Seats 0 and 1's messages (`message(seat)`) as one batch.
  auto batched = [](const std::function<v1::PlayRequest(uint32_t)>& message) {
    v1::PlayRequest batch;
    for (uint32_t seat : {0u, 1u}) {
      *batch.mutable_batch()->add_requests() = message(seat);
    }
    return batch;
  };
  const v1::PlayRequest commits = batched([&](uint32_t seat) {
    return svctest::CommitMsg(match.id, seat, 0, moves[seat]);
  });
  ASSERT_TRUE(stream.Send(commits));
  ASSERT_TRUE(stream.Await(IsCommitAck(match.id, 0, 0)));
  ASSERT_TRUE(stream.Await(IsCommitAck(match.id, 1, 0)));
  ASSERT_TRUE(stream.Await(IsRevealRequest(match.id, 0, 0)));
  ASSERT_TRUE(stream.Await(IsRevealRequest(match.id, 1, 0)));
  ASSERT_TRUE(stream.Send(batched([&](uint32_t seat) {
    return svctest::RevealMsg(match.id, seat, 0, moves[seat]);
  })));
  ASSERT_TRUE(stream.Await(IsRevealAck(match.id, 0, 0)));
  ASSERT_TRUE(stream.Await(IsRevealAck(match.id, 1, 0)));
  // The stream was held while each batch was handled: its two acks went
  // out together, at least.
  const std::vector<int> sizes = stream.BatchSizes();
  ASSERT_FALSE(sizes.empty());
  EXPECT_GE(*std::max_element(sizes.begin(), sizes.end()), 2);

  v1::PlayRequest nested;
  *nested.mutable_batch()->add_requests() = commits;
  ASSERT_TRUE(stream.Send(nested));
  EXPECT_TRUE(stream.Await(IsError("", 0, 0, kInvalidArgument)));
  v1::PlayRequest empty;
  empty.mutable_batch();
  ASSERT_TRUE(stream.Send(empty));
  EXPECT_TRUE(stream.AwaitCount(IsError("", 0, 0, kInvalidArgument), 2));

  stream.AutoPlay(1);
  EXPECT_TRUE(stream.Await(IsEnded(match.id, 0)));
  EXPECT_TRUE(stream.Await(IsEnded(match.id, 1)));
  EXPECT_TRUE(other->Await(IsEnded(match.id, 2)));
  EXPECT_EQ(stream.Count(IsAnyError()), 2);  // The two refused batches.
  EXPECT_TRUE(other->BatchSizes().empty());
  ExpectGenuine(match.id);
}

TEST_F(ServiceTest, BotStreamMultiplexesTwoMatches) {
  const v1::RegisterBotResponse bot = NewBot("multi");
  const Created a =
      NewMatch({}, v1::FORFEIT_POLICY_FORFEIT, {bot.bot_id(), "", ""});
  const Created b = NewMatch({}, v1::FORFEIT_POLICY_FORFEIT,
                             {"", bot.bot_id(), bot.bot_id()});
  PlayClient stream(ref_->NewChannel(), bot.bot_token(), "bot");
  // On connecting, the one stream gets what every seat of the bot owes.
  ASSERT_TRUE(stream.Await(IsDecision(a.id, 0, 0)));
  ASSERT_TRUE(stream.Await(IsDecision(b.id, 1, 0)));
  ASSERT_TRUE(stream.Await(IsDecision(b.id, 2, 0)));
  // A match created while the bot is connected reaches the same stream.
  const Created c =
      NewMatch({}, v1::FORFEIT_POLICY_FORFEIT, {"", "", bot.bot_id()});
  ASSERT_TRUE(stream.Await(IsDecision(c.id, 2, 0)));

  // Interleave by hand: commit in a, b and c before any reveal.
  std::map<std::pair<std::string, uint32_t>, Move> moves;
  for (const auto& [id, seat] : std::vector<std::pair<std::string, uint32_t>>{
           {a.id, 0}, {b.id, 1}, {b.id, 2}, {c.id, 2}}) {
    moves[{id, seat}] = NewMove(svctest::SeedAction());
    stream.Send(svctest::CommitMsg(id, seat, 0, moves[{id, seat}]));
    ASSERT_TRUE(stream.Await(IsCommitAck(id, seat, 0)));
  }
  std::vector<std::unique_ptr<PlayClient>> others;
  others.push_back(Connect(a.tokens[1]));
  others.push_back(Connect(a.tokens[2]));
  others.push_back(Connect(b.tokens[0]));
  others.push_back(Connect(c.tokens[0]));
  others.push_back(Connect(c.tokens[1]));
  for (auto& o : others) o->AutoPlay();
  for (const auto& [key, move] : moves) {
    ASSERT_TRUE(stream.Await(IsRevealRequest(key.first, key.second, 0)));
    stream.Send(svctest::RevealMsg(key.first, key.second, 0, move));
    ASSERT_TRUE(stream.Await(IsRevealAck(key.first, key.second, 0)));
  }
  stream.AutoPlay(1);
  for (const auto& [id, seat] : std::vector<std::pair<std::string, uint32_t>>{
           {a.id, 0}, {b.id, 1}, {b.id, 2}, {c.id, 2}}) {
    EXPECT_TRUE(stream.Await(IsEnded(id, seat))) << id << " seat " << seat;
  }
  EXPECT_EQ(stream.Count(IsAnyError()), 0);
  for (const Created* m : {&a, &b, &c}) ExpectGenuine(m->id);
}

TEST_F(ServiceTest, ReconnectAfterCommitResumes) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  PlayDecision(clients, match.id, 0);
  const uint64_t d = 1;
  const Move mine = NewMove(Choice(*clients[0], match.id, 0, d));
  clients[0]->Send(svctest::CommitMsg(match.id, 0, d, mine));
  ASSERT_TRUE(clients[0]->Await(IsCommitAck(match.id, 0, d)));
  clients[0].reset();  // Disconnects.
  for (absl::Time end = absl::Now() + kWait;
       Info(match.id).seats(0).connected() && absl::Now() < end;) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_FALSE(Info(match.id).seats(0).connected());

  // Reconnected while the others still owe commits: the decision again,
  // marked committed.
  clients[0] = Connect(match.tokens[0], "seat0-again");
  std::optional<v1::PlayResponse> again =
      clients[0]->Await(IsDecision(match.id, 0, d));
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->decision().committed());
  EXPECT_EQ(again->decision().legal_actions_size(), 9);
  EXPECT_TRUE(Info(match.id).seats(0).connected());
  clients[0].reset();

  // The others commit while seat 0 is away; it comes back to a reveal
  // request and finishes the match.
  Move others[kSeats];
  for (uint32_t seat = 1; seat < kSeats; ++seat) {
    others[seat] = NewMove(Choice(*clients[seat], match.id, seat, d));
    clients[seat]->Send(svctest::CommitMsg(match.id, seat, d, others[seat]));
    ASSERT_TRUE(clients[seat]->Await(IsCommitAck(match.id, seat, d)));
  }
  for (uint32_t seat = 1; seat < kSeats; ++seat) {
    ASSERT_TRUE(clients[seat]->Await(IsRevealRequest(match.id, seat, d)));
    clients[seat]->Send(svctest::RevealMsg(match.id, seat, d, others[seat]));
    ASSERT_TRUE(clients[seat]->Await(IsRevealAck(match.id, seat, d)));
  }
  clients[0] = Connect(match.tokens[0], "seat0-third");
  ASSERT_TRUE(clients[0]->Await(IsRevealRequest(match.id, 0, d)));
  EXPECT_EQ(clients[0]->Count(IsDecision(match.id, 0, d)), 0);
  clients[0]->Send(svctest::RevealMsg(match.id, 0, d, mine));
  ASSERT_TRUE(clients[0]->Await(IsRevealAck(match.id, 0, d)));
  FinishAndVerify(clients, match.id, d + 1);
  EXPECT_TRUE(OfKind(ref_->Records(match.id), v1::LogRecord::kFault).empty());
}

// Once a match has ended, the referee keeps only a compact record of it
// (Lobby::FindMatch): a seat that connects afterwards is still told the
// outcome, after which its stream ends OK, as every seat token's stream
// does after its MatchEnded; GetMatch still reports the end.
TEST_F(ServiceTest, ASeatThatReconnectsAfterTheEndIsToldTheOutcome) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  FinishAndVerify(clients, match.id, 0);
  const v1::Outcome outcome =
      clients[1]->Await(IsEnded(match.id, 1))->match_ended().outcome();
  EXPECT_TRUE(clients[1]->AwaitEnd().ok());
  clients[1].reset();

  clients[1] = Connect(match.tokens[1], "seat1-after-the-end");
  const grpc::Status end = clients[1]->AwaitEnd();
  EXPECT_TRUE(end.ok()) << end.error_code() << " " << end.error_message();
  const std::vector<v1::PlayResponse> told = clients[1]->Messages();
  ASSERT_EQ(told.size(), 1u);
  ASSERT_TRUE(IsEnded(match.id, 1)(told[0])) << told[0].ShortDebugString();
  EXPECT_TRUE(
      MessageDifferencer::Equals(told[0].match_ended().outcome(), outcome))
      << told[0].match_ended().outcome().DebugString();
  const v1::MatchInfo info = Info(match.id);
  EXPECT_EQ(info.status(), v1::MATCH_FINISHED);
  EXPECT_TRUE(MessageDifferencer::Equals(info.outcome(), outcome))
      << info.outcome().DebugString();
  ExpectGenuine(match.id);
}

TEST_F(ServiceTest, NewerStreamForTheSameTokenReplacesTheOlder) {
  const Created match = NewMatch();
  PlayClient first(ref_->NewChannel(), match.tokens[0], "first");
  ASSERT_TRUE(first.Await(IsDecision(match.id, 0, 0)));
  PlayClient second(ref_->NewChannel(), match.tokens[0], "second");
  ASSERT_TRUE(second.Await(IsDecision(match.id, 0, 0)));
  EXPECT_EQ(first.AwaitEnd().error_code(), grpc::StatusCode::ABORTED);
}

// --- Item 5: clocks and forfeits ------------------------------------------

// The deadlines are long enough for seats 0 and 1 to connect and commit
// the seed on a loaded machine: at 300 ms, the match (whose seed decision
// opens when it is created) once ended before seat 2 had connected, which
// then heard of the end and never of its fault (1 of 26 runs beside the
// suite).
TEST_F(ServiceTest, CommitTimeoutForfeitsWithItsReasonInTheLog) {
  constexpr uint32_t kTimeoutMs = 2000;
  EventLog events;
  const Created match = NewMatch(Clocks(kTimeoutMs, kTimeoutMs));
  WatchClient watch(ref_->NewChannel(), match.id, "watch", &events);
  auto clients = ConnectSeats(match);
  clients[0]->AutoPlay();
  clients[1]->AutoPlay();  // Seat 2 never commits.
  std::optional<v1::PlayResponse> fault =
      clients[2]->Await(IsError(match.id, 2, 0, kFailedPrecondition));
  ASSERT_TRUE(fault);
  EXPECT_TRUE(fault->error().faulted());
  EXPECT_THAT(fault->error().message(), HasSubstr("FAULT_COMMIT_TIMEOUT"));
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    std::optional<v1::PlayResponse> ended =
        clients[seat]->Await(IsEnded(match.id, seat));
    ASSERT_TRUE(ended);
    const v1::Outcome& o = ended->match_ended().outcome();
    EXPECT_EQ(o.termination(), v1::TERMINATION_FORFEIT);
    EXPECT_EQ(o.seats(2).forfeited(), true);
    EXPECT_EQ(o.seats(2).rank(), 3u);
  }
  const std::vector<v1::LogRecord> records = ref_->Records(match.id);
  const auto faults = OfKind(records, v1::LogRecord::kFault);
  ASSERT_EQ(faults.size(), 1u);
  const v1::Fault& f = faults[0].fault();
  EXPECT_EQ(f.seat(), 2u);
  EXPECT_EQ(f.decision_id(), 0u);
  EXPECT_EQ(f.reason(), v1::FAULT_COMMIT_TIMEOUT);
  EXPECT_EQ(f.consequence(), v1::FAULT_FORFEIT);
  const auto opened = OfKind(records, v1::LogRecord::kDecisionOpened);
  // Measured on the server: not before the deadline.
  EXPECT_GE(f.at_unix_ms(),
            opened[0].decision_opened().opened_unix_ms() + kTimeoutMs);
  EXPECT_EQ(
      f.at_unix_ms() >= opened[0].decision_opened().commit_deadline_unix_ms(),
      true);
  ExpectGenuine(match.id);
  EXPECT_TRUE(watch.AwaitEvent([](const v1::WatchEvent& e) {
    return e.has_fault() && e.fault().reason() == v1::FAULT_COMMIT_TIMEOUT;
  }));
  EXPECT_TRUE(watch.AwaitEnd().ok());
}

// Every reveal of the match (some 30) has kRevealMs: at 300 ms, one stall
// of a seat that long on a loaded machine (or under ASan) was a second
// FAULT_REVEAL_TIMEOUT. 2 s leaves each honest reveal a margin of about
// 2 s; the silent seat's fault is still checked at or after its deadline.
TEST_F(ServiceTest, RevealTimeoutUnderDefaultPolicyPlaysTheDefaultAndGoesOn) {
  constexpr uint32_t kRevealMs = 2000;
  const Created match =
      NewMatch(Clocks(5000, kRevealMs), v1::FORFEIT_POLICY_DEFAULT_ACTION);
  auto clients = ConnectSeats(match);
  clients[0]->AutoPlay();
  clients[2]->AutoPlay();
  PlayClient& seat1 = *clients[1];
  // Seat 1 plays the seed, then commits decision 1 and never reveals it.
  const Move seed = NewMove(svctest::SeedAction());
  seat1.Send(svctest::CommitMsg(match.id, 1, 0, seed));
  ASSERT_TRUE(seat1.Await(IsRevealRequest(match.id, 1, 0)));
  seat1.Send(svctest::RevealMsg(match.id, 1, 0, seed));
  const Move silent = NewMove(Choice(seat1, match.id, 1, 1));
  seat1.Send(svctest::CommitMsg(match.id, 1, 1, silent));
  ASSERT_TRUE(seat1.Await(IsCommitAck(match.id, 1, 1)));
  std::optional<v1::PlayResponse> fault =
      seat1.Await(IsError(match.id, 1, 1, kFailedPrecondition));
  ASSERT_TRUE(fault);
  EXPECT_TRUE(fault->error().faulted());
  EXPECT_THAT(fault->error().message(), HasSubstr("FAULT_REVEAL_TIMEOUT"));
  // The match goes on: decision 2 is asked of seat 1 too.
  ASSERT_TRUE(seat1.Await(IsDecision(match.id, 1, 2)));
  seat1.AutoPlay(2);
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    ASSERT_TRUE(clients[seat]->Await(IsEnded(match.id, seat)));
  }
  const std::vector<v1::LogRecord> records = ref_->Records(match.id);
  const auto faults = OfKind(records, v1::LogRecord::kFault);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].fault().reason(), v1::FAULT_REVEAL_TIMEOUT);
  EXPECT_EQ(faults[0].fault().consequence(), v1::FAULT_DEFAULT_ACTION);
  EXPECT_EQ(faults[0].fault().decision_id(), 1u);
  // Measured on the server: not before the deadline seat 1 was told.
  const std::optional<v1::PlayResponse> reveal =
      seat1.Await(IsRevealRequest(match.id, 1, 1));
  ASSERT_TRUE(reveal);
  const int64_t deadline = reveal->reveal_request().reveal_deadline_unix_ms();
  EXPECT_EQ(deadline, LastCommitMs(records, 1) + kRevealMs);
  EXPECT_GE(faults[0].fault().at_unix_ms(), deadline);
  bool found = false;
  for (const v1::LogRecord& r : OfKind(records, v1::LogRecord::kApplied)) {
    if (!r.applied().has_decision_id() || r.applied().decision_id() != 1) {
      continue;
    }
    found = true;
    EXPECT_EQ(r.applied().moves(1).source(), v1::MOVE_DEFAULT);
    EXPECT_EQ(r.applied().moves(0).source(), v1::MOVE_REVEALED);
  }
  EXPECT_TRUE(found);
  const v1::Outcome outcome =
      clients[0]->Await(IsEnded(match.id, 0))->match_ended().outcome();
  EXPECT_NE(outcome.termination(), v1::TERMINATION_FORFEIT);
  ExpectGenuine(match.id);
}

// The seed decision opens when the match is created, before the seats have
// connected: on its own clock (kSeedMs, in place of the commit timeout, as
// the referee charges it), the time to connect overruns nothing; at 300 ms,
// a slow connection of seat 2 (ASan, a loaded machine) could empty its bank
// before decision 1's deliberate overrun. That overrun (~200 ms) now has a
// bank of 2.1 s, about 1.9 s to spare for the round trips around it.
TEST_F(ServiceTest, TimeBankAbsorbsOverrunsAndEarnsIncrements) {
  constexpr int64_t kSeedMs = 5000, kCommitMs = 300, kBankMs = 2000,
                    kIncrementMs = 100;
  v1::ClockSettings clocks = Clocks(kCommitMs, 5000, kBankMs, kIncrementMs);
  clocks.set_seed_timeout_ms(kSeedMs);
  const Created match = NewMatch(clocks);
  auto clients = ConnectSeats(match);
  clients[0]->AutoPlay();
  clients[1]->AutoPlay();
  PlayClient& slow = *clients[2];
  for (uint64_t d = 0; d < 2; ++d) {
    const Move m = NewMove(Choice(slow, match.id, 2, d));
    // Decision 1: overrun the commit timeout by ~200 ms, within the bank.
    if (d == 1) absl::SleepFor(absl::Milliseconds(kCommitMs + 200));
    slow.Send(svctest::CommitMsg(match.id, 2, d, m));
    ASSERT_TRUE(slow.Await(IsCommitAck(match.id, 2, d)));
    ASSERT_TRUE(slow.Await(IsRevealRequest(match.id, 2, d)));
    slow.Send(svctest::RevealMsg(match.id, 2, d, m));
    ASSERT_TRUE(slow.Await(IsRevealAck(match.id, 2, d)));
  }
  std::optional<v1::PlayResponse> d2 = slow.Await(IsDecision(match.id, 2, 2));
  std::optional<v1::PlayResponse> d2_fast =
      clients[0]->Await(IsDecision(match.id, 0, 2));
  ASSERT_TRUE(d2 && d2_fast);

  // Recompute each seat's bank from the times in the log.
  std::vector<v1::LogRecord> records = ref_->Records(match.id);
  std::map<uint64_t, int64_t> opened;
  int64_t bank[kSeats] = {kBankMs, kBankMs, kBankMs};
  for (const v1::LogRecord& r : records) {
    if (r.has_decision_opened()) {
      opened[r.decision_opened().decision_id()] =
          r.decision_opened().opened_unix_ms();
    } else if (r.has_commit() && r.commit().decision_id() < 2) {
      const v1::Commit& c = r.commit();
      const int64_t overrun = c.received_unix_ms() - opened[c.decision_id()] -
                              (c.decision_id() == 0 ? kSeedMs : kCommitMs);
      if (overrun > 0)
        bank[c.seat()] = std::max<int64_t>(0, bank[c.seat()] - overrun);
      bank[c.seat()] += kIncrementMs;
    }
  }
  EXPECT_TRUE(OfKind(records, v1::LogRecord::kFault).empty())
      << "an overrun within the bank is no fault";
  EXPECT_LT(bank[2], kBankMs + 2 * kIncrementMs - 150);
  const int64_t base = opened[2] + kCommitMs;
  EXPECT_NEAR(d2->decision().commit_deadline_unix_ms(), base + bank[2], 5);
  EXPECT_NEAR(d2_fast->decision().commit_deadline_unix_ms(), base + bank[0], 5);

  // Decision 2: seat 2 sends nothing; it forfeits at its own deadline, which
  // its remaining bank extends past the plain commit timeout.
  std::optional<v1::PlayResponse> fault =
      slow.Await(IsError(match.id, 2, 2, kFailedPrecondition));
  ASSERT_TRUE(fault);
  EXPECT_TRUE(fault->error().faulted());
  records = ref_->Records(match.id);
  const auto faults = OfKind(records, v1::LogRecord::kFault);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].fault().reason(), v1::FAULT_COMMIT_TIMEOUT);
  EXPECT_EQ(faults[0].fault().seat(), 2u);
  EXPECT_GE(faults[0].fault().at_unix_ms(),
            d2->decision().commit_deadline_unix_ms());
  // Its bank extends the deadline by 300 ms at least: seat 2 had 2.1 s and
  // lost only decision 1's overrun.
  EXPECT_GE(faults[0].fault().at_unix_ms(), base + 300);
  ASSERT_TRUE(clients[0]->Await(IsEnded(match.id, 0)));
  ExpectGenuine(match.id);
}

// --- Item 6: watch secrecy ---------------------------------------------------

// The round of RPP that an observation has seen played (-1: none).
int RoundsIn(const v1::Observation& o) {
  return o.has_rock_paper_pyramid()
             ? static_cast<int>(o.rock_paper_pyramid().rounds_played())
             : -1;
}

TEST_F(ServiceTest, NoMoveReachesAnyoneBeforeTheLastCommitIsAcknowledged) {
  EventLog events;
  const Created match = NewMatch();
  WatchClient watch(ref_->NewChannel(), match.id, "watch", &events);
  auto clients = ConnectSeats(match, &events);
  std::unique_ptr<WatchClient> late_watch;
  std::map<uint64_t, uint64_t> last_ack_seq;  // Decision -> EventLog seq.
  for (uint64_t d = 0; d < 10; ++d) {
    std::vector<Move> moves;
    for (uint32_t seat = 0; seat < kSeats; ++seat) {
      moves.push_back(NewMove(Choice(*clients[seat], match.id, seat, d)));
    }
    // The last committer rotates, so every seat's move is the one withheld.
    const uint32_t last = d % kSeats;
    for (uint32_t seat = 0; seat < kSeats; ++seat) {
      if (seat == last) continue;
      clients[seat]->Send(svctest::CommitMsg(match.id, seat, d, moves[seat]));
      ASSERT_TRUE(clients[seat]->Await(IsCommitAck(match.id, seat, d)));
      // An eager reveal is refused and must not leak either.
      clients[seat]->Send(svctest::RevealMsg(match.id, seat, d, moves[seat]));
      ASSERT_TRUE(clients[seat]->Await(
          IsError(match.id, seat, d, kFailedPrecondition)));
    }
    absl::SleepFor(absl::Milliseconds(20));  // Time for any leak to arrive.
    clients[last]->Send(svctest::CommitMsg(match.id, last, d, moves[last]));
    ASSERT_TRUE(clients[last]->Await(IsCommitAck(match.id, last, d)));
    last_ack_seq[d] = clients[last]->SeqOf(IsCommitAck(match.id, last, d));
    ASSERT_GT(last_ack_seq[d], 0u);
    for (uint32_t seat = 0; seat < kSeats; ++seat) {
      ASSERT_TRUE(clients[seat]->Await(IsRevealRequest(match.id, seat, d)));
      clients[seat]->Send(svctest::RevealMsg(match.id, seat, d, moves[seat]));
    }
    for (uint32_t seat = 0; seat < kSeats; ++seat) {
      ASSERT_TRUE(clients[seat]->Await(d == 9 ? IsEnded(match.id, seat)
                                              : IsResult(match.id, seat, d)));
    }
    if (d == 4) {
      late_watch = std::make_unique<WatchClient>(ref_->NewChannel(), match.id,
                                                 "late-watch", &events);
    }
  }
  ASSERT_TRUE(watch.AwaitEnd().ok());
  ASSERT_TRUE(late_watch->AwaitEnd().ok());

  std::vector<std::string> secrets;
  for (auto& c : clients) {
    for (const std::string& s : c->Secrets()) secrets.push_back(s);
  }
  ASSERT_GE(secrets.size(), 30u);
  int views = 0;
  for (const EventLog::Event& e : events.Snapshot()) {
    // Salts and seed contributions never reach anyone.
    for (const std::string& secret : secrets) {
      ASSERT_FALSE(absl::StrContains(e.raw, secret))
          << e.who << " received a secret at seq " << e.seq;
    }
    // Nothing derived from decision d reaches anyone before the last
    // commitment of d was acknowledged. Decision d >= 1 is round d, whose
    // moves show in any observation with rounds_played >= d.
    for (const auto& [d, ack_seq] : last_ack_seq) {
      if (e.seq >= ack_seq) continue;
      const std::string where =
          absl::StrCat(e.who, " seq ", e.seq, " before the last ack (", ack_seq,
                       ") of decision ", d);
      if (e.play) {
        const v1::PlayResponse& m = *e.play;
        EXPECT_FALSE(m.has_result() && m.result().decision_id() == d) << where;
        EXPECT_FALSE(m.has_match_ended()) << where;
        if (d >= 1) {
          if (m.has_result()) {
            EXPECT_LT(RoundsIn(m.result().observation()), static_cast<int>(d))
                << where;
          }
          if (m.has_decision()) {
            EXPECT_LT(RoundsIn(m.decision().observation()), static_cast<int>(d))
                << where;
          }
        }
      }
      if (e.watch) {
        const v1::WatchEvent& w = *e.watch;
        EXPECT_FALSE(w.has_outcome()) << where;
        if (w.has_delta()) {
          EXPECT_NE(w.delta().decision_id(), d) << where;
          if (d >= 1) {
            EXPECT_LT(RoundsIn(w.delta().changed()), static_cast<int>(d))
                << where;
          }
        }
        if (w.has_snapshot() && d >= 1) {
          EXPECT_LT(RoundsIn(w.snapshot().view().view()), static_cast<int>(d))
              << where;
        }
        if (w.has_match() && d >= 1) {
          EXPECT_LT(w.match().decision_id(), d + 1) << where;
        }
      }
    }
    if (e.watch) {
      const v1::WatchEvent& w = *e.watch;
      if (w.has_delta()) {
        ++views;
        EXPECT_TRUE(w.delta().changed().public_view());
      }
      if (w.has_commit()) {
        // Who committed to what decision, and nothing else.
        v1::PublicCommit bare;
        bare.set_decision_id(w.commit().decision_id());
        bare.set_seat(w.commit().seat());
        EXPECT_EQ(w.commit().SerializeAsString(), bare.SerializeAsString());
        EXPECT_TRUE(
            w.commit().GetReflection()->GetUnknownFields(w.commit()).empty());
      }
    }
  }
  EXPECT_GE(views, 10);
  // The watcher saw every decision and commit, the views, and the end.
  const std::vector<v1::WatchEvent> seen = watch.Events();
  ASSERT_FALSE(seen.empty());
  EXPECT_TRUE(seen.front().has_match());
  EXPECT_TRUE(seen.back().has_outcome());
  int commits = 0;
  for (const v1::WatchEvent& e : seen) commits += e.has_commit();
  EXPECT_EQ(commits, 30);
  // The late watcher's snapshot is exactly what the first watcher knew at
  // some moment, and both follow the match to the same end.
  const std::vector<v1::WatchEvent> late = late_watch->Events();
  ASSERT_GE(late.size(), 2u);
  ASSERT_TRUE(late[1].has_snapshot());
  EXPECT_GE(late[1].snapshot().view().decision_id(), 4u);
  WatchedMatch early_state;
  bool matched = false;
  for (const v1::WatchEvent& e : seen) {
    ASSERT_TRUE(early_state.Apply(e).ok());
    matched = matched || early_state.state().SerializeAsString() ==
                             late[1].snapshot().SerializeAsString();
  }
  EXPECT_TRUE(matched) << late[1].snapshot().ShortDebugString();
  WatchedMatch late_state;
  for (const v1::WatchEvent& e : late) ASSERT_TRUE(late_state.Apply(e).ok());
  EXPECT_TRUE(late_state.ended());
  EXPECT_EQ(late_state.view().SerializeAsString(),
            early_state.view().SerializeAsString());
  EXPECT_EQ(RoundsIn(early_state.view()), 9);
  ExpectGenuine(match.id);
}

// --- Item 7: health and reflection -----------------------------------------

TEST_F(ServiceTest, HealthCheckAnswersForTheServerAndEachServiceItServes) {
  for (const char* service :
       {"", "pyramid.referee.v1.Referee", "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection"}) {
    EXPECT_EQ(svctest::HealthStatus(ref_->channel(), service), 1)  // SERVING.
        << service;
  }
  EXPECT_EQ(svctest::HealthStatus(ref_->channel(), "no.such.Service"), -1);
  ref_->health().SetServing(false);  // As the referee does when it stops.
  EXPECT_EQ(svctest::HealthStatus(ref_->channel()), 2);  // NOT_SERVING.
  EXPECT_EQ(
      svctest::HealthStatus(ref_->channel(), "pyramid.referee.v1.Referee"), 2);
}

// grpc.health.v1.Health/Watch of `service`: the statuses it streams.
class HealthWatch {
 public:
  HealthWatch(const std::shared_ptr<grpc::Channel>& channel,
              const std::string& service) {
    const grpc::internal::RpcMethod method(
        "/grpc.health.v1.Health/Watch",
        grpc::internal::RpcMethod::SERVER_STREAMING);
    const std::string request =
        service.empty()
            ? ""
            : "\x0a" + std::string(1, static_cast<char>(service.size())) +
                  service;
    reader_.reset(grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(
        channel.get(), method, &context_, svctest::ToBuffer(request)));
  }
  ~HealthWatch() { context_.TryCancel(); }

  // The next status sent (0 when its field is absent), or -1 at the end.
  int Next() {
    grpc::ByteBuffer response;
    if (!reader_->Read(&response)) return -1;
    google::protobuf::UnknownFieldSet fields;
    if (!fields.ParseFromString(svctest::FromBuffer(response))) return -1;
    return fields.field_count() == 1
               ? static_cast<int>(fields.field(0).varint())
               : 0;
  }

 private:
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> reader_;
};

TEST_F(ServiceTest, HealthWatchStreamsEveryChange) {
  HealthWatch server(ref_->channel(), "");
  HealthWatch unknown(ref_->channel(), "no.such.Service");
  EXPECT_EQ(server.Next(), 1);   // SERVING.
  EXPECT_EQ(unknown.Next(), 3);  // SERVICE_UNKNOWN, not an error.
  ref_->health().SetServing(false);
  EXPECT_EQ(server.Next(), 2);  // NOT_SERVING.
  ref_->health().SetServing(true);
  EXPECT_EQ(server.Next(), 1);
}

// The methods of the service `full_name` as server reflection describes it
// (file_containing_symbol), or nothing when it is not described.
std::set<std::string> ReflectedMethods(
    const std::shared_ptr<grpc::Channel>& channel,
    const std::string& full_name) {
  const grpc::internal::RpcMethod method(
      "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
      grpc::internal::RpcMethod::BIDI_STREAMING);
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>>
      stream(grpc::internal::ClientReaderWriterFactory<
             grpc::ByteBuffer, grpc::ByteBuffer>::Create(channel.get(), method,
                                                         &context));
  // ServerReflectionRequest{file_containing_symbol (4): the service}.
  std::set<std::string> methods;
  if (!stream->Write(svctest::ToBuffer(std::string("\x22") +
                                       static_cast<char>(full_name.size()) +
                                       full_name))) {
    return methods;
  }
  grpc::ByteBuffer response;
  if (stream->Read(&response)) {
    // file_descriptor_response (4) -> file_descriptor_proto (1), repeated.
    for (const std::string& files :
         svctest::Fields(svctest::FromBuffer(response), 4)) {
      for (const std::string& file : svctest::Fields(files, 1)) {
        google::protobuf::FileDescriptorProto proto;
        if (!proto.ParseFromString(file)) continue;
        for (const auto& service : proto.service()) {
          if (proto.package() + "." + service.name() != full_name) continue;
          for (const auto& m : service.method()) methods.insert(m.name());
        }
      }
    }
  }
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
  return methods;
}

TEST_F(ServiceTest, ReflectionListsAndDescribesEveryService) {
  const std::set<std::string> services =
      svctest::ReflectedServices(ref_->channel());
  EXPECT_EQ(services,
            std::set<std::string>(
                {"pyramid.referee.v1.Referee", "grpc.health.v1.Health",
                 "grpc.reflection.v1alpha.ServerReflection"}));
  const std::set<std::string> referee =
      ReflectedMethods(ref_->channel(), "pyramid.referee.v1.Referee");
  EXPECT_TRUE(referee.count("Play") && referee.count("Watch") &&
              referee.count("GetLog") && referee.count("CreateMatch"));
  EXPECT_EQ(ReflectedMethods(ref_->channel(), "grpc.health.v1.Health"),
            std::set<std::string>({"Check", "Watch"}));
  EXPECT_EQ(ReflectedMethods(ref_->channel(),
                             "grpc.reflection.v1alpha.ServerReflection"),
            std::set<std::string>({"ServerReflectionInfo"}));
}

// --- Item 8: bad input, one test each ---------------------------------------

TEST_F(ServiceTest, BadInputUnparseableBytes) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  ASSERT_TRUE(clients[0]->Await(IsDecision(match.id, 0, 0)));
  const size_t records = ref_->Records(match.id).size();
  // Field 31 with wire type 7, and a truncated field: no protobuf parser
  // accepts them. Each is refused in band; the stream stays open.
  clients[0]->SendRaw(std::string("\xff\xff\xff\xff", 4));
  clients[0]->SendRaw(std::string("\x0a\x7f\x01", 3));
  ASSERT_TRUE(clients[0]->AwaitCount(IsError("", 0, 0, kInvalidArgument), 2));
  std::optional<v1::PlayResponse> e =
      clients[0]->Await(IsError("", 0, 0, kInvalidArgument));
  EXPECT_THAT(e->error().message(), HasSubstr("malformed"));
  EXPECT_FALSE(e->error().faulted());
  EXPECT_FALSE(clients[0]->ended());
  EXPECT_EQ(ref_->Records(match.id).size(), records);
  // The match goes on, on the same stream.
  FinishAndVerify(clients, match.id, 0);
  EXPECT_TRUE(OfKind(ref_->Records(match.id), v1::LogRecord::kFault).empty());
}

TEST_F(ServiceTest, BadInputClockSettingsAreInvalidArgumentNamingTheField) {
  // The whole table is clock_settings_test's; here, that CreateMatch refuses
  // through it, before any match or log exists.
  const std::pair<v1::ClockSettings, const char*> cases[] = {
      {Clocks(0, 1000, 5000), "clocks.time_bank_ms"},
      {Clocks(0xffffffffu, 1000), "clocks.commit_timeout_ms"},
      {Clocks(1000, 10), "clocks.reveal_timeout_ms"},
  };
  for (const auto& [clocks, field] : cases) {
    v1::CreateMatchRequest request;
    request.mutable_game()->set_game(kGame);
    for (int i = 0; i < kSeats; ++i) request.add_seats();
    *request.mutable_clocks() = clocks;
    grpc::ClientContext context;
    svctest::Authorize(context, ref_->admin_token());
    v1::CreateMatchResponse response;
    const grpc::Status status =
        ref_->stub().CreateMatch(&context, request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << field;
    EXPECT_THAT(status.error_message(), HasSubstr(field));
  }
  EXPECT_TRUE(ref_->lobby().ListMatches({})->matches().empty());
}

TEST_F(ServiceTest, BadInputUnparseableRequestsAreInvalidArgument) {
  // Field 31 with wire type 7: no protobuf parser accepts it.
  const std::string garbage("\xff\xff\xff\xff", 4);
  for (const char* method :
       {"CreateMatch", "RegisterBot", "GetMatch", "ListMatches"}) {
    const grpc::Status status = svctest::RawRefereeCall(
        ref_->channel(), method, garbage, ref_->admin_token());
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << method;
    EXPECT_THAT(status.error_message(), HasSubstr("malformed request"))
        << method;
  }
  for (const char* method : {"Watch", "GetLog"}) {
    int events = 0;
    const grpc::Status status = svctest::RawRefereeStream(
        ref_->channel(), method, garbage, "", &events);
    EXPECT_EQ(events, 0) << method;
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << method;
    EXPECT_THAT(
        status.error_message(),
        HasSubstr(absl::StrCat("not a pyramid.referee.v1.", method, "Request")))
        << method;
  }
  // The referee serves on.
  EXPECT_EQ(svctest::HealthStatus(ref_->channel()), 1);
  NewMatch();
}

// --max_watchers and --max_watchers_per_match: one watcher more than either
// limit is refused RESOURCE_EXHAUSTED naming the flag; a watcher that leaves
// makes room again.
TEST_F(ServiceTest, WatchersBeyondTheLimitsAreRefused) {
  TestRefereeOptions config = ServiceOptions();
  config.limits.max_watchers = 3;
  config.limits.max_watchers_per_match = 2;
  ref_ = std::make_unique<ServiceReferee>(config);
  const Created a = NewMatch();
  const Created b = NewMatch();
  auto watch = [&](const std::string& id) {
    return std::make_unique<WatchClient>(ref_->NewChannel(), id);
  };
  auto has_snapshot = [](const v1::WatchEvent& e) { return e.has_snapshot(); };
  auto a1 = watch(a.id);
  auto a2 = watch(a.id);
  ASSERT_TRUE(a1->AwaitEvent(has_snapshot));
  ASSERT_TRUE(a2->AwaitEvent(has_snapshot));
  auto a3 = watch(a.id);
  grpc::Status refused = a3->AwaitEnd();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), HasSubstr("--max_watchers_per_match"));
  auto b1 = watch(b.id);
  ASSERT_TRUE(b1->AwaitEvent(has_snapshot));
  auto b2 = watch(b.id);
  refused = b2->AwaitEnd();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), HasSubstr("--max_watchers)"));
  // One leaves (its call ends): room for one more.
  a1.reset();
  bool admitted = false;
  for (int i = 0; i < 50 && !admitted; ++i) {
    auto b3 = watch(b.id);
    admitted = b3->AwaitEvent(has_snapshot, absl::Seconds(1));
    if (!admitted) absl::SleepFor(absl::Milliseconds(20));
    if (admitted) b2 = std::move(b3);
  }
  EXPECT_TRUE(admitted);
}

// A refused watcher holds no place once its caller hears the refusal: a
// watcher asked for right after another's refusal is admitted whenever the
// limits leave room (the refused call's own end, which the server sees
// later, must not be what makes that room). Each round is a referee whose
// --max_watchers is full but for the refused call's place.
TEST_F(ServiceTest, ARefusedWatcherHoldsNoPlaceOnceRefused) {
  TestRefereeOptions config = ServiceOptions();
  config.limits.max_watchers = 2;
  config.limits.max_watchers_per_match = 1;
  auto has_snapshot = [](const v1::WatchEvent& e) { return e.has_snapshot(); };
  for (int round = 0; round < 20; ++round) {
    ref_ = std::make_unique<ServiceReferee>(config);
    const Created full = NewMatch();
    const Created other = NewMatch();
    WatchClient first(ref_->NewChannel(), full.id);
    ASSERT_TRUE(first.AwaitEvent(has_snapshot));
    const grpc::Status refused =
        WatchClient(ref_->NewChannel(), full.id).AwaitEnd();
    ASSERT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    ASSERT_THAT(refused.error_message(), HasSubstr("--max_watchers_per_match"));
    WatchClient second(ref_->NewChannel(), other.id);
    EXPECT_TRUE(second.AwaitEvent(has_snapshot))
        << "round " << round << ": " << second.AwaitEnd().error_message();
  }
}

// A limit of 0 is "no spectators" (docs/protocol.md), said as such rather
// than as "already serves 0 watchers, as many as it takes".
TEST_F(ServiceTest, AWatcherLimitOfZeroSaysNoWatchersAreTaken) {
  for (const bool per_match : {false, true}) {
    TestRefereeOptions config = ServiceOptions();
    (per_match ? config.limits.max_watchers_per_match
               : config.limits.max_watchers) = 0;
    ref_ = std::make_unique<ServiceReferee>(config);
    const Created match = NewMatch();
    WatchClient watcher(ref_->NewChannel(), match.id);
    const grpc::Status refused = watcher.AwaitEnd();
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_EQ(refused.error_message(),
              per_match ? "the referee takes no watchers of a match "
                          "(--max_watchers_per_match=0)"
                        : "this referee takes no watchers (--max_watchers=0)");
  }
}

// --public_watch=false: Watch, GetMatch, ListMatches and GetLog (of a
// finished match too, whose log shows every hand) need a token this
// referee issued (any: admin, seat or bot); by default they need none.
TEST_F(ServiceTest, PrivateWatchNeedsAToken) {
  TestRefereeOptions config = ServiceOptions();
  config.limits.public_watch = false;
  ref_ = std::make_unique<ServiceReferee>(config);
  const Created match = NewMatch();
  auto get = [&](const std::string& token) {
    grpc::ClientContext context;
    svctest::Authorize(context, token);
    v1::GetMatchRequest request;
    request.set_match_id(match.id);
    v1::MatchInfo info;
    return ref_->stub().GetMatch(&context, request, &info).error_code();
  };
  EXPECT_EQ(get(""), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(get("not-a-token"), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(get(ref_->admin_token()), grpc::StatusCode::OK);
  EXPECT_EQ(get(match.tokens[1]), grpc::StatusCode::OK);
  {
    grpc::ClientContext context;
    v1::ListMatchesResponse list;
    EXPECT_EQ(ref_->stub().ListMatches(&context, {}, &list).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  }
  {
    grpc::ClientContext context;
    v1::WatchRequest request;
    request.set_match_id(match.id);
    auto reader = ref_->stub().Watch(&context, request);
    v1::WatchEvent event;
    EXPECT_FALSE(reader->Read(&event));
    EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }
  {
    grpc::ClientContext context;
    svctest::Authorize(context, match.tokens[0]);
    v1::WatchRequest request;
    request.set_match_id(match.id);
    auto reader = ref_->stub().Watch(&context, request);
    v1::WatchEvent event;
    ASSERT_TRUE(reader->Read(&event));
    EXPECT_TRUE(event.has_match());
    context.TryCancel();
    reader->Finish();
  }
  // Played to its end, its log goes to token holders only.
  auto clients = ConnectSeats(match);
  for (auto& client : clients) client->AutoPlay();
  for (uint32_t seat = 0; seat < clients.size(); ++seat) {
    ASSERT_TRUE(clients[seat]->Await(IsEnded(match.id, seat)));
  }
  std::string bytes;
  const grpc::Status anonymous = FetchLog(ref_->stub(), match.id, "", &bytes);
  EXPECT_EQ(anonymous.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(anonymous.error_message(), HasSubstr("--public_watch=false"));
  EXPECT_TRUE(bytes.empty());
  EXPECT_EQ(
      FetchLog(ref_->stub(), match.id, "not-a-token", &bytes).error_code(),
      grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(FetchLog(ref_->stub(), match.id, match.tokens[2], &bytes).ok());
  EXPECT_EQ(bytes, ref_->LogBytes(match.id));
  // The default referee answers anyone.
  ref_ = std::make_unique<ServiceReferee>();
  const Created open = NewMatch();
  grpc::ClientContext context;
  v1::GetMatchRequest request;
  request.set_match_id(open.id);
  v1::MatchInfo info;
  EXPECT_TRUE(ref_->stub().GetMatch(&context, request, &info).ok());
}

TEST_F(ServiceTest, BadInputEmptyOrShortFieldsAreInvalidArgument) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  PlayClient& c = *clients[0];
  ASSERT_TRUE(c.Await(IsDecision(match.id, 0, 0)));
  const size_t records = ref_->Records(match.id).size();
  c.Send(v1::PlayRequest());  // Neither commit nor reveal.
  EXPECT_TRUE(c.Await(IsError("", 0, 0, kInvalidArgument)));
  v1::PlayRequest short_commit;
  short_commit.mutable_commit()->set_match_id(match.id);
  short_commit.mutable_commit()->set_commitment("short");
  c.Send(short_commit);
  EXPECT_TRUE(c.Await(IsError(match.id, 0, 0, kInvalidArgument)));
  EXPECT_EQ(ref_->Records(match.id).size(), records);
  // A short salt in the reveal phase is refused without consequence.
  PlayDecision(clients, match.id, 0);
  std::vector<Move> moves;
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    moves.push_back(NewMove(Choice(*clients[seat], match.id, seat, 1)));
    clients[seat]->Send(svctest::CommitMsg(match.id, seat, 1, moves[seat]));
    ASSERT_TRUE(clients[seat]->Await(IsCommitAck(match.id, seat, 1)));
  }
  for (uint32_t seat = 1; seat < kSeats; ++seat) {
    ASSERT_TRUE(clients[seat]->Await(IsRevealRequest(match.id, seat, 1)));
    clients[seat]->Send(svctest::RevealMsg(match.id, seat, 1, moves[seat]));
    ASSERT_TRUE(clients[seat]->Await(IsRevealAck(match.id, seat, 1)));
  }
  const Move& m = moves[0];
  ASSERT_TRUE(c.Await(IsRevealRequest(match.id, 0, 1)));
  const size_t before_salt = ref_->Records(match.id).size();
  c.Send(svctest::RevealMsg(match.id, 0, 1, Move{"salt", m.action}));
  std::optional<v1::PlayResponse> e = c.Await(IsError(match.id, 0, 1));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->error().code(), kInvalidArgument);
  EXPECT_FALSE(e->error().faulted());
  EXPECT_EQ(ref_->Records(match.id).size(), before_salt);
  c.Send(svctest::RevealMsg(match.id, 0, 1, m));
  ASSERT_TRUE(c.Await(IsRevealAck(match.id, 0, 1)));
  FinishAndVerify(clients, match.id, 2);
  EXPECT_TRUE(OfKind(ref_->Records(match.id), v1::LogRecord::kFault).empty());
}

TEST_F(ServiceTest, BadInputOversizedMessageIsResourceExhausted) {
  TestRefereeOptions config = ServiceOptions();
  config.max_message_bytes = 16 << 10;
  ref_ = std::make_unique<ServiceReferee>(config);
  const Created match = NewMatch();
  const Created bystander = NewMatch();
  auto clients = ConnectSeats(match);
  auto others = ConnectSeats(bystander);
  ASSERT_TRUE(clients[0]->Await(IsDecision(match.id, 0, 0)));
  const size_t records = ref_->Records(match.id).size();
  const Move seed = NewMove(svctest::SeedAction());
  clients[0]->Send(svctest::CommitMsg(match.id, 0, 0, seed));
  ASSERT_TRUE(clients[0]->Await(IsCommitAck(match.id, 0, 0)));
  v1::PlayRequest huge = svctest::RevealMsg(
      match.id, 0, 0, Move{std::string(32, 's'), std::string(64 << 10, 'a')});
  clients[0]->Send(huge);
  EXPECT_EQ(clients[0]->AwaitEnd().error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(ref_->Records(match.id).size(), records + 1);  // Only the commit.
  // An oversized unary call is refused the same way.
  v1::CreateMatchRequest big;
  big.mutable_game()->set_game(std::string(32 << 10, 'g'));
  grpc::ClientContext context;
  svctest::Authorize(context, ref_->admin_token());
  v1::CreateMatchResponse ignored;
  EXPECT_EQ(ref_->stub().CreateMatch(&context, big, &ignored).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  // The server and both matches go on; seat 0 reconnects (its commit holds)
  // and reveals properly.
  FinishAndVerify(others, bystander.id, 0);
  clients[0] = Connect(match.tokens[0], "seat0-again");
  std::optional<v1::PlayResponse> again =
      clients[0]->Await(IsDecision(match.id, 0, 0));
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->decision().committed());
  clients[1]->AutoPlay();
  clients[2]->AutoPlay();
  ASSERT_TRUE(clients[0]->Await(IsRevealRequest(match.id, 0, 0)));
  clients[0]->Send(svctest::RevealMsg(match.id, 0, 0, seed));
  ASSERT_TRUE(clients[0]->Await(IsRevealAck(match.id, 0, 0)));
  FinishAndVerify(clients, match.id, 1);
  EXPECT_TRUE(OfKind(ref_->Records(match.id), v1::LogRecord::kFault).empty());
}

// --- GetLog of a log the referee cannot read ------------------------------

// What a referee says to its operator (ServiceLimits::messages), taken from
// any of its threads.
class SaidMessages {
 public:
  void Add(std::string_view message) {
    absl::MutexLock lock(&mu_);
    messages_.emplace_back(message);
  }
  std::vector<std::string> Messages() const {
    absl::MutexLock lock(&mu_);
    return messages_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> messages_ ABSL_GUARDED_BY(mu_);
};

class GetLogFailureTest : public ServiceTest {
 protected:
  void SetUp() override {
    TestRefereeOptions options = ServiceOptions();
    options.limits.messages = [said = said_](std::string_view message) {
      said->Add(message);
    };
    ref_ = std::make_unique<ServiceReferee>(options);
    ASSERT_TRUE(ref_->ok());
  }

  // A match played to its end, its log served as it is on disk.
  std::string FinishedMatch() {
    const Created match = NewMatch();
    auto clients = ConnectSeats(match);
    FinishAndVerify(clients, match.id, 0);
    return match.id;
  }

  // Whether the referee said, in one message, every one of `parts`.
  bool Said(const std::vector<std::string>& parts) const {
    for (const std::string& message : said_->Messages()) {
      if (std::all_of(parts.begin(), parts.end(), [&](const std::string& p) {
            return absl::StrContains(message, p);
          })) {
        return true;
      }
    }
    return false;
  }

  std::shared_ptr<SaidMessages> said_ = std::make_shared<SaidMessages>();
};

// A match the referee knows as finished whose log is gone from its disk is
// no unknown match: GetLog answers anyone DATA_LOSS, saying so, and names
// the log's file without its directory (where the referee keeps its files
// is the operator's business); the operator is told the full path and why.
// Before, anyone was answered NOT_FOUND "cannot open <absolute path>: ...".
TEST_F(GetLogFailureTest,
       AFinishedMatchsMissingLogIsDataLossNamingNoDirectory) {
  const std::string match = FinishedMatch();
  const std::string path = ref_->LogPath(match);
  const std::string name = std::filesystem::path(path).filename().string();
  std::filesystem::rename(path, path + ".moved");
  std::string bytes;
  const grpc::Status gone = FetchLog(ref_->stub(), match, "", &bytes);
  EXPECT_EQ(gone.error_code(), grpc::StatusCode::DATA_LOSS)
      << gone.error_message();
  EXPECT_THAT(gone.error_message(), HasSubstr("gone from the referee's disk"));
  EXPECT_THAT(gone.error_message(), HasSubstr(name));
  EXPECT_EQ(gone.error_message().find('/'), std::string::npos)
      << gone.error_message();
  EXPECT_TRUE(Said({match, path, std::strerror(ENOENT), "DATA_LOSS"}));

  // Something else where the log was (a directory): DATA_LOSS too, in the
  // same words.
  ASSERT_TRUE(std::filesystem::create_directory(path));
  const grpc::Status not_a_file = FetchLog(ref_->stub(), match, "", &bytes);
  EXPECT_EQ(not_a_file.error_code(), grpc::StatusCode::DATA_LOSS)
      << not_a_file.error_message();
  EXPECT_EQ(not_a_file.error_message().find('/'), std::string::npos)
      << not_a_file.error_message();
  EXPECT_TRUE(Said({match, path, "not a regular file"}));

  // Back where it was, the log is served again.
  std::filesystem::remove(path);
  std::filesystem::rename(path + ".moved", path);
  ExpectGenuine(match);
}

// A log that goes from the disk while it is being served ends the download
// the same way, after the chunks already sent.
TEST_F(GetLogFailureTest, ALogGoneDuringItsDownloadEndsItDataLoss) {
  const std::string match = FinishedMatch();
  const std::string path = ref_->LogPath(match);
  // 32 MiB more (GetLog serves a file's bytes as they are), so that the
  // referee, held back by the client's flow-control window, is still
  // reading the file when it goes.
  {
    const int fd = open(path.c_str(), O_WRONLY | O_APPEND);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    const std::string padding(1 << 20, '\0');
    for (int i = 0; i < 32; ++i) {
      ASSERT_EQ(write(fd, padding.data(), padding.size()),
                static_cast<ssize_t>(padding.size()));
    }
    close(fd);
  }
  const uintmax_t size = std::filesystem::file_size(path);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kWait));
  v1::GetLogRequest request;
  request.set_match_id(match);
  auto reader = ref_->stub().GetLog(&context, request);
  v1::LogChunk chunk;
  ASSERT_TRUE(reader->Read(&chunk));
  uint64_t received = chunk.data().size();
  std::filesystem::rename(path, path + ".moved");
  while (reader->Read(&chunk)) received += chunk.data().size();
  const grpc::Status status = reader->Finish();
  EXPECT_LT(received, size);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS)
      << status.error_message();
  EXPECT_THAT(status.error_message(),
              HasSubstr(std::filesystem::path(path).filename().string()));
  EXPECT_EQ(status.error_message().find('/'), std::string::npos)
      << status.error_message();
  EXPECT_TRUE(Said({match, path, std::strerror(ENOENT)}));
}

// A referee out of file descriptors answers UNAVAILABLE (try again), which
// clients retry (refctl get-log, the tournament runner), not NOT_FOUND,
// which they take as final; once descriptors are free the log is served.
TEST_F(GetLogFailureTest, NoFreeDescriptorIsUnavailable) {
  const std::string match = FinishedMatch();
  // Every descriptor below a soft limit just above the highest in use
  // taken, the connection already open: the referee's open() of the log
  // fails EMFILE. A descriptor the process closes meanwhile (a finished
  // client's socket) may let one call through: the next takes it too.
  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  int highest = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/self/fd")) {
    highest = std::max(highest, std::stoi(entry.path().filename().string()));
  }
  struct rlimit low = saved;
  low.rlim_cur = static_cast<rlim_t>(highest) + 1;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<int> held;
  int open_error = 0;
  grpc::Status short_of_files;
  for (int attempt = 0; attempt < 20 && short_of_files.ok(); ++attempt) {
    for (int fd; (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) {
      held.push_back(fd);
    }
    open_error = errno;
    std::string bytes;
    short_of_files = FetchLog(ref_->stub(), match, "", &bytes);
  }
  for (int fd : held) close(fd);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
  ASSERT_EQ(open_error, EMFILE);
  EXPECT_EQ(short_of_files.error_code(), grpc::StatusCode::UNAVAILABLE)
      << short_of_files.error_message();
  EXPECT_THAT(short_of_files.error_message(), HasSubstr("try again"));
  EXPECT_EQ(short_of_files.error_message().find('/'), std::string::npos)
      << short_of_files.error_message();
  EXPECT_TRUE(Said({match, ref_->LogPath(match), std::strerror(EMFILE)}));
  ExpectGenuine(match);
}

TEST_F(ServiceTest, BadInputUnknownMatchIsNotFound) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  const std::string unknown(32, '0');
  clients[0]->Send(svctest::CommitMsg(unknown, 0, 0, NewMove({})));
  EXPECT_TRUE(clients[0]->Await(IsError(unknown, 0, 0, kNotFound)));
  clients[0]->Send(svctest::RevealMsg(std::string(32, 'f'), 0, 0, NewMove({})));
  EXPECT_TRUE(
      clients[0]->Await(IsError(std::string(32, 'f'), 0, 0, kNotFound)));
  // The read-only calls say NOT_FOUND too.
  grpc::ClientContext context;
  v1::GetMatchRequest get;
  get.set_match_id(unknown);
  v1::MatchInfo info;
  EXPECT_EQ(ref_->stub().GetMatch(&context, get, &info).error_code(),
            grpc::StatusCode::NOT_FOUND);
  std::string bytes;
  EXPECT_EQ(FetchLog(ref_->stub(), unknown, "", &bytes).error_code(),
            grpc::StatusCode::NOT_FOUND);
  WatchClient watch(ref_->NewChannel(), unknown);
  EXPECT_EQ(watch.AwaitEnd().error_code(), grpc::StatusCode::NOT_FOUND);
  FinishAndVerify(clients, match.id, 0);
}

// A match id not of a match id's form (32 lower-case hex digits) is
// INVALID_ARGUMENT, in Play's words, on every read call that takes one, not
// NOT_FOUND (as a well-formed unknown one is), and is never sent back.
TEST_F(ServiceTest, BadInputMalformedMatchIdIsInvalidArgument) {
  const Created match = NewMatch();
  const std::string upper = absl::AsciiStrToUpper(match.id);
  ASSERT_NE(upper, match.id);
  for (const std::string& bad :
       {std::string(), upper, match.id + "0", std::string(512 << 10, 'a')}) {
    grpc::ClientContext context;
    v1::GetMatchRequest get;
    get.set_match_id(bad);
    v1::MatchInfo info;
    const grpc::Status got = ref_->stub().GetMatch(&context, get, &info);
    EXPECT_EQ(got.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << bad.size() << ": " << got.error_message().substr(0, 200);
    EXPECT_TRUE(absl::StartsWith(got.error_message(),
                                 "match_id: 32 lower-case hex digits, not "))
        << got.error_message().substr(0, 200);
    EXPECT_LE(got.error_message().size(), 200u);
    std::string bytes;
    const grpc::Status log = FetchLog(ref_->stub(), bad, "", &bytes);
    EXPECT_EQ(log.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << bad.size() << ": " << log.error_message().substr(0, 200);
    EXPECT_EQ(log.error_message(), got.error_message());
    WatchClient watch(ref_->NewChannel(), bad);
    const grpc::Status watched = watch.AwaitEnd();
    EXPECT_EQ(watched.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(watched.error_message(), got.error_message());
  }
  // Play says so too, in a PlayError that sends back no id longer than a
  // match id's.
  auto clients = ConnectSeats(match);
  for (const std::string& bad :
       {std::string(), std::string("not hex"), upper}) {
    clients[0]->Send(svctest::RevealMsg(bad, 0, 0, NewMove({})));
    EXPECT_TRUE(clients[0]->Await(IsError(bad, 0, 0, kInvalidArgument))) << bad;
  }
  clients[0]->Send(svctest::RevealMsg(match.id + "0", 0, 0, NewMove({})));
  EXPECT_TRUE(clients[0]->Await(IsError("", 0, 0, kInvalidArgument)));
  FinishAndVerify(clients, match.id, 0);
  grpc::ClientContext context;
  v1::GetMatchRequest get;
  get.set_match_id(match.id);
  v1::MatchInfo info;
  EXPECT_TRUE(ref_->stub().GetMatch(&context, get, &info).ok());
}

TEST_F(ServiceTest, BadInputWrongDecisionIdIsFailedPrecondition) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  ASSERT_TRUE(clients[0]->Await(IsDecision(match.id, 0, 0)));
  const size_t records = ref_->Records(match.id).size();
  clients[0]->Send(svctest::CommitMsg(match.id, 0, 7, NewMove({})));
  std::optional<v1::PlayResponse> e =
      clients[0]->Await(IsError(match.id, 0, 7, kFailedPrecondition));
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->error().faulted());
  EXPECT_THAT(e->error().message(), HasSubstr("not open"));
  EXPECT_EQ(ref_->Records(match.id).size(), records);
  FinishAndVerify(clients, match.id, 0);
  EXPECT_TRUE(OfKind(ref_->Records(match.id), v1::LogRecord::kFault).empty());
}

TEST_F(ServiceTest, BadInputRevealBeforeCommitIsFailedPrecondition) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  ASSERT_TRUE(clients[0]->Await(IsDecision(match.id, 0, 0)));
  const size_t records = ref_->Records(match.id).size();
  const Move m = NewMove(svctest::SeedAction());
  clients[0]->Send(svctest::RevealMsg(match.id, 0, 0, m));  // No commit yet.
  EXPECT_TRUE(clients[0]->Await(IsError(match.id, 0, 0, kFailedPrecondition)));
  clients[0]->Send(svctest::CommitMsg(match.id, 0, 0, m));
  ASSERT_TRUE(clients[0]->Await(IsCommitAck(match.id, 0, 0)));
  clients[0]->Send(svctest::RevealMsg(match.id, 0, 0, m));  // Others owe.
  ASSERT_TRUE(
      clients[0]->AwaitCount(IsError(match.id, 0, 0, kFailedPrecondition), 2));
  EXPECT_EQ(ref_->Records(match.id).size(), records + 1);  // The commit.
  clients[1]->AutoPlay();
  clients[2]->AutoPlay();
  ASSERT_TRUE(clients[0]->Await(IsRevealRequest(match.id, 0, 0)));
  clients[0]->Send(svctest::RevealMsg(match.id, 0, 0, m));
  ASSERT_TRUE(clients[0]->Await(IsRevealAck(match.id, 0, 0)));
  FinishAndVerify(clients, match.id, 1);
}

TEST_F(ServiceTest, BadInputDuplicateCommitIsAlreadyExists) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  const Move m = NewMove(svctest::SeedAction());
  clients[0]->Send(svctest::CommitMsg(match.id, 0, 0, m));
  ASSERT_TRUE(clients[0]->Await(IsCommitAck(match.id, 0, 0)));
  const size_t records = ref_->Records(match.id).size();
  clients[0]->Send(svctest::CommitMsg(match.id, 0, 0, m));
  clients[0]->Send(svctest::CommitMsg(match.id, 0, 0, NewMove({})));
  ASSERT_TRUE(
      clients[0]->AwaitCount(IsError(match.id, 0, 0, kAlreadyExists), 2));
  EXPECT_EQ(clients[0]->Count(IsCommitAck(match.id, 0, 0)), 1);
  EXPECT_EQ(ref_->Records(match.id).size(), records);
  clients[1]->AutoPlay();
  clients[2]->AutoPlay();
  ASSERT_TRUE(clients[0]->Await(IsRevealRequest(match.id, 0, 0)));
  clients[0]->Send(svctest::RevealMsg(match.id, 0, 0, m));
  FinishAndVerify(clients, match.id, 1);
}

TEST_F(ServiceTest, BadInputDuplicateRevealIsAlreadyExists) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  std::vector<Move> moves;
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    moves.push_back(NewMove(svctest::SeedAction()));
    clients[seat]->Send(svctest::CommitMsg(match.id, seat, 0, moves[seat]));
    ASSERT_TRUE(clients[seat]->Await(IsCommitAck(match.id, seat, 0)));
  }
  ASSERT_TRUE(clients[0]->Await(IsRevealRequest(match.id, 0, 0)));
  clients[0]->Send(svctest::RevealMsg(match.id, 0, 0, moves[0]));
  ASSERT_TRUE(clients[0]->Await(IsRevealAck(match.id, 0, 0)));
  const size_t records = ref_->Records(match.id).size();
  clients[0]->Send(svctest::RevealMsg(match.id, 0, 0, moves[0]));
  std::optional<v1::PlayResponse> e =
      clients[0]->Await(IsError(match.id, 0, 0, kAlreadyExists));
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->error().faulted());
  EXPECT_EQ(ref_->Records(match.id).size(), records);
  EXPECT_EQ(clients[0]->Count(IsRevealAck(match.id, 0, 0)), 1);
  for (uint32_t seat = 1; seat < kSeats; ++seat) {
    clients[seat]->Send(svctest::RevealMsg(match.id, seat, 0, moves[seat]));
  }
  FinishAndVerify(clients, match.id, 1);
}

// Seats 1 and 2 play decision 1 honestly; seat 0 sends `commit`, then
// reveals `revealed`. Returns seat 0's PlayError (INVALID_ARGUMENT).
std::optional<v1::PlayResponse> CommitThenRevealInDecisionOne(
    std::vector<std::unique_ptr<PlayClient>>& clients, const std::string& match,
    const v1::PlayRequest& commit, const Move& revealed) {
  clients[0]->Send(commit);
  EXPECT_TRUE(clients[0]->Await(IsCommitAck(match, 0, 1)));
  clients[1]->AutoPlay(1);
  clients[2]->AutoPlay(1);
  EXPECT_TRUE(clients[0]->Await(IsRevealRequest(match, 0, 1)));
  clients[0]->Send(svctest::RevealMsg(match, 0, 1, revealed));
  return clients[0]->Await(IsError(match, 0, 1, kInvalidArgument));
}

// As above, seat 0 committing to one action and revealing `revealed`.
std::optional<v1::PlayResponse> CheatInDecisionOne(
    std::vector<std::unique_ptr<PlayClient>>& clients, const std::string& match,
    const Move& committed, const Move& revealed) {
  return CommitThenRevealInDecisionOne(
      clients, match, svctest::CommitMsg(match, 0, 1, committed), revealed);
}

TEST_F(ServiceTest, BadInputMismatchedRevealForfeitsUnderTheForfeitPolicy) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  PlayDecision(clients, match.id, 0);
  const v1::Action a = Choice(*clients[0], match.id, 0, 1);
  const Move committed = NewMove(a);
  const Move other_salt = NewMove(a);  // Same action, another salt.
  std::optional<v1::PlayResponse> e =
      CheatInDecisionOne(clients, match.id, committed, other_salt);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->error().faulted());
  EXPECT_THAT(e->error().message(), HasSubstr("FAULT_REVEAL_MISMATCH"));
  EXPECT_EQ(clients[0]->Count(IsRevealAck(match.id, 0, 1)), 0);
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    std::optional<v1::PlayResponse> ended =
        clients[seat]->Await(IsEnded(match.id, seat));
    ASSERT_TRUE(ended);
    EXPECT_EQ(ended->match_ended().outcome().termination(),
              v1::TERMINATION_FORFEIT);
    EXPECT_TRUE(ended->match_ended().outcome().seats(0).forfeited());
  }
  const auto faults = OfKind(ref_->Records(match.id), v1::LogRecord::kFault);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].fault().reason(), v1::FAULT_REVEAL_MISMATCH);
  EXPECT_EQ(faults[0].fault().consequence(), v1::FAULT_FORFEIT);
  ExpectGenuine(match.id);
}

// A client that hashes the match id as its hex text (a docs-only client's
// usual slip) hears so in its PlayError; watchers and the log see only the
// fault's plain detail.
TEST_F(ServiceTest, BadInputAMismatchedRevealNamesTheClientsLikelyMistake) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  PlayDecision(clients, match.id, 0);
  const Move move = NewMove(Choice(*clients[0], match.id, 0, 1));
  v1::PlayRequest commit = svctest::CommitMsg(match.id, 0, 1, move);
  std::string preimage(kCommitDomain);
  preimage.append(match.id);  // The hex text, not its 16 bytes.
  AppendU32Be(preimage, 0);
  AppendU64Be(preimage, 1);
  preimage.append(move.salt).append(move.action);
  commit.mutable_commit()->set_commitment(
      std::string(AsView(Sha256(preimage))));
  std::optional<v1::PlayResponse> e =
      CommitThenRevealInDecisionOne(clients, match.id, commit, move);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->error().faulted());
  EXPECT_THAT(e->error().message(),
              HasSubstr("FAULT_REVEAL_MISMATCH: the reveal does not match the "
                        "commitment: the commitment is this reveal's hash "
                        "laid out otherwise: the match id is hashed as its "
                        "hex text, not its 16 bytes"));
  EXPECT_THAT(e->error().message(), HasSubstr("(FAULT_FORFEIT)"));
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    ASSERT_TRUE(clients[seat]->Await(IsEnded(match.id, seat)));
  }
  const auto faults = OfKind(ref_->Records(match.id), v1::LogRecord::kFault);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].fault().detail(),
            "the reveal does not match the commitment");
  ExpectGenuine(match.id);
}

TEST_F(ServiceTest, BadInputMismatchedRevealPlaysTheDefaultUnderThatPolicy) {
  const Created match = NewMatch({}, v1::FORFEIT_POLICY_DEFAULT_ACTION);
  auto clients = ConnectSeats(match);
  PlayDecision(clients, match.id, 0);
  std::optional<v1::PlayResponse> d1 =
      clients[0]->Await(IsDecision(match.id, 0, 1));
  ASSERT_TRUE(d1);
  const Move committed = NewMove(d1->decision().legal_actions(0));
  Move swapped = committed;  // Same salt, another legal action.
  swapped.action = d1->decision().legal_actions(1).SerializeAsString();
  std::optional<v1::PlayResponse> e =
      CheatInDecisionOne(clients, match.id, committed, swapped);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->error().faulted());
  ASSERT_TRUE(clients[0]->Await(IsDecision(match.id, 0, 2)));  // Goes on.
  FinishAndVerify(clients, match.id, 2);
  const auto faults = OfKind(ref_->Records(match.id), v1::LogRecord::kFault);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].fault().reason(), v1::FAULT_REVEAL_MISMATCH);
  EXPECT_EQ(faults[0].fault().consequence(), v1::FAULT_DEFAULT_ACTION);
}

// Regression: when a checkpoint fell due right after a mismatched reveal,
// the writer put it between the reveal and its fault, and the verifier
// called that genuine log NOT GENUINE.
TEST_F(ServiceTest, BadInputMismatchedRevealJustBeforeACheckpointVerifies) {
  // Header, its checkpoint, 8 records of decision 0, decision 1 opened, 3
  // commits: the reveal is record 14, the 13th after the header's
  // checkpoint, so with 13 records per checkpoint one follows it.
  TestRefereeOptions config = ServiceOptions();
  config.checkpoint_interval = 13;
  ref_ = std::make_unique<ServiceReferee>(config);
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  PlayDecision(clients, match.id, 0);
  std::vector<Move> moves;
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    moves.push_back(NewMove(Choice(*clients[seat], match.id, seat, 1)));
    clients[seat]->Send(svctest::CommitMsg(match.id, seat, 1, moves[seat]));
    ASSERT_TRUE(clients[seat]->Await(IsCommitAck(match.id, seat, 1)));
  }
  ASSERT_TRUE(clients[0]->Await(IsRevealRequest(match.id, 0, 1)));
  clients[0]->Send(svctest::RevealMsg(
      match.id, 0, 1, Move{SystemRandomBytes(32), moves[0].action}));
  ASSERT_TRUE(clients[0]->Await(IsError(match.id, 0, 1, kInvalidArgument)));
  for (uint32_t seat = 1; seat < kSeats; ++seat) {
    clients[seat]->Send(svctest::RevealMsg(match.id, seat, 1, moves[seat]));
  }
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    ASSERT_TRUE(clients[seat]->Await(IsEnded(match.id, seat)));
  }
  ExpectGenuine(match.id);
  const std::vector<v1::LogRecord> records = ref_->Records(match.id);
  size_t reveal = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].has_reveal() && records[i].reveal().decision_id() == 1) {
      reveal = i;
      break;
    }
  }
  ASSERT_EQ(reveal, 14u);
  ASSERT_LT(reveal + 2, records.size());
  EXPECT_TRUE(records[reveal + 1].has_checkpoint());
  EXPECT_TRUE(records[reveal + 2].has_fault());
}

TEST_F(ServiceTest, BadInputIllegalActionIsFaultedPerPolicy) {
  // Red pieces do not exist without the option `red`: committed honestly,
  // but illegal. Under the default policy the match goes on.
  const Created match = NewMatch({}, v1::FORFEIT_POLICY_DEFAULT_ACTION);
  auto clients = ConnectSeats(match);
  PlayDecision(clients, match.id, 0);
  const Move red = NewMove(svctest::Piece(v1::RPP_RED, v1::RPP_LARGE));
  std::optional<v1::PlayResponse> e =
      CheatInDecisionOne(clients, match.id, red, red);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->error().faulted());
  EXPECT_THAT(e->error().message(), HasSubstr("FAULT_ILLEGAL_ACTION"));
  FinishAndVerify(clients, match.id, 2);
  const auto faults = OfKind(ref_->Records(match.id), v1::LogRecord::kFault);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].fault().reason(), v1::FAULT_ILLEGAL_ACTION);
  EXPECT_EQ(faults[0].fault().consequence(), v1::FAULT_DEFAULT_ACTION);
}

TEST_F(ServiceTest, BadInputUnparseableActionForfeitsUnderTheForfeitPolicy) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  PlayDecision(clients, match.id, 0);
  const Move garbage{SystemRandomBytes(32), std::string("\xff\xff\xff", 3)};
  std::optional<v1::PlayResponse> e =
      CheatInDecisionOne(clients, match.id, garbage, garbage);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->error().faulted());
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    ASSERT_TRUE(clients[seat]->Await(IsEnded(match.id, seat)));
  }
  const auto faults = OfKind(ref_->Records(match.id), v1::LogRecord::kFault);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].fault().reason(), v1::FAULT_ILLEGAL_ACTION);
  EXPECT_EQ(faults[0].fault().consequence(), v1::FAULT_FORFEIT);
  ExpectGenuine(match.id);
}

TEST_F(ServiceTest, BadInputActionWithUnknownFieldsIsAnIllegalAction) {
  // A legal choice with one field the protocol does not define (field 99,
  // varint): faulted as an illegal action with its reason logged, and the
  // seat forfeits under the forfeit policy.
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  PlayDecision(clients, match.id, 0);
  Move padded = NewMove(Choice(*clients[0], match.id, 0, 1));
  padded.action += std::string("\x98\x06\x01", 3);
  std::optional<v1::PlayResponse> e =
      CheatInDecisionOne(clients, match.id, padded, padded);
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->error().faulted());
  EXPECT_THAT(e->error().message(), HasSubstr("FAULT_ILLEGAL_ACTION"));
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    ASSERT_TRUE(clients[seat]->Await(IsEnded(match.id, seat)));
  }
  const auto faults = OfKind(ref_->Records(match.id), v1::LogRecord::kFault);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].fault().reason(), v1::FAULT_ILLEGAL_ACTION);
  EXPECT_THAT(faults[0].fault().detail(),
              HasSubstr("fields the protocol does not define"));
  EXPECT_EQ(faults[0].fault().consequence(), v1::FAULT_FORFEIT);
  ExpectGenuine(match.id);
}

TEST_F(ServiceTest, BadInputActionOverTheGamesSizeIsRefusedUnlogged) {
  // Rock, Paper, Pyramid! actions are at most 64 bytes: a 65-byte action,
  // committed honestly, is refused unread when revealed; nothing is logged
  // and the seat still owes its reveal, so the log stays bounded.
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  PlayDecision(clients, match.id, 0);
  v1::Action big = Choice(*clients[0], match.id, 0, 1);
  big.mutable_seed()->set_contribution(std::string(61, 'x'));
  Move move = NewMove(big);
  ASSERT_EQ(move.action.size(), 65u);
  std::optional<v1::PlayResponse> e = CheatInDecisionOne(
      clients, match.id, /*committed=*/move, /*revealed=*/move);
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->error().faulted());
  EXPECT_THAT(e->error().message(),
              HasSubstr("the action is 65 bytes; rock_paper_pyramid actions "
                        "are at most 64 bytes"));
  EXPECT_EQ(clients[0]->Count(IsRevealAck(match.id, 0, 1)), 0);
  for (const v1::LogRecord& r :
       OfKind(ref_->Records(match.id), v1::LogRecord::kReveal)) {
    EXPECT_FALSE(r.reveal().seat() == 0 && r.reveal().decision_id() == 1)
        << "the oversized reveal was logged";
  }
  EXPECT_TRUE(OfKind(ref_->Records(match.id), v1::LogRecord::kFault).empty());
}

TEST_F(ServiceTest, BadInputActionForAnotherSeatIsPermissionDenied) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  PlayDecision(clients, match.id, 0);
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    ASSERT_TRUE(clients[seat]->Await(IsDecision(match.id, seat, 1)));
  }
  const size_t records = ref_->Records(match.id).size();
  // Seat 1 tries to commit and reveal for seat 0.
  const Move m = NewMove(Choice(*clients[1], match.id, 1, 1));
  clients[1]->Send(svctest::CommitMsg(match.id, 0, 1, m));
  clients[1]->Send(svctest::RevealMsg(match.id, 0, 1, m));
  ASSERT_TRUE(
      clients[1]->AwaitCount(IsError(match.id, 0, 1, kPermissionDenied), 2));
  EXPECT_EQ(ref_->Records(match.id).size(), records);
  EXPECT_EQ(clients[0]->Count(IsAnyError()), 0);
  FinishAndVerify(clients, match.id, 1);
  EXPECT_TRUE(OfKind(ref_->Records(match.id), v1::LogRecord::kFault).empty());
}

// Decision 0's reveal phase holds three round trips in turn (each seat's
// RevealRequest, reveal and RevealAck): at 300 ms, a loaded machine (or
// ASan) could miss it. kRevealMs leaves them about 2 s; seat 2's forfeit is
// still checked at or after its deadline.
TEST_F(ServiceTest, BadInputDisconnectMidDecisionForfeitsAtTheDeadline) {
  constexpr uint32_t kRevealMs = 2000;
  const Created match = NewMatch(Clocks(5000, kRevealMs));
  const Created bystander = NewMatch(Clocks(5000, 5000));
  auto clients = ConnectSeats(match);
  PlayDecision(clients, match.id, 0);
  const Move m = NewMove(Choice(*clients[2], match.id, 2, 1));
  clients[2]->Send(svctest::CommitMsg(match.id, 2, 1, m));
  ASSERT_TRUE(clients[2]->Await(IsCommitAck(match.id, 2, 1)));
  clients[2].reset();  // Gone for good, owing a reveal.
  clients[0]->AutoPlay(1);
  clients[1]->AutoPlay(1);
  for (uint32_t seat = 0; seat < 2; ++seat) {
    std::optional<v1::PlayResponse> ended =
        clients[seat]->Await(IsEnded(match.id, seat));
    ASSERT_TRUE(ended);
    EXPECT_TRUE(ended->match_ended().outcome().seats(2).forfeited());
  }
  const std::vector<v1::LogRecord> records = ref_->Records(match.id);
  const auto faults = OfKind(records, v1::LogRecord::kFault);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].fault().seat(), 2u);
  EXPECT_EQ(faults[0].fault().reason(), v1::FAULT_REVEAL_TIMEOUT);
  EXPECT_EQ(faults[0].fault().consequence(), v1::FAULT_FORFEIT);
  EXPECT_EQ(faults[0].fault().decision_id(), 1u);
  EXPECT_GE(faults[0].fault().at_unix_ms(),
            LastCommitMs(records, 1) + kRevealMs);
  EXPECT_FALSE(Info(match.id).seats(2).connected());
  ExpectGenuine(match.id);
  // The server is fine: another match plays through.
  auto others = ConnectSeats(bystander);
  FinishAndVerify(others, bystander.id, 0);
}

TEST_F(ServiceTest, BadInputFloodClosesTheStreamAndTheMatchGoesOn) {
  const Created match = NewMatch();
  auto clients = ConnectSeats(match);
  ASSERT_TRUE(clients[0]->Await(IsDecision(match.id, 0, 0)));
  const size_t records = ref_->Records(match.id).size();
  const v1::PlayRequest junk =
      svctest::CommitMsg(match.id, 0, 999, NewMove({}));
  int sent = 0;
  for (; sent < 2000 && clients[0]->Send(junk); ++sent) {
  }
  EXPECT_EQ(clients[0]->AwaitEnd().error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(clients[0]->Await(IsAnyError(kResourceExhausted)));
  const int refused = clients[0]->Count(IsError(match.id, 0, 999));
  EXPECT_GE(refused, 64);    // The burst is allowed...
  EXPECT_LT(refused, 1000);  // ...but not the flood.
  EXPECT_EQ(ref_->Records(match.id).size(), records);
  // Others were never disturbed; the flooder reconnects and plays on.
  EXPECT_FALSE(clients[1]->ended());
  EXPECT_EQ(clients[1]->Count(IsAnyError()), 0);
  clients[0] = Connect(match.tokens[0], "seat0-again");
  FinishAndVerify(clients, match.id, 0);
}

TEST_F(ServiceTest, ABotStreamsFloodAllowanceGrowsWithItsSeats) {
  const v1::RegisterBotResponse bot = NewBot("many");
  std::vector<Created> matches;
  for (int i = 0; i < 4; ++i) {
    matches.push_back(NewMatch({}, v1::FORFEIT_POLICY_FORFEIT,
                               {bot.bot_id(), bot.bot_id(), bot.bot_id()}));
  }
  PlayClient stream(ref_->NewChannel(), bot.bot_token(), "bot");
  ASSERT_TRUE(stream.Await(IsDecision(matches[3].id, 2, 0)));
  // Twelve seats: late or stale messages of a few seats each are no flood.
  const v1::PlayRequest junk =
      svctest::CommitMsg(matches[0].id, 0, 999, NewMove({}));
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(stream.Send(junk)) << i;
  ASSERT_TRUE(stream.AwaitCount(IsError(matches[0].id, 0, 999), 300));
  EXPECT_FALSE(stream.ended());
  // A flood still closes the stream.
  for (int i = 0; i < 5000 && stream.Send(junk); ++i) {
  }
  EXPECT_EQ(stream.AwaitEnd().error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_LT(stream.Count(IsError(matches[0].id, 0, 999)), 5000);
}

// ServiceLimits::batch_linger holds back what is sent to an idle "batch"
// stream of a bot (which carries many seats), never a seat's: with a
// minute's linger, a seat's stream gets its seed request at once while the
// bot's, sent at the same moment, still waits.
TEST_F(ServiceTest, OnlyABotsStreamLingers) {
  TestRefereeOptions config = ServiceOptions();
  config.limits.batch_linger = absl::Minutes(1);
  ref_ = std::make_unique<ServiceReferee>(config);
  const v1::RegisterBotResponse bot = NewBot("lingerer");
  PlayClient bot_stream(ref_->NewChannel(), bot.bot_token(), "bot", nullptr,
                        std::nullopt, "batch");
  const Created match =
      NewMatch({}, v1::FORFEIT_POLICY_FORFEIT, {bot.bot_id(), "", ""});
  PlayClient seat_stream(ref_->NewChannel(), match.tokens[1], "seat1", nullptr,
                         std::nullopt, "batch");
  ASSERT_TRUE(seat_stream.Await(IsDecision(match.id, 1, 0)));
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_EQ(bot_stream.Count(IsDecision(match.id, 0, 0)), 0);
}

// Where the first of `received` that matches `pred` stands (its size if
// none does).
ptrdiff_t IndexOf(const std::vector<v1::PlayResponse>& received,
                  const svctest::Pred& pred) {
  return std::find_if(received.begin(), received.end(), pred) -
         received.begin();
}

// LobbyOptions::ack_hold: on a seat's "batch" stream a CommitAck waits for
// the RevealRequest the other seats' commits bring, and a RevealAck for the
// DecisionResult, each then carried in the same write. The hold here is a
// minute, so that only those messages can end it.
TEST_F(ServiceTest, ASeatsBatchStreamHoldsAnAcknowledgementForWhatFollows) {
  TestRefereeOptions config = ServiceOptions();
  config.ack_hold = absl::Minutes(1);
  ref_ = std::make_unique<ServiceReferee>(config);
  const Created match = NewMatch();
  const std::vector<std::unique_ptr<PlayClient>> seats =
      ConnectBatchSeats(match);
  const std::vector<Move> moves = SeedMoves();
  PlayClient& first = *seats[0];
  ASSERT_TRUE(first.Send(svctest::CommitMsg(match.id, 0, 0, moves[0])));
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(first.Count(IsCommitAck(match.id, 0, 0)), 0);
  for (uint32_t seat = 1; seat < kSeats; ++seat) {
    ASSERT_TRUE(
        seats[seat]->Send(svctest::CommitMsg(match.id, seat, 0, moves[seat])));
  }
  ASSERT_TRUE(first.Await(IsRevealRequest(match.id, 0, 0)));
  ASSERT_TRUE(first.Await(IsCommitAck(match.id, 0, 0)));

  ASSERT_TRUE(first.Send(svctest::RevealMsg(match.id, 0, 0, moves[0])));
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(first.Count(IsRevealAck(match.id, 0, 0)), 0);
  for (uint32_t seat = 1; seat < kSeats; ++seat) {
    ASSERT_TRUE(seats[seat]->Await(IsRevealRequest(match.id, seat, 0)));
    ASSERT_TRUE(
        seats[seat]->Send(svctest::RevealMsg(match.id, seat, 0, moves[seat])));
  }
  ASSERT_TRUE(first.Await(IsDecision(match.id, 0, 1)));
  ASSERT_TRUE(first.Await(IsRevealAck(match.id, 0, 0)));

  // Each acknowledgement came in one write with what it waited for, just
  // before it: seat 0's first write was its seed request, alone (before any
  // commit); then CommitAck + RevealRequest; then RevealAck + the seed
  // decision's DecisionResult + DecisionRequest 1.
  const std::vector<v1::PlayResponse> received = first.Messages();
  EXPECT_EQ(IndexOf(received, IsCommitAck(match.id, 0, 0)) + 1,
            IndexOf(received, IsRevealRequest(match.id, 0, 0)));
  EXPECT_EQ(IndexOf(received, IsRevealAck(match.id, 0, 0)) + 1,
            IndexOf(received, IsResult(match.id, 0, 0)));
  EXPECT_EQ(first.BatchSizes(), (std::vector<int>{2, 3}));
}

// A held acknowledgement goes alone once ack_hold has passed, whether or not
// anything follows; a stream without the feature "batch" is never held.
TEST_F(ServiceTest, AnAcknowledgementIsHeldNoLongerThanTheHold) {
  TestRefereeOptions config = ServiceOptions();
  config.ack_hold = absl::Milliseconds(50);
  ref_ = std::make_unique<ServiceReferee>(config);
  const Created match = NewMatch();
  PlayClient batch(ref_->NewChannel(), match.tokens[0], "seat0", nullptr,
                   std::nullopt, "batch");
  std::unique_ptr<PlayClient> plain = Connect(match.tokens[1], "seat1");
  ASSERT_TRUE(batch.Await(IsDecision(match.id, 0, 0)));
  ASSERT_TRUE(plain->Await(IsDecision(match.id, 1, 0)));
  ASSERT_TRUE(batch.Send(
      svctest::CommitMsg(match.id, 0, 0, NewMove(svctest::SeedAction()))));
  ASSERT_TRUE(plain->Send(
      svctest::CommitMsg(match.id, 1, 0, NewMove(svctest::SeedAction()))));
  // Seat 2 never commits: no RevealRequest comes to carry the acks.
  ASSERT_TRUE(batch.Await(IsCommitAck(match.id, 0, 0)));
  ASSERT_TRUE(plain->Await(IsCommitAck(match.id, 1, 0)));
  EXPECT_EQ(batch.Count(IsRevealRequest(match.id, 0, 0)), 0);
}

// Each hold lasts ack_hold from its own start: the timer of a hold that a
// message ended early does not end the next hold. Here the CommitAck's
// hold ends at once (every seat commits), its timer comes due 6 s later,
// while the RevealAck's hold, started 4 s in, still has 4 s to go. The
// margins on a loaded machine (with the former 2 s hold, reveal at 1.2 s
// and check at 2.5 s in brackets):
//  - the three commits have 6 s (2 s) to reach the referee in one hold;
//  - seat 0's reveal is sent 2 s (0.8 s) before the first timer is due, so
//    that this timer finds the RevealAck held and would end it if broken;
//  - "no RevealAck yet" is checked 1 s (0.5 s) after the first timer and
//    3 s (0.7 s) before the RevealAck's hold ends, at 10 s or later;
//  - seats 1 and 2 then have those 3 s (0.7 s) to reveal, so that the
//    RevealAck goes with what their reveals bring.
TEST_F(ServiceTest, AnEarlierHoldsTimerDoesNotEndTheNextHold) {
  constexpr absl::Duration kHold = absl::Seconds(6);
  constexpr absl::Duration kRevealAt = absl::Seconds(4);
  constexpr absl::Duration kCheckAt = absl::Seconds(7);
  TestRefereeOptions config = ServiceOptions();
  config.ack_hold = kHold;
  ref_ = std::make_unique<ServiceReferee>(config);
  const Created match = NewMatch();
  const std::vector<std::unique_ptr<PlayClient>> seats =
      ConnectBatchSeats(match);
  const std::vector<Move> moves = SeedMoves();
  PlayClient& first = *seats[0];
  const absl::Time start = absl::Now();
  for (uint32_t seat = 0; seat < kSeats; ++seat) {
    ASSERT_TRUE(
        seats[seat]->Send(svctest::CommitMsg(match.id, seat, 0, moves[seat])));
  }
  ASSERT_TRUE(first.Await(IsRevealRequest(match.id, 0, 0)));
  ASSERT_TRUE(first.Await(IsCommitAck(match.id, 0, 0)));
  absl::SleepFor(start + kRevealAt - absl::Now());
  ASSERT_TRUE(first.Send(svctest::RevealMsg(match.id, 0, 0, moves[0])));
  // The first hold's timer is due by kHold (6 s); the RevealAck's hold
  // lasts until at least kRevealAt + kHold (10 s).
  absl::SleepFor(start + kCheckAt - absl::Now());
  EXPECT_EQ(first.Count(IsRevealAck(match.id, 0, 0)), 0);
  for (uint32_t seat = 1; seat < kSeats; ++seat) {
    ASSERT_TRUE(seats[seat]->Await(IsRevealRequest(match.id, seat, 0)));
    ASSERT_TRUE(
        seats[seat]->Send(svctest::RevealMsg(match.id, seat, 0, moves[seat])));
  }
  ASSERT_TRUE(first.Await(IsRevealAck(match.id, 0, 0)));
  // Seed request alone; CommitAck + RevealRequest; RevealAck + the seed
  // decision's DecisionResult + DecisionRequest 1.
  EXPECT_EQ(first.BatchSizes(), (std::vector<int>{2, 3}));
}

// A bot's "batch" stream takes acknowledgements late as a seat's does:
// the bot's CommitAck waits for the RevealRequest the other seats' commits
// bring, and comes in the same write, just before it.
TEST_F(ServiceTest, ABotsBatchStreamHoldsAnAcknowledgementToo) {
  TestRefereeOptions config = ServiceOptions();
  config.ack_hold = absl::Minutes(1);
  ref_ = std::make_unique<ServiceReferee>(config);
  const v1::RegisterBotResponse bot = NewBot("holder");
  PlayClient bot_stream(ref_->NewChannel(), bot.bot_token(), "bot", nullptr,
                        std::nullopt, "batch");
  const Created match =
      NewMatch({}, v1::FORFEIT_POLICY_FORFEIT, {bot.bot_id(), "", ""});
  // The other seats' streams take acknowledgements late too, so that only
  // the RevealRequests end the hold, whatever the time between the commits.
  const std::vector<std::unique_ptr<PlayClient>> others =
      ConnectBatchSeats(match, /*first_seat=*/1);
  ASSERT_TRUE(bot_stream.Await(IsDecision(match.id, 0, 0)));
  const std::vector<Move> moves = SeedMoves();
  ASSERT_TRUE(bot_stream.Send(svctest::CommitMsg(match.id, 0, 0, moves[0])));
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(bot_stream.Count(IsCommitAck(match.id, 0, 0)), 0);
  for (uint32_t seat = 1; seat < kSeats; ++seat) {
    ASSERT_TRUE(
        others[seat]->Send(svctest::CommitMsg(match.id, seat, 0, moves[seat])));
  }
  ASSERT_TRUE(bot_stream.Await(IsRevealRequest(match.id, 0, 0)));
  ASSERT_TRUE(bot_stream.Await(IsCommitAck(match.id, 0, 0)));
  const std::vector<v1::PlayResponse> received = bot_stream.Messages();
  EXPECT_EQ(IndexOf(received, IsCommitAck(match.id, 0, 0)) + 1,
            IndexOf(received, IsRevealRequest(match.id, 0, 0)));
  EXPECT_EQ(bot_stream.BatchSizes().back(), 2);
}

TEST_F(ServiceTest, AStreamWithoutBatchGetsItsAcknowledgementsAtOnce) {
  TestRefereeOptions config = ServiceOptions();
  config.ack_hold = absl::Minutes(1);
  ref_ = std::make_unique<ServiceReferee>(config);
  const Created match = NewMatch();
  std::unique_ptr<PlayClient> plain = Connect(match.tokens[0], "seat0");
  ASSERT_TRUE(plain->Await(IsDecision(match.id, 0, 0)));
  ASSERT_TRUE(plain->Send(
      svctest::CommitMsg(match.id, 0, 0, NewMove(svctest::SeedAction()))));
  EXPECT_TRUE(plain->Await(IsCommitAck(match.id, 0, 0), absl::Seconds(5)));
}

// ServiceLimits::max_queued_messages_per_seat: a bot's stream, which carries
// every seat of the bot, may queue that many unsent messages per seat when
// it is more than max_queued_messages. Here the base takes two, and a match
// of three bot seats sends three seed requests at once to a "batch" stream
// that lingers before writing: queued together, they would close a stream
// whose bound ignored the seats.
TEST_F(ServiceTest, ABotStreamsQueueBoundGrowsWithItsSeats) {
  TestRefereeOptions config = ServiceOptions();
  config.limits.max_queued_messages = 2;
  config.limits.max_queued_messages_per_seat = 2;
  config.limits.batch_linger = absl::Milliseconds(50);
  ref_ = std::make_unique<ServiceReferee>(config);
  const v1::RegisterBotResponse bot = NewBot("busy");
  PlayClient stream(ref_->NewChannel(), bot.bot_token(), "bot", nullptr,
                    std::nullopt, "batch");
  std::vector<Created> matches;
  for (int i = 0; i < 2; ++i) {
    matches.push_back(NewMatch({}, v1::FORFEIT_POLICY_FORFEIT,
                               {bot.bot_id(), bot.bot_id(), bot.bot_id()}));
  }
  for (const Created& match : matches) {
    for (uint32_t seat = 0; seat < kSeats; ++seat) {
      ASSERT_TRUE(stream.Await(IsDecision(match.id, seat, 0)))
          << "match " << match.id << " seat " << seat;
    }
  }
  EXPECT_FALSE(stream.ended());
}

}  // namespace
}  // namespace pyramid
