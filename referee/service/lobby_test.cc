// The Lobby, without gRPC but for one test of the service around it:
// ListMatches newest first, in pages that stay stable while matches are
// created, with the status filter and bad page tokens; a bot's seat count
// forgetting its ended matches; a transparency log entry that failed, made
// before the next, and before an answer about the latest tree (its
// checkpoint, an inclusion proof against it); a retried CreateMatch that
// creates nothing more, across a restart too, and waits for its busy match
// without stopping the lobby; the limit of live matches; an ended match
// kept compactly (its host let go), served as before and after a restart,
// and ending while other threads list and look up matches; an end the
// registry could not record, recorded at the next chance (by the
// checkpointer too, with the wall clock stepped: the test's clock_gettime
// moves CLOCK_REALTIME on demand), and the retry of a broken match's
// CreateMatch waiting for it; a full registry answered
// RESOURCE_EXHAUSTED; a lobby that goes while a deadline fires; the
// shutdown checkpoint (SuspendAll) covering every sealed log; and a lobby
// killed (SIGKILL) while it creates matches, in the window between the
// registry's entry and the log's first checkpoint and at random moments:
// a creation cut short is forgotten, nothing acknowledged is lost.
#include "referee/service/lobby.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/games/printable_text.h"
#include "referee/service/referee_service.h"
#include "referee/service/testing_clock_step.h"
#include "sqlite3.h"
#include "tests/forked_child.h"
#include "tests/no_descriptor_left.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

// Damages the log at `path` for good: bytes that are no record (an
// over-long length prefix) after its last one. A restart cannot resume its
// match, which ends broken. (A log removed, or holding no signed
// checkpoint, is one whose creation was cut short: its match is forgotten.)
void DamageLog(const std::string& path) {
  std::ofstream(path, std::ios::binary | std::ios::app)
      << std::string(11, '\xff');
}

class LobbyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    LobbyOptions options;
    options.log_dir = dir_.path();
    options.admin_token = std::string(32, 'a');
    lobby_ = std::make_unique<Lobby>(std::move(options));
  }

  // A lobby whose sealed logs go to a new transparency log, `*tree` (at
  // tlog.db in the test's directory), an entry that failed tried again only
  // at a match's end (no checkpointer rounds); and a match played to its end
  // there while another connection held the write lock of the tree's
  // database (past SQLite's 5 s busy timeout), so that its entry failed and
  // waits (checked): `*match`, its id, once the lock is gone.
  void StartAndEndAMatchWhileTheTreeIsLocked(
      std::shared_ptr<TransparencyLog>* tree, std::string* match) {
    const std::string tlog_path = dir_.File("tlog.db");
    absl::StatusOr<std::unique_ptr<TransparencyLog>> tlog =
        TransparencyLog::Open(tlog_path, SigningKey::Generate(), "lobby-test");
    ASSERT_TRUE(tlog.ok()) << tlog.status();
    *tree = *std::move(tlog);
    std::filesystem::create_directories(dir_.File("logs"));
    LobbyOptions options;
    options.log_dir = dir_.File("logs");
    options.admin_token = std::string(32, 'a');
    options.tlog = *tree;
    options.checkpoint_every = absl::ZeroDuration();  // No retries but ends.
    lobby_ = std::make_unique<Lobby>(std::move(options));

    sqlite3* reader = nullptr;
    EXPECT_EQ(sqlite3_open(tlog_path.c_str(), &reader), SQLITE_OK);
    EXPECT_EQ(
        sqlite3_exec(reader, "BEGIN IMMEDIATE;", nullptr, nullptr, nullptr),
        SQLITE_OK);
    *match = CreateWithBot("", 50);
    AwaitEnd(*match);
    sqlite3_exec(reader, "ROLLBACK;", nullptr, nullptr, nullptr);
    sqlite3_close(reader);
    EXPECT_FALSE((*tree)->Contains(*match));
  }

  std::string Create() {
    v1::CreateMatchRequest request;
    request.mutable_game()->set_game("rock_paper_pyramid");
    for (int i = 0; i < 3; ++i) request.add_seats();
    absl::StatusOr<v1::CreateMatchResponse> created =
        lobby_->CreateMatch(request);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? created->match_id() : "";
  }

  // Waits (up to 30 s) until the match has ended and its end is announced:
  // what the lobby does at the end (the transparency log) is done.
  void AwaitEnd(const std::string& match_id) {
    std::shared_ptr<MatchHost> host = lobby_->FindMatch(match_id);
    ASSERT_NE(host, nullptr);
    const auto give_up =
        std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (host->Info(lobby_->connections()).status() == v1::MATCH_RUNNING &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_NE(host->Info(lobby_->connections()).status(), v1::MATCH_RUNNING)
        << match_id;
  }

  // A match whose seat 0 is `bot_id` (none when empty) and whose seats
  // forfeit when they have not committed the seed within `seed_timeout_ms`.
  std::string CreateWithBot(const std::string& bot_id,
                            uint32_t seed_timeout_ms) {
    v1::CreateMatchRequest request;
    request.mutable_game()->set_game("rock_paper_pyramid");
    request.add_seats()->set_bot_id(bot_id);
    for (int i = 1; i < 3; ++i) request.add_seats();
    request.mutable_clocks()->set_seed_timeout_ms(seed_timeout_ms);
    request.set_forfeit_policy(v1::FORFEIT_POLICY_FORFEIT);
    absl::StatusOr<v1::CreateMatchResponse> created =
        lobby_->CreateMatch(request);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? created->match_id() : "";
  }

  // The registry of a referee whose data is in the test's directory.
  std::shared_ptr<Registry> OpenRegistry() {
    absl::StatusOr<std::unique_ptr<Registry>> opened =
        OpenSqliteRegistry(dir_.File("registry.db"));
    EXPECT_TRUE(opened.ok()) << opened.status();
    return opened.ok() ? *std::move(opened) : nullptr;
  }

  // The options of a lobby on the test's directory, recording into
  // `registry` and signing with `key`.
  LobbyOptions OptionsOn(std::shared_ptr<Registry> registry,
                         const SigningKey& key) const {
    LobbyOptions options;
    options.referee_key = key;
    options.log_dir = dir_.path();
    options.admin_token = std::string(32, 'a');
    options.registry = std::move(registry);
    options.unique_labels = unique_labels_;
    return options;
  }

  // Replaces the lobby with one on the same directory, recording into
  // `registry` and signing with `key`, that recovers what `registry` holds;
  // returns what it found.
  RecoveryReport Restart(std::shared_ptr<Registry> registry,
                         const SigningKey& key, int max_live_matches = 0,
                         absl::Duration checkpoint_every = absl::Seconds(60)) {
    LobbyOptions options = OptionsOn(std::move(registry), key);
    options.checkpoint_every = checkpoint_every;
    options.max_live_matches = max_live_matches;
    options.messages = messages_;
    lobby_.reset();
    lobby_ = std::make_unique<Lobby>(std::move(options));
    absl::StatusOr<RecoveryReport> recovered = lobby_->Recover();
    EXPECT_TRUE(recovered.ok()) << recovered.status();
    return recovered.ok() ? *recovered : RecoveryReport();
  }

  // The matches StopWithAnEndedAndARunningMatch leaves in the registry.
  struct EndedAndRunning {
    std::string ended;
    std::string running;  // Its seats' seed timeout a minute away.
  };

  // Restarts on `registry` and `key`, ends one match, starts another and
  // stops the lobby: the next Restart finds both in `registry`.
  EndedAndRunning StopWithAnEndedAndARunningMatch(
      std::shared_ptr<Registry> registry, const SigningKey& key) {
    Restart(std::move(registry), key);
    EndedAndRunning matches;
    matches.ended = CreateWithBot("", 50);
    AwaitEnd(matches.ended);
    matches.running = CreateWithBot("", 60000);
    lobby_.reset();
    return matches;
  }

  // Runs the SQL `format` on the registry's database in the test's
  // directory (to write rows as a damaged or older referee left them),
  // each %Q replaced by the next of `values`, quoted; expects it to run.
  template <typename... Values>
  void EditRegistry(const char* format, const Values&... values) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(dir_.File("registry.db").c_str(), &db), SQLITE_OK);
    char* sql = sqlite3_mprintf(format, values.c_str()...);
    EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_free(sql);
    sqlite3_close(db);
  }

  // Makes Restart's lobbies say what no client is told to the test (read
  // by TakeSaid) instead of stderr.
  void KeepWhatIsSaid() {
    messages_ = [this](std::string_view message) {
      absl::MutexLock lock(&said_mu_);
      said_.emplace_back(message);
    };
  }

  // What the lobbies said since KeepWhatIsSaid or the last TakeSaid.
  std::vector<std::string> TakeSaid() {
    absl::MutexLock lock(&said_mu_);
    return std::exchange(said_, {});
  }

  // The ids listed, and the next page token.
  std::pair<std::vector<std::string>, std::string> List(
      uint32_t page_size, const std::string& page_token = "",
      v1::MatchStatus status = v1::MATCH_STATUS_UNSPECIFIED) {
    v1::ListMatchesRequest request;
    request.set_page_size(page_size);
    request.set_page_token(page_token);
    request.set_status(status);
    absl::StatusOr<v1::ListMatchesResponse> response =
        lobby_->ListMatches(request);
    EXPECT_TRUE(response.ok()) << response.status();
    std::vector<std::string> ids;
    if (!response.ok()) return {ids, ""};
    for (const v1::MatchInfo& info : response->matches()) {
      ids.push_back(info.match_id());
    }
    return {ids, response->next_page_token()};
  }

  TempDir dir_{"lobbytest"};  // Removed after the lobby is gone.
  MessageSink messages_;      // What Restart gives the lobby (empty: stderr).
  absl::Mutex said_mu_;
  std::vector<std::string> said_ ABSL_GUARDED_BY(said_mu_);  // See TakeSaid.
  bool unique_labels_ = false;  // What Restart's lobbies take.
  std::unique_ptr<Lobby> lobby_;
};

// The registry names a log by its file name, which the lobby resolves
// against its own log directory: a row an older referee wrote with a path
// (another directory's: a data directory since moved, or the original of a
// copy, whose logs are here too) is read by its file name alone, so the
// lobby never opens the other directory's log, for a running match or an
// ended one.
TEST_F(LobbyTest, ALogIsFoundByItsFileNameInTheLobbysLogDirectory) {
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  const SigningKey key = SigningKey::Generate();
  const auto [ended, running] = StopWithAnEndedAndARunningMatch(registry, key);
  absl::StatusOr<StoredMatch> stored = registry->FindMatch(running);
  ASSERT_TRUE(stored.ok()) << stored.status();
  const std::string name = stored->log_name;
  EXPECT_EQ(name.find('/'), std::string::npos) << name;
  // The other directory holds a copy of each log, under the same name.
  const std::string elsewhere = dir_.File("elsewhere");
  std::filesystem::create_directories(elsewhere);
  std::map<std::string, std::string> file_of;  // Match -> its log's name.
  for (const std::string& id : {ended, running}) {
    const std::string& file = file_of[id] = registry->FindMatch(id)->log_name;
    std::filesystem::copy_file(dir_.File(file), elsewhere + "/" + file);
  }
  ASSERT_NO_FATAL_FAILURE(EditRegistry(
      "UPDATE matches SET log_name = %Q || '/' || log_name;", elsewhere));
  ASSERT_EQ(registry->FindMatch(running)->log_name, elsewhere + "/" + name);

  const RecoveryReport report = Restart(registry, key);
  EXPECT_EQ(report.resumed, 1);
  EXPECT_EQ(report.broken, 0);
  for (const std::string& id : {ended, running}) {
    std::shared_ptr<MatchHost> host = lobby_->FindMatch(id);
    ASSERT_NE(host, nullptr) << id;
    EXPECT_EQ(host->log_path(), dir_.File(file_of[id])) << id;
  }
}

// A registry entry whose log name is no file's ("", a path ending in '/':
// a damaged row) names no log: its running match ends broken saying so,
// its ended one is served without its log, and no file is opened, removed
// or marked in their names. (A made-up name once stood for the log: a start
// read the file of that name, if any, as a creation cut short, removed it
// and forgot the match; an ended one's was made public.)
TEST_F(LobbyTest, AnEntryNamingNoLogFileIsSaidAndTouchesNoFile) {
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  const SigningKey key = SigningKey::Generate();
  const auto [ended, running] = StopWithAnEndedAndARunningMatch(registry, key);
  const std::string made_up =
      dir_.File("(a registry entry naming no log file)");
  std::ofstream(made_up) << "not a log";
  namespace fs = std::filesystem;
  fs::permissions(made_up, fs::perms::owner_read | fs::perms::owner_write);
  ASSERT_NO_FATAL_FAILURE(EditRegistry(
      "UPDATE matches SET log_name = 'logs/' WHERE match_id IN (%Q, %Q);",
      ended, running));
  KeepWhatIsSaid();

  const RecoveryReport report = Restart(registry, key);
  EXPECT_EQ(report.forgotten, 0);
  EXPECT_EQ(report.resumed, 0);
  EXPECT_EQ(report.broken, 1);
  EXPECT_EQ(report.finished, 1);
  absl::StatusOr<StoredMatch> stored = registry->FindMatch(running);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->info.status(), v1::MATCH_BROKEN);
  EXPECT_THAT(stored->info.broken_reason(),
              ::testing::HasSubstr(absl::StrCat(
                  "cannot resume after a restart: the registry's entry of "
                  "match ",
                  running, " names no log file (it holds \"logs/\")")));
  EXPECT_THAT(TakeSaid(),
              ::testing::Contains(absl::StrCat(
                  "match ", ended, ": the registry's entry of match ", ended,
                  " names no log file (it holds \"logs/\"); its log "
                  "is not served")));
  for (const std::string& id : {ended, running}) {
    std::shared_ptr<MatchHost> host = lobby_->FindMatch(id);
    ASSERT_NE(host, nullptr) << id;
    EXPECT_EQ(host->log_path(), "") << id;
  }
  std::ifstream in(made_up);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "not a log");
  EXPECT_EQ(fs::status(made_up).permissions(),
            fs::perms::owner_read | fs::perms::owner_write);
}

// What the lobby says that no client is told goes where its options say,
// and nothing to stderr: here, that a running match whose log is marked
// broken is not resumed at a restart.
TEST_F(LobbyTest, SaysWhatNoClientIsToldWhereItsOptionsSay) {
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  const SigningKey key = SigningKey::Generate();
  Restart(registry, key);
  const std::string match_id = CreateWithBot("", 60000);
  const std::string log_path = lobby_->FindMatch(match_id)->log_path();
  lobby_.reset();
  ASSERT_TRUE(MarkLogBroken(log_path).ok());
  KeepWhatIsSaid();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(Restart(registry, key).broken, 1);
  lobby_.reset();  // Says nothing more.
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  const std::vector<std::string> said = TakeSaid();
  ASSERT_EQ(said.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(
      said[0],
      absl::StrCat("match ", match_id, ": broke before the referee stopped")))
      << said[0];
}

// A Principal made without naming its kind speaks for nobody: it is not
// the admin, and no match has a seat for it.
TEST_F(LobbyTest, ADefaultPrincipalHasNoRights) {
  const Principal nobody;
  EXPECT_NE(nobody.kind, Principal::Kind::kAdmin);
  EXPECT_NE(nobody.kind, Principal::Kind::kSeat);
  EXPECT_NE(nobody.kind, Principal::Kind::kBot);
  Create();
  EXPECT_TRUE(lobby_->SeatsOf(nobody).empty());
}

TEST_F(LobbyTest, ListsNewestFirstInPagesThatStayStable) {
  const std::string a = Create(), b = Create(), c = Create();
  const auto [first, token] = List(2);
  EXPECT_EQ(first, std::vector<std::string>({c, b}));
  ASSERT_FALSE(token.empty());
  const std::string d = Create();  // Does not shift the next page.
  const auto [second, last_token] = List(2, token);
  EXPECT_EQ(second, std::vector<std::string>({a}));
  EXPECT_TRUE(last_token.empty());
  EXPECT_EQ(List(10).first, std::vector<std::string>({d, c, b, a}));
}

TEST_F(LobbyTest, FiltersByStatusAndRefusesBadPageTokens) {
  const std::string a = Create(), b = Create();
  EXPECT_EQ(List(10, "", v1::MATCH_RUNNING).first,
            std::vector<std::string>({b, a}));
  EXPECT_TRUE(List(10, "", v1::MATCH_FINISHED).first.empty());
  // Only a token as ListMatches gives one: no sign, blank or leading zero.
  for (const char* token : {"x", "0", "-1", " 5", "5 ", "+5", "05"}) {
    v1::ListMatchesRequest request;
    request.set_page_token(token);
    EXPECT_EQ(lobby_->ListMatches(request).status().code(),
              absl::StatusCode::kInvalidArgument)
        << token;
  }
}

// An unknown status filter is refused as an unknown forfeit policy is, not
// answered with an empty list.
TEST_F(LobbyTest, AnUnknownStatusFilterIsRefused) {
  Create();
  for (const int status : {77, -5}) {
    v1::ListMatchesRequest request;
    request.set_status(static_cast<v1::MatchStatus>(status));
    const absl::Status refused = lobby_->ListMatches(request).status();
    EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << refused;
    EXPECT_TRUE(absl::StrContains(
        refused.message(), absl::StrCat("unknown match status ", status)))
        << refused;
  }
}

// A seat or bot key no signature verifies by (not a point's canonical
// encoding, or a point of small order) is refused where it is given, not
// accepted to have every commit of the seat refused.
TEST_F(LobbyTest, AKeyNoSignatureVerifiesByIsRefused) {
  const std::string refused_keys[] = {
      std::string(32, '\xff'), std::string(32, '\0'),
      std::string("\x01") + std::string(31, '\0')};
  for (const std::string& key : refused_keys) {
    v1::CreateMatchRequest request;
    request.mutable_game()->set_game("rock_paper_pyramid");
    for (int i = 0; i < 3; ++i) {
      request.add_seats()->set_public_key(
          i == 1 ? key : SigningKey::Generate().public_key());
    }
    const absl::Status created = lobby_->CreateMatch(request).status();
    EXPECT_EQ(created.code(), absl::StatusCode::kInvalidArgument) << created;
    EXPECT_TRUE(absl::StrContains(created.message(),
                                  "seat 1: public key " + ToHex(key)))
        << created;
    EXPECT_TRUE(
        absl::StrContains(created.message(), "not a valid Ed25519 public key"))
        << created;

    v1::RegisterBotRequest registration;
    registration.set_name("badkey");
    registration.set_public_key(key);
    const absl::Status registered = lobby_->RegisterBot(registration).status();
    EXPECT_EQ(registered.code(), absl::StatusCode::kInvalidArgument)
        << registered;
    EXPECT_TRUE(absl::StrContains(registered.message(), "bot \"badkey\""))
        << registered;
    EXPECT_TRUE(absl::StrContains(registered.message(),
                                  "not a valid Ed25519 public key"))
        << registered;
  }
  EXPECT_TRUE(List(10).first.empty());
  // A real key is taken, by both.
  v1::RegisterBotRequest registration;
  registration.set_name("goodkey");
  registration.set_public_key(SigningKey::Generate().public_key());
  EXPECT_TRUE(lobby_->RegisterBot(registration).ok());
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) {
    request.add_seats()->set_public_key(SigningKey::Generate().public_key());
  }
  EXPECT_TRUE(lobby_->CreateMatch(request).ok());
}

// A name or label every tool would show escaped (a control, bidirectional
// or invisible character: one that could clear a terminal, forge a line or
// pass for another name) is refused, naming it escaped; names in any
// script are taken as written.
TEST_F(LobbyTest, NamesAndLabelsThatShowOnlyEscapedAreRefused) {
  for (const std::string& bad :
       {std::string("\x1b[2Jgenuine"), std::string("a\r\nverdict: genuine"),
        std::string("rev\xe2\x80\xae"
                    "esrever"),
        std::string("heuristic\xe2\x80\x8b"), std::string("nul\0", 4),
        std::string("alice\xe3\x85\xa4")}) {  // U+3164, a Hangul filler.
    v1::CreateMatchRequest request;
    request.mutable_game()->set_game("rock_paper_pyramid");
    for (int i = 0; i < 3; ++i)
      request.add_seats()->set_name(i == 2 ? bad : "ok");
    absl::Status created = lobby_->CreateMatch(request).status();
    EXPECT_EQ(created.code(), absl::StatusCode::kInvalidArgument) << created;
    EXPECT_TRUE(absl::StartsWith(created.message(),
                                 "seat 2's name " + QuotedText(bad) + " holds"))
        << created;
    for (v1::SeatSpec& seat : *request.mutable_seats()) seat.set_name("ok");
    request.set_label(bad);
    created = lobby_->CreateMatch(request).status();
    EXPECT_EQ(created.code(), absl::StatusCode::kInvalidArgument) << created;
    EXPECT_TRUE(absl::StartsWith(created.message(), "label " + QuotedText(bad)))
        << created;
    v1::RegisterBotRequest registration;
    registration.set_name(bad);
    const absl::Status registered = lobby_->RegisterBot(registration).status();
    EXPECT_EQ(registered.code(), absl::StatusCode::kInvalidArgument)
        << registered;
    EXPECT_TRUE(
        absl::StartsWith(registered.message(), "bot name " + QuotedText(bad)))
        << registered;
    request.set_label("ok");
    request.set_request_id(bad);  // Shown by refctl, as names are.
    created = lobby_->CreateMatch(request).status();
    EXPECT_EQ(created.code(), absl::StatusCode::kInvalidArgument) << created;
    EXPECT_TRUE(
        absl::StartsWith(created.message(), "request_id " + QuotedText(bad)))
        << created;
  }
  EXPECT_TRUE(List(10).first.empty());
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (const char* name :
       {"Zo\xc3\xab", "\xe5\x90\x8d\xe4\xba\xba", "tab free"}) {
    request.add_seats()->set_name(name);
  }
  request.set_label("cup/2026 \xe2\x80\x94 round 1");
  EXPECT_TRUE(lobby_->CreateMatch(request).ok());
}

// A bot's seat count (its stream's queue bound and flood allowance) does
// not keep every match it ever played: once its list has doubled since the
// last prune, the seats of ended matches go.
TEST_F(LobbyTest, ABotsSeatCountForgetsEndedMatches) {
  v1::RegisterBotRequest registration;
  registration.set_name("pruned");
  absl::StatusOr<v1::RegisterBotResponse> bot =
      lobby_->RegisterBot(registration);
  ASSERT_TRUE(bot.ok()) << bot.status();
  const std::string& id = bot->bot_id();

  std::vector<std::string> ended;
  for (int i = 0; i < 100; ++i) ended.push_back(CreateWithBot(id, 50));
  for (const std::string& match_id : ended) AwaitEnd(match_id);
  // Counted until the next prune.
  EXPECT_EQ(lobby_->BotSeatCount(id), 100u);
  // The 128th seat (twice the smallest pruned size, 64) prunes the list:
  // what stays are the 28 running matches.
  for (int i = 0; i < 27; ++i) CreateWithBot(id, 60'000);
  EXPECT_EQ(lobby_->BotSeatCount(id), 127u);
  CreateWithBot(id, 60'000);
  EXPECT_EQ(lobby_->BotSeatCount(id), 28u);
}

// The transparency log refuses an entry for a while (a reader holds its
// database's write lock past SQLite's 5 s busy timeout): the entry is not
// left to the next start, but made once the lock is gone, at the next
// match's end and before that match's own.
TEST_F(LobbyTest, AnEntryThatFailedIsMadeBeforeTheNext) {
  std::shared_ptr<TransparencyLog> tree;
  std::string first;
  ASSERT_NO_FATAL_FAILURE(StartAndEndAMatchWhileTheTreeIsLocked(&tree, &first));
  EXPECT_EQ(lobby_->FindMatch(first)->Info(lobby_->connections()).status(),
            v1::MATCH_FINISHED);

  const std::string second = CreateWithBot("", 50);
  AwaitEnd(second);
  absl::StatusOr<TlogLeaf> a = tree->FindLeaf(first);
  absl::StatusOr<TlogLeaf> b = tree->FindLeaf(second);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->index, 0u);
  EXPECT_EQ(b->index, 1u);
}

// A log whose entry failed (its database locked) and that still waits when
// the latest checkpoint is asked for (no match ended since, no checkpointer
// round) is entered first: the latest checkpoint covers it, as a
// tournament's final one must. A checkpoint of a given size enters none.
TEST_F(LobbyTest, TheLatestCheckpointEntersTheLogsStillWaiting) {
  std::shared_ptr<TransparencyLog> tree;
  std::string match;
  ASSERT_NO_FATAL_FAILURE(StartAndEndAMatchWhileTheTreeIsLocked(&tree, &match));

  absl::StatusOr<TransparencyLog*> of_size = lobby_->TlogAsOf(1);
  ASSERT_TRUE(of_size.ok()) << of_size.status();
  EXPECT_TRUE(absl::IsNotFound((*of_size)->Checkpoint(1).status()));
  EXPECT_FALSE(tree->Contains(match));
  absl::StatusOr<TransparencyLog*> as_of_latest = lobby_->TlogAsOf(0);
  ASSERT_TRUE(as_of_latest.ok()) << as_of_latest.status();
  absl::StatusOr<std::string> latest = (*as_of_latest)->Checkpoint(0);
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_TRUE(tree->Contains(match));
  EXPECT_EQ(tree->unsigned_leaves(), 0u);
  absl::StatusOr<std::string> of_one = tree->Checkpoint(1);
  ASSERT_TRUE(of_one.ok()) << of_one.status();
  EXPECT_EQ(*latest, *of_one);
}

// The same through the service: an inclusion proof against the latest tree
// (GetInclusionProof with tree_size 0) finds the log still waiting for its
// entry, as GetCheckpoint's latest covers it; against a given size it is
// not looked for in the waiting logs, and the finished match's proof is
// refused UNAVAILABLE, to be asked again (NOT_FOUND, an unknown match's
// answer, read as for good).
TEST_F(LobbyTest, AnInclusionProofAgainstTheLatestTreeEntersTheLogsWaiting) {
  std::shared_ptr<TransparencyLog> tree;
  std::string match;
  ASSERT_NO_FATAL_FAILURE(StartAndEndAMatchWhileTheTreeIsLocked(&tree, &match));

  RefereeService service(lobby_.get());
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  service.RegisterWith(builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ASSERT_NE(port, 0);
  service.Start();
  const auto stop = absl::MakeCleanup([&] {
    server->Shutdown(std::chrono::system_clock::now() +
                     std::chrono::seconds(2));
    server->Wait();
    service.Stop();
  });
  std::unique_ptr<v1::Referee::Stub> stub = v1::Referee::NewStub(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                          grpc::InsecureChannelCredentials()));

  v1::GetInclusionProofRequest request;
  request.set_match_id(match);
  request.set_tree_size(1);
  {
    grpc::ClientContext context;
    v1::InclusionProof proof;
    const grpc::Status status =
        stub->GetInclusionProof(&context, request, &proof);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE)
        << status.error_message();
    EXPECT_TRUE(
        absl::StrContains(status.error_message(),
                          "its entry in the transparency log is not made yet"))
        << status.error_message();
    EXPECT_FALSE(tree->Contains(match));
  }
  request.set_tree_size(0);
  grpc::ClientContext context;
  v1::InclusionProof proof;
  const grpc::Status status =
      stub->GetInclusionProof(&context, request, &proof);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(proof.match_id(), match);
  EXPECT_EQ(proof.leaf_index(), 0u);
  EXPECT_EQ(proof.tree_size(), 1u);
  absl::StatusOr<std::string> of_one = tree->Checkpoint(1);
  ASSERT_TRUE(of_one.ok()) << of_one.status();
  EXPECT_EQ(proof.checkpoint(), *of_one);
}

// A CreateMatch retried with its request_id (its answer lost) creates no
// second match, before and after a restart; a request_id cannot be reused
// for another match, nor answer again the tokens it gave once.
TEST_F(LobbyTest, ARetriedCreateMatchCreatesNothingMore) {
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  const SigningKey key = SigningKey::Generate();
  Restart(registry, key);
  v1::RegisterBotRequest registration;
  registration.set_name("retry");
  absl::StatusOr<v1::RegisterBotResponse> bot =
      lobby_->RegisterBot(registration);
  ASSERT_TRUE(bot.ok()) << bot.status();

  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) request.add_seats()->set_bot_id(bot->bot_id());
  request.mutable_clocks()->set_seed_timeout_ms(60'000);
  request.set_request_id("attempt-1");
  request.set_label("cup/run/0");
  absl::StatusOr<v1::CreateMatchResponse> first = lobby_->CreateMatch(request);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<v1::CreateMatchResponse> again = lobby_->CreateMatch(request);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->match_id(), first->match_id());
  EXPECT_EQ(again->seat_tokens_size(), 3);
  EXPECT_EQ(List(10).first, std::vector<std::string>({first->match_id()}));
  EXPECT_EQ(lobby_->FindMatch(first->match_id())
                ->Info(lobby_->connections())
                .request_id(),
            "attempt-1");
  // The label too, as the log's header has it (a label that stands twice
  // shows in ListMatches).
  EXPECT_EQ(
      lobby_->FindMatch(first->match_id())->Info(lobby_->connections()).label(),
      "cup/run/0");

  // A retry must ask for the same match: game and options, seats (bots and
  // names), clocks when it sets them, forfeit policy, label.
  const auto refused = [&](const v1::CreateMatchRequest& changed,
                           const char* why) {
    absl::StatusOr<v1::CreateMatchResponse> answer =
        lobby_->CreateMatch(changed);
    EXPECT_EQ(answer.status().code(), absl::StatusCode::kFailedPrecondition)
        << why;
    EXPECT_TRUE(absl::StrContains(answer.status().message(), why))
        << answer.status();
  };
  v1::CreateMatchRequest changed = request;
  changed.mutable_game()->mutable_rock_paper_pyramid()->set_red(true);
  refused(changed, "other game options");
  changed = request;
  changed.mutable_seats(2)->set_name("someone else");
  refused(changed, "other seats");
  changed = request;
  changed.mutable_clocks()->set_commit_timeout_ms(1234);
  refused(changed, "other clocks");
  changed = request;
  changed.mutable_clocks()->set_seed_timeout_ms(30'000);
  refused(changed, "other clocks");
  changed = request;
  changed.set_forfeit_policy(v1::FORFEIT_POLICY_DEFAULT_ACTION);
  refused(changed, "another forfeit policy");
  changed = request;
  changed.set_label("cup/run/9");  // The log's signed header holds it.
  refused(changed, "another label");
  v1::CreateMatchRequest other = request;
  other.mutable_seats(1)->clear_bot_id();
  refused(other, "other seats");
  EXPECT_EQ(List(10).first.size(), 1u);
  other.set_request_id("attempt-2");  // A seat played by token.
  absl::StatusOr<v1::CreateMatchResponse> tokened = lobby_->CreateMatch(other);
  ASSERT_TRUE(tokened.ok()) << tokened.status();
  EXPECT_FALSE(tokened->seat_tokens(1).empty());
  EXPECT_EQ(lobby_->CreateMatch(other).status().code(),
            absl::StatusCode::kAlreadyExists);
  request.set_request_id(std::string(129, 'x'));
  EXPECT_EQ(lobby_->CreateMatch(request).status().code(),
            absl::StatusCode::kInvalidArgument);

  // A match whose log is gone at the restart (the referee was killed
  // between recording the match and writing its log) is forgotten: its
  // request_id then creates a new match. (It was ended broken, and listed
  // so for good.)
  v1::CreateMatchRequest lost = request;
  lost.set_request_id("attempt-3");
  absl::StatusOr<v1::CreateMatchResponse> unplayable =
      lobby_->CreateMatch(lost);
  ASSERT_TRUE(unplayable.ok()) << unplayable.status();
  const std::string unplayable_log =
      lobby_->FindMatch(unplayable->match_id())->log_path();

  lobby_.reset();
  // As that kill leaves it: not marked acknowledged, no log.
  EditRegistry("UPDATE matches SET acknowledged = 0 WHERE match_id = %Q;",
               unplayable->match_id());
  std::filesystem::remove(unplayable_log);
  Restart(registry, key);  // The registry remembers the request.
  EXPECT_EQ(lobby_->FindMatch(first->match_id())
                ->Info(lobby_->connections())
                .status(),
            v1::MATCH_RUNNING);
  request.set_request_id("attempt-1");
  absl::StatusOr<v1::CreateMatchResponse> after = lobby_->CreateMatch(request);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->match_id(), first->match_id());
  EXPECT_EQ(List(10).first.size(), 2u);
  EXPECT_EQ(lobby_->FindMatch(unplayable->match_id()), nullptr);
  EXPECT_TRUE(
      absl::IsNotFound(registry->FindMatch(unplayable->match_id()).status()));
  absl::StatusOr<v1::CreateMatchResponse> replayed = lobby_->CreateMatch(lost);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_NE(replayed->match_id(), unplayable->match_id());
  EXPECT_EQ(lobby_->CreateMatch(lost)->match_id(), replayed->match_id());
}

// At --max_live_matches, CreateMatch is refused until a match ends; a
// creation that fails gives its place back.
TEST_F(LobbyTest, RefusesMatchesBeyondTheLiveLimitUntilOneEnds) {
  const std::string logs = dir_.File("logs");
  ASSERT_TRUE(std::filesystem::create_directory(logs));
  LobbyOptions options;
  options.log_dir = logs;
  options.admin_token = std::string(32, 'a');
  options.max_live_matches = 2;
  lobby_ = std::make_unique<Lobby>(std::move(options));

  // Its seats forfeit the seed after 2 s: it ends then.
  const std::string ending = CreateWithBot("", 2'000);
  CreateWithBot("", 600'000);
  EXPECT_EQ(lobby_->live_matches(), 2);
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) request.add_seats();
  const absl::Status refused = lobby_->CreateMatch(request).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(refused.message(),
            "the referee's limit of live matches is reached "
            "(--max_live_matches=2, 2 live); try again when one ends");
  EXPECT_EQ(List(10).first.size(), 2u);  // Nothing was created.

  AwaitEnd(ending);
  EXPECT_EQ(lobby_->live_matches(), 1);
  // The log directory is gone: the creation fails, and its place is free
  // again.
  std::filesystem::rename(logs, logs + ".away");
  EXPECT_FALSE(lobby_->CreateMatch(request).ok());
  EXPECT_EQ(lobby_->live_matches(), 1);
  std::filesystem::rename(logs + ".away", logs);
  Create();
  EXPECT_EQ(lobby_->live_matches(), 2);
  EXPECT_EQ(lobby_->CreateMatch(request).status().code(),
            absl::StatusCode::kUnavailable);
}

// The matches a restart resumes are live whatever the limit: new ones wait
// until they are under it.
TEST_F(LobbyTest, ResumedMatchesCountAgainstTheLiveLimit) {
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  const SigningKey key = SigningKey::Generate();
  Restart(registry, key);
  Create();
  Create();
  EXPECT_EQ(Restart(registry, key, /*max_live_matches=*/1).resumed, 2);
  EXPECT_EQ(lobby_->live_matches(), 2);
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) request.add_seats();
  EXPECT_EQ(lobby_->CreateMatch(request).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(Restart(registry, key, /*max_live_matches=*/3).resumed, 2);
  Create();
  EXPECT_EQ(lobby_->live_matches(), 3);
}

// A running match whose log a start cannot open for want of a file
// descriptor (a hard open-file limit below the matches to resume) fails
// the start RESOURCE_EXHAUSTED, naming the match and the remedy, and
// leaves the match as it was: a start with descriptors resumes it. (It was
// ended broken for good, "no log (the referee stopped while creating the
// match)".)
TEST_F(LobbyTest, AStartWithoutDescriptorsForALogFailsAndKeepsTheMatch) {
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  const SigningKey key = SigningKey::Generate();
  Restart(registry, key);
  const std::string match = Create();
  // Resumed once with descriptors to spare: UBSan's vptr check knows the
  // path's types before none is left (tests/no_descriptor_left.h).
  EXPECT_EQ(Restart(registry, key).resumed, 1);
  lobby_.reset();
  LobbyOptions options;
  options.referee_key = key;
  options.log_dir = dir_.path();
  options.admin_token = std::string(32, 'a');
  options.registry = registry;
  options.messages = messages_;
  auto lobby = std::make_unique<Lobby>(std::move(options));
  absl::StatusOr<RecoveryReport> recovered;
  {
    const NoDescriptorLeft none;
    ASSERT_TRUE(none.ok());
    recovered = lobby->Recover();
  }
  lobby.reset();
  EXPECT_EQ(recovered.status().code(), absl::StatusCode::kResourceExhausted)
      << recovered.status();
  EXPECT_THAT(recovered.status().message(), ::testing::HasSubstr(match));
  EXPECT_THAT(recovered.status().message(), ::testing::HasSubstr("ulimit -n"));
  EXPECT_EQ(registry->FindMatch(match)->info.status(), v1::MATCH_RUNNING);

  EXPECT_EQ(Restart(registry, key).resumed, 1);
  EXPECT_EQ(lobby_->FindMatch(match)->Info(lobby_->connections()).status(),
            v1::MATCH_RUNNING);
}

// A watcher whose first event blocks until released: while it blocks, it
// holds its match's lock (AddWatcher sends under it).
class BlockingWatcher final : public WatchSink {
 public:
  void Send(SerializedMessage) override {
    if (!entered_.HasBeenNotified()) entered_.Notify();
    release_.WaitForNotification();
  }
  void Close(int, std::string) override {}
  absl::Notification& entered() { return entered_; }
  void Release() {
    if (!release_.HasBeenNotified()) release_.Notify();
  }

 private:
  absl::Notification entered_;
  absl::Notification release_;
};

// A retried CreateMatch reads its match's info without the lobby's lock: a
// retry whose match is busy (its end being entered in the transparency
// log, or here a watcher holding its lock) waits for that match alone,
// and the lobby creates other matches meanwhile.
TEST_F(LobbyTest, ARetriedCreateMatchWaitsForItsMatchAlone) {
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) request.add_seats();
  request.set_request_id("busy");
  absl::StatusOr<v1::CreateMatchResponse> first = lobby_->CreateMatch(request);
  ASSERT_TRUE(first.ok()) << first.status();
  std::shared_ptr<MatchHost> host = lobby_->FindMatch(first->match_id());
  ASSERT_NE(host, nullptr);

  auto watcher = std::make_shared<BlockingWatcher>();
  std::thread watching([&] { (void)host->AddWatcher(watcher, 10); });
  watcher->entered().WaitForNotification();  // The match's lock is held.
  absl::StatusOr<v1::CreateMatchResponse> retried;
  std::thread retry([&] { retried = lobby_->CreateMatch(request); });
  // Let the retry reach the busy match (it then waits on its lock).
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  absl::Notification created;
  std::string other;
  std::thread create([&] {
    other = Create();
    created.Notify();
  });
  // Not a timing check: with the lobby's lock held by the retry, the new
  // match would wait until the watcher is released, which happens only
  // after this.
  const bool in_time =
      created.WaitForNotificationWithTimeout(absl::Seconds(20));
  watcher->Release();
  create.join();
  retry.join();
  watching.join();
  EXPECT_TRUE(in_time) << "a match could not be created while a retried "
                          "CreateMatch waited for its busy match";
  EXPECT_FALSE(other.empty());
  EXPECT_NE(other, first->match_id());
  // The retry is answered once the match is free: the seats are played by
  // token, and their tokens were given in the first answer only.
  EXPECT_EQ(retried.status().code(), absl::StatusCode::kAlreadyExists)
      << retried.status();
}

}  // namespace
}  // namespace pyramid

namespace pyramid {
namespace {

// A seat's Play stream in memory: keeps the messages it takes.
class SeatSink final : public PlaySink {
 public:
  void Send(SerializedMessage bytes) override {
    v1::PlayResponse message;
    EXPECT_TRUE(bytes.ParseTo(message));
    absl::MutexLock lock(&mu_);
    messages_.push_back(std::move(message));
  }
  void Close(int, std::string) override {}
  std::vector<v1::PlayResponse> messages() const {
    absl::MutexLock lock(&mu_);
    return messages_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<v1::PlayResponse> messages_;
};

// What a seat that connects with `token` is told: its stream is attached,
// and its matches resume it, as a Play stream's start does.
std::vector<v1::PlayResponse> ConnectSeat(Lobby& lobby,
                                          const std::string& token) {
  std::optional<Principal> principal = lobby.Authenticate(token);
  EXPECT_TRUE(principal.has_value());
  if (!principal) return {};
  auto sink = std::make_shared<SeatSink>();
  lobby.connections().Attach(principal->route, sink);
  for (const auto& [host, seat] : lobby.SeatsOf(*principal)) {
    host->SendOwedTo(seat);
  }
  lobby.connections().Detach(principal->route, sink.get());
  return sink->messages();
}

// Once a match has ended, the lobby lets its host go and keeps a compact
// record, from which it answers as the host did: its info, its log, its
// place in the list, and a seat that connects is told the outcome; after a
// restart too, where a match that cannot be resumed is broken and its seat
// told why.
TEST_F(LobbyTest, AnEndedMatchIsKeptCompactlyAndServedAsBefore) {
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  const SigningKey key = SigningKey::Generate();
  Restart(registry, key);
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) request.add_seats();
  absl::StatusOr<v1::CreateMatchResponse> left_running =
      lobby_->CreateMatch(request);
  ASSERT_TRUE(left_running.ok()) << left_running.status();
  const std::string running = left_running->match_id();
  const std::string running_token = left_running->seat_tokens(0);
  request = v1::CreateMatchRequest();
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) request.add_seats();
  request.mutable_clocks()->set_seed_timeout_ms(50);
  absl::StatusOr<v1::CreateMatchResponse> created =
      lobby_->CreateMatch(request);
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string id = created->match_id();
  std::weak_ptr<MatchHost> host = lobby_->FindMatch(id);
  const std::string log_path = lobby_->FindMatch(id)->log_path();
  AwaitEnd(id);
  v1::MatchInfo at_end = lobby_->FindMatch(id)->Info(lobby_->connections());
  ASSERT_EQ(at_end.status(), v1::MATCH_FINISHED);
  ASSERT_EQ(at_end.outcome().seats_size(), 3);

  // Let go: only its callers held it (a sync's callback, briefly).
  for (auto give_up =
           std::chrono::steady_clock::now() + std::chrono::seconds(5);
       !host.expired() && std::chrono::steady_clock::now() < give_up;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(host.expired());
  EXPECT_NE(lobby_->FindMatch(running), nullptr);
  EXPECT_EQ(lobby_->FindMatch("no such match"), nullptr);

  for (int restarted = 0; restarted < 2; ++restarted) {
    SCOPED_TRACE(restarted ? "after a restart" : "before a restart");
    std::shared_ptr<MatchHost> ended = lobby_->FindMatch(id);
    ASSERT_NE(ended, nullptr);
    EXPECT_EQ(ended->log_path(), log_path);
    EXPECT_EQ(ended->Info(lobby_->connections()).SerializeAsString(),
              at_end.SerializeAsString());
    EXPECT_EQ(List(10).first, std::vector<std::string>({id, running}));
    EXPECT_EQ(List(10, "", v1::MATCH_FINISHED).first,
              std::vector<std::string>({id}));
    EXPECT_EQ(List(10, "", v1::MATCH_RUNNING).first,
              restarted ? std::vector<std::string>()
                        : std::vector<std::string>({running}));
    EXPECT_EQ(List(10, "", v1::MATCH_BROKEN).first,
              restarted ? std::vector<std::string>({running})
                        : std::vector<std::string>());
    EXPECT_EQ(List(1, List(1).second).first,
              std::vector<std::string>({running}));
    const std::vector<v1::PlayResponse> told =
        ConnectSeat(*lobby_, created->seat_tokens(2));
    ASSERT_EQ(told.size(), 1u);
    ASSERT_TRUE(told[0].has_match_ended());
    EXPECT_EQ(told[0].match_ended().match_id(), id);
    EXPECT_EQ(told[0].match_ended().seat(), 2u);
    EXPECT_EQ(told[0].match_ended().outcome().SerializeAsString(),
              at_end.outcome().SerializeAsString());
    if (!restarted) {
      // Its log damaged, the running match cannot be resumed.
      DamageLog(lobby_->FindMatch(running)->log_path());
      const RecoveryReport report = Restart(registry, key);
      EXPECT_EQ(report.finished, 1);
      EXPECT_EQ(report.broken, 1);
    }
  }
  EXPECT_EQ(lobby_->FindMatch(running)->Info(lobby_->connections()).status(),
            v1::MATCH_BROKEN);
  // Stopped for good: GetLog serves what its file holds to anyone.
  EXPECT_TRUE(lobby_->FindMatch(running)->finished());
  std::optional<Principal> seat = lobby_->Authenticate(running_token);
  ASSERT_TRUE(seat.has_value());
  const std::vector<v1::PlayResponse> told =
      ConnectSeat(*lobby_, running_token);
  ASSERT_EQ(told.size(), 1u);
  ASSERT_TRUE(told[0].has_error());
  EXPECT_EQ(told[0].error().code(),
            static_cast<int>(absl::StatusCode::kDataLoss));
  EXPECT_TRUE(absl::StrContains(told[0].error().message(),
                                "the match is broken and stopped"))
      << told[0].error().message();
}

// A registry that passes every call to `inner`: the fakes below override
// only what they change.
class ForwardingRegistry : public Registry {
 public:
  explicit ForwardingRegistry(std::unique_ptr<Registry> inner)
      : inner_(std::move(inner)) {}

  absl::Status AddBot(const StoredBot& bot) override {
    return inner_->AddBot(bot);
  }
  absl::Status AddMatch(const StoredMatch& match) override {
    return inner_->AddMatch(match);
  }
  absl::Status MarkAcknowledged(const std::string& match_id) override {
    return inner_->MarkAcknowledged(match_id);
  }
  absl::Status RemoveMatch(const std::string& match_id) override {
    return inner_->RemoveMatch(match_id);
  }
  absl::Status EndMatch(const v1::MatchInfo& info) override {
    return inner_->EndMatch(info);
  }
  absl::StatusOr<std::vector<StoredBot>> LoadBots() const override {
    return inner_->LoadBots();
  }
  absl::StatusOr<std::vector<StoredMatch>> LoadMatches(
      int64_t after, int limit) const override {
    return inner_->LoadMatches(after, limit);
  }
  absl::StatusOr<StoredMatch> FindMatch(
      const std::string& match_id) const override {
    return inner_->FindMatch(match_id);
  }
  absl::StatusOr<std::string> FindRequest(
      const std::string& request_id) const override {
    return inner_->FindRequest(request_id);
  }
  absl::StatusOr<std::vector<StoredMatch>> FindLabelled(
      const std::string& label, int64_t before, int limit) const override {
    return inner_->FindLabelled(label, before, limit);
  }
  absl::StatusOr<StoredToken> FindToken(const std::string& id) const override {
    return inner_->FindToken(id);
  }
  absl::StatusOr<std::vector<StoredMatch>> ListMatches(
      int64_t before, int limit, v1::MatchStatus status) const override {
    return inner_->ListMatches(before, limit, status);
  }
  absl::StatusOr<int64_t> CountLoggedMatches() const override {
    return inner_->CountLoggedMatches();
  }
  std::string dir() const override { return inner_->dir(); }

 private:
  std::unique_ptr<Registry> inner_;
};

// What the lobby holds does not grow with the matches that ended: once
// their ends are recorded it keeps no host, token or request_id of theirs,
// and still answers for them from the registry (durable or in memory): the
// match, the listing, a retried CreateMatch, and a seat that connects with
// its token, which is told the outcome. An end the registry could not
// record is kept in memory instead, and answered as ended.
// (Its ends may be let through, and its additions made to fail, as a
// registry whose disk fills and empties again.)
class FailingEndRegistry final : public ForwardingRegistry {
 public:
  FailingEndRegistry() : ForwardingRegistry(NewMemoryRegistry()) {}

  // What EndMatch answers (it records the end when OK).
  void set_end_status(absl::Status s) {
    absl::MutexLock lock(&mu_);
    end_status_ = std::move(s);
  }
  // What AddBot and AddMatch answer (they record when OK).
  void set_add_status(absl::Status s) {
    absl::MutexLock lock(&mu_);
    add_status_ = std::move(s);
  }
  absl::Status AddBot(const StoredBot& bot) override {
    if (absl::Status s = Status(add_status_); !s.ok()) return s;
    return ForwardingRegistry::AddBot(bot);
  }
  absl::Status AddMatch(const StoredMatch& match) override {
    if (absl::Status s = Status(add_status_); !s.ok()) return s;
    return ForwardingRegistry::AddMatch(match);
  }
  // Whether MarkAcknowledged records the mark (else it answers OK and
  // records nothing: the registry as a referee killed before the mark
  // leaves it).
  void set_acknowledge(bool acknowledge) {
    absl::MutexLock lock(&mu_);
    acknowledge_ = acknowledge;
  }
  absl::Status MarkAcknowledged(const std::string& match_id) override {
    {
      absl::MutexLock lock(&mu_);
      if (!acknowledge_) return absl::OkStatus();
    }
    return ForwardingRegistry::MarkAcknowledged(match_id);
  }
  // What RemoveMatch answers (it removes when OK).
  void set_remove_status(absl::Status s) {
    absl::MutexLock lock(&mu_);
    remove_status_ = std::move(s);
  }
  absl::Status RemoveMatch(const std::string& match_id) override {
    if (absl::Status s = Status(remove_status_); !s.ok()) return s;
    return ForwardingRegistry::RemoveMatch(match_id);
  }
  absl::Status EndMatch(const v1::MatchInfo& info) override {
    if (absl::Status s = Status(end_status_); !s.ok()) return s;
    return ForwardingRegistry::EndMatch(info);
  }
  // What dir() answers (the lobby's check for space: a directory that
  // does not exist has none).
  void set_dir(std::string dir) {
    absl::MutexLock lock(&mu_);
    dir_ = std::move(dir);
  }
  std::string dir() const override {
    absl::MutexLock lock(&mu_);
    return dir_;
  }

 private:
  absl::Status Status(const absl::Status& s) const {
    absl::MutexLock lock(&mu_);
    return s;
  }

  mutable absl::Mutex mu_;
  absl::Status end_status_ ABSL_GUARDED_BY(mu_) =
      absl::InternalError("registry: end match: disk I/O error");
  absl::Status add_status_ ABSL_GUARDED_BY(mu_);
  absl::Status remove_status_ ABSL_GUARDED_BY(mu_);
  bool acknowledge_ ABSL_GUARDED_BY(mu_) = true;
  std::string dir_ ABSL_GUARDED_BY(mu_);
};

// A registry whose disk is full answers like this (sqlite_registry.cc).
absl::Status DiskFull() {
  return absl::ResourceExhaustedError("registry: database or disk is full");
}

// The match created for a request_id breaks and its end cannot be recorded
// (here: its log is damaged over a restart while the registry's disk is
// full; a log write failing on a full disk does the same). A retry of its
// CreateMatch is refused RESOURCE_EXHAUSTED until the end is recorded, and
// creates the replacement once it is: before, the broken match lived only
// in memory, a new one was created at once, and the next restart resumed
// the broken one as running, so that the request_id named two matches that
// both ended in the transparency log.
TEST_F(LobbyTest, ARetryOfABrokenMatchWaitsUntilItsEndIsRecorded) {
  auto registry = std::make_shared<FailingEndRegistry>();
  registry->set_end_status(absl::OkStatus());
  const SigningKey key = SigningKey::Generate();
  Restart(registry, key);
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) request.add_seats();
  request.mutable_clocks()->set_seed_timeout_ms(60000);
  request.set_request_id("breaks");
  request.set_label("cup/run/1");
  absl::StatusOr<v1::CreateMatchResponse> created =
      lobby_->CreateMatch(request);
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string first = created->match_id();
  const std::string log_path = lobby_->FindMatch(first)->log_path();
  lobby_.reset();
  DamageLog(log_path);
  registry->set_end_status(DiskFull());
  EXPECT_EQ(Restart(registry, key).broken, 1);
  ASSERT_EQ(lobby_->held().unrecorded, 1u);

  absl::StatusOr<v1::CreateMatchResponse> retry = lobby_->CreateMatch(request);
  EXPECT_EQ(retry.status().code(), absl::StatusCode::kResourceExhausted)
      << retry.status();
  EXPECT_TRUE(absl::StrContains(retry.status().message(), first));
  EXPECT_TRUE(
      absl::StrContains(retry.status().message(), "cannot be recorded yet"));
  absl::StatusOr<std::vector<StoredMatch>> recorded =
      registry->ListMatches(0, 10, v1::MATCH_STATUS_UNSPECIFIED);
  ASSERT_TRUE(recorded.ok()) << recorded.status();
  EXPECT_EQ(recorded->size(), 1u);

  registry->set_end_status(absl::OkStatus());
  retry = lobby_->CreateMatch(request);
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_NE(retry->match_id(), first);
  EXPECT_EQ(lobby_->held().unrecorded, 0u);
  EXPECT_EQ(registry->FindMatch(first)->info.status(), v1::MATCH_BROKEN);
  // A restart resumes the replacement alone; the first stays broken.
  const RecoveryReport report = Restart(registry, key);
  EXPECT_EQ(report.resumed, 1);
  EXPECT_EQ(report.broken, 0);
  EXPECT_EQ(lobby_->FindMatch(first)->Info(lobby_->connections()).status(),
            v1::MATCH_BROKEN);
  // An ended match keeps its label (ListMatches shows a label twice).
  EXPECT_EQ(lobby_->FindMatch(first)->Info(lobby_->connections()).label(),
            "cup/run/1");
  EXPECT_EQ(registry->FindRequest("breaks").value(), retry->match_id());
}

// Once space returns, the referee says so, and says that the end it could
// not record is recorded now: before, its last lines were the failures,
// and nothing told the operator that new matches were taken again. (The
// registry's directory has no space while it does not exist.)
TEST_F(LobbyTest, SaysWhenSpaceReturnsAndAnEndIsRecordedAfterAll) {
  auto registry = std::make_shared<FailingEndRegistry>();
  registry->set_end_status(absl::OkStatus());
  const SigningKey key = SigningKey::Generate();
  Restart(registry, key);
  const std::string first = Create();
  const std::string log_path = lobby_->FindMatch(first)->log_path();
  lobby_.reset();
  DamageLog(log_path);
  registry->set_end_status(DiskFull());
  registry->set_dir(dir_.File("full"));
  KeepWhatIsSaid();
  EXPECT_EQ(Restart(registry, key).broken, 1);
  ASSERT_EQ(lobby_->held().unrecorded, 1u);
  const std::vector<std::string> failed = TakeSaid();
  EXPECT_TRUE(std::any_of(
      failed.begin(), failed.end(),
      [&](const std::string& line) {
        return absl::StartsWith(
            line, absl::StrCat("match ", first, ": its end is not recorded"));
      }))
      << absl::StrJoin(failed, "\n");
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) request.add_seats();
  EXPECT_EQ(lobby_->CreateMatch(request).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(TakeSaid(), std::vector<std::string>());

  // The end is recorded (one line), but the registry's disk has no room
  // yet: new matches are still refused.
  registry->set_end_status(absl::OkStatus());
  EXPECT_EQ(lobby_->CreateMatch(request).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(lobby_->held().unrecorded, 0u);
  EXPECT_EQ(TakeSaid(),
            std::vector<std::string>({absl::StrCat(
                "match ", first,
                ": its end, which could not be recorded before, is recorded "
                "now")}));

  registry->set_dir(dir_.path());
  ASSERT_TRUE(lobby_->CreateMatch(request).ok());
  EXPECT_EQ(TakeSaid(),
            std::vector<std::string>(
                {"space returned (at least 1 MiB free in the log and registry "
                 "directories): new matches are taken again"}));
  // Said once: the next match is taken without a word.
  ASSERT_TRUE(lobby_->CreateMatch(request).ok());
  lobby_.reset();
  EXPECT_EQ(TakeSaid(), std::vector<std::string>());
}

// A CreateMatch of three seats played by `bot_id` (by token when empty),
// labelled `label`, with `request_id`; its seats forfeit when they have not
// committed the seed within `seed_timeout_ms`.
v1::CreateMatchRequest LabelledRequest(const std::string& label,
                                       const std::string& request_id,
                                       const std::string& bot_id = "",
                                       uint32_t seed_timeout_ms = 60'000) {
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) request.add_seats()->set_bot_id(bot_id);
  request.mutable_clocks()->set_seed_timeout_ms(seed_timeout_ms);
  request.set_request_id(request_id);
  request.set_label(label);
  return request;
}

// Whether `answer` is the refusal of a label held by match `holder`, whose
// status is `status` ("running", "finished").
::testing::AssertionResult RefusedFor(
    const absl::StatusOr<v1::CreateMatchResponse>& answer,
    const std::string& label, const std::string& holder,
    const std::string& status) {
  const std::string expected = absl::StrCat(
      "label \"", label, "\" is already the label of match ", holder, " (",
      status, "): a label names one match (--unique_labels)");
  if (answer.status().code() == absl::StatusCode::kAlreadyExists &&
      answer.status().message() == expected) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << (answer.ok() ? "created " + answer->match_id()
                         : answer.status().ToString())
         << ", not ALREADY_EXISTS: " << expected;
}

// With unique_labels (the referee's --unique_labels), a label names at
// most one match that did not break: a CreateMatch of a label that a
// running match, or one that finished, carries is refused ALREADY_EXISTS
// naming it, whatever its request_id (none, or another), so that the
// admin token's holder cannot play a tournament's match again under its
// label until its result suits them. A retry of the first request_id is
// still answered with its match; the empty label is never checked; and a
// restart, which holds only what the registry recorded, keeps the rule.
// Before, every such request created another match, sealed and entered in
// the transparency log under the same label.
TEST_F(LobbyTest, ALabelNamesOneMatchThatDidNotBreak) {
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  const SigningKey key = SigningKey::Generate();
  unique_labels_ = true;
  Restart(registry, key);
  v1::RegisterBotRequest registration;
  registration.set_name("labelled");
  absl::StatusOr<v1::RegisterBotResponse> bot =
      lobby_->RegisterBot(registration);
  ASSERT_TRUE(bot.ok()) << bot.status();

  // Running.
  const v1::CreateMatchRequest running_request =
      LabelledRequest("cup/run/1", "first-1", bot->bot_id());
  absl::StatusOr<v1::CreateMatchResponse> running =
      lobby_->CreateMatch(running_request);
  ASSERT_TRUE(running.ok()) << running.status();
  EXPECT_TRUE(
      RefusedFor(lobby_->CreateMatch(LabelledRequest("cup/run/1", "again-1")),
                 "cup/run/1", running->match_id(), "running"));
  EXPECT_TRUE(RefusedFor(lobby_->CreateMatch(LabelledRequest("cup/run/1", "")),
                         "cup/run/1", running->match_id(), "running"));
  // Its retry, the same request_id, still gets it.
  absl::StatusOr<v1::CreateMatchResponse> retried =
      lobby_->CreateMatch(running_request);
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(retried->match_id(), running->match_id());

  // Finished (its seats never committed the seed: all forfeited).
  absl::StatusOr<v1::CreateMatchResponse> ended = lobby_->CreateMatch(
      LabelledRequest("cup/run/2", "first-2", "", /*seed_timeout_ms=*/50));
  ASSERT_TRUE(ended.ok()) << ended.status();
  AwaitEnd(ended->match_id());
  ASSERT_EQ(lobby_->FindMatch(ended->match_id())
                ->Info(lobby_->connections())
                .status(),
            v1::MATCH_FINISHED);
  EXPECT_TRUE(
      RefusedFor(lobby_->CreateMatch(LabelledRequest("cup/run/2", "again-2")),
                 "cup/run/2", ended->match_id(), "finished"));

  // The empty label, and other labels, are taken as often as asked.
  for (const char* request_id : {"unlabelled-1", "unlabelled-2", ""}) {
    absl::StatusOr<v1::CreateMatchResponse> unlabelled =
        lobby_->CreateMatch(LabelledRequest("", request_id));
    EXPECT_TRUE(unlabelled.ok()) << unlabelled.status();
  }
  absl::StatusOr<v1::CreateMatchResponse> other =
      lobby_->CreateMatch(LabelledRequest("cup/run/3", "first-3"));
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(List(20).first.size(), 6u);

  // A restart: the running match is resumed, the finished one is the
  // registry's; both still hold their labels.
  Restart(registry, key);
  EXPECT_TRUE(
      RefusedFor(lobby_->CreateMatch(LabelledRequest("cup/run/1", "again-1")),
                 "cup/run/1", running->match_id(), "running"));
  EXPECT_TRUE(
      RefusedFor(lobby_->CreateMatch(LabelledRequest("cup/run/2", "again-2")),
                 "cup/run/2", ended->match_id(), "finished"));
  retried = lobby_->CreateMatch(running_request);
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(retried->match_id(), running->match_id());
  EXPECT_EQ(List(20).first.size(), 6u);
}

// A match that broke frees its label: a new match (its request_id's
// retry, or another request) may take it, once the broken match's end is
// recorded (until then a restart could resume it as running); the new one
// then holds the label. Without unique_labels (the tournament runner's
// embedded referee) a label is taken as often as asked.
TEST_F(LobbyTest, ABrokenMatchFreesItsLabel) {
  auto registry = std::make_shared<FailingEndRegistry>();
  registry->set_end_status(absl::OkStatus());
  const SigningKey key = SigningKey::Generate();
  unique_labels_ = true;
  Restart(registry, key);
  absl::StatusOr<v1::CreateMatchResponse> created =
      lobby_->CreateMatch(LabelledRequest("cup/run/7", "breaks"));
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string first = created->match_id();
  const std::string log_path = lobby_->FindMatch(first)->log_path();
  lobby_.reset();
  DamageLog(log_path);
  registry->set_end_status(DiskFull());
  EXPECT_EQ(Restart(registry, key).broken, 1);

  absl::StatusOr<v1::CreateMatchResponse> replacement =
      lobby_->CreateMatch(LabelledRequest("cup/run/7", "replaces"));
  EXPECT_EQ(replacement.status().code(), absl::StatusCode::kResourceExhausted)
      << replacement.status();
  EXPECT_TRUE(absl::StrContains(
      replacement.status().message(),
      absl::StrCat("label \"cup/run/7\" is the label of match ", first,
                   ", which broke, and whose end cannot be recorded yet")))
      << replacement.status();
  registry->set_end_status(absl::OkStatus());
  replacement = lobby_->CreateMatch(LabelledRequest("cup/run/7", "replaces"));
  ASSERT_TRUE(replacement.ok()) << replacement.status();
  EXPECT_NE(replacement->match_id(), first);
  EXPECT_EQ(registry->FindMatch(first)->info.status(), v1::MATCH_BROKEN);
  EXPECT_TRUE(
      RefusedFor(lobby_->CreateMatch(LabelledRequest("cup/run/7", "third")),
                 "cup/run/7", replacement->match_id(), "running"));

  // Broken while running (recorded at once): its request_id's retry
  // creates the replacement under the same label.
  created = lobby_->CreateMatch(LabelledRequest("cup/run/8", "retried"));
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string second = created->match_id();
  const std::string second_log = lobby_->FindMatch(second)->log_path();
  lobby_.reset();
  DamageLog(second_log);
  EXPECT_EQ(Restart(registry, key).broken, 1);
  absl::StatusOr<v1::CreateMatchResponse> retry =
      lobby_->CreateMatch(LabelledRequest("cup/run/8", "retried"));
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_NE(retry->match_id(), second);
  EXPECT_TRUE(
      RefusedFor(lobby_->CreateMatch(LabelledRequest("cup/run/8", "other")),
                 "cup/run/8", retry->match_id(), "running"));

  // Without the rule.
  unique_labels_ = false;
  Restart(registry, key);
  absl::StatusOr<v1::CreateMatchResponse> twice =
      lobby_->CreateMatch(LabelledRequest("cup/run/8", "twice"));
  ASSERT_TRUE(twice.ok()) << twice.status();
  EXPECT_NE(twice->match_id(), retry->match_id());
}

// Concurrent CreateMatch calls of one label, each with its own request_id
// (or none): exactly one creates a match; every other is refused, naming
// it (ALREADY_EXISTS), or told to try again while it is being created
// (UNAVAILABLE), and creates nothing.
TEST_F(LobbyTest, OfConcurrentCreationsOfALabelOneWins) {
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  unique_labels_ = true;
  Restart(registry, SigningKey::Generate());
  constexpr int kRounds = 5;
  constexpr int kThreads = 8;
  for (int round = 0; round < kRounds; ++round) {
    const std::string label = absl::StrCat("cup/race/", round);
    std::vector<absl::StatusOr<v1::CreateMatchResponse>> answers(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        answers[t] = lobby_->CreateMatch(LabelledRequest(
            label, t == 0 ? "" : absl::StrCat("race-", round, "-", t)));
      });
    }
    for (std::thread& thread : threads) thread.join();
    std::vector<std::string> created;
    for (const auto& answer : answers) {
      if (answer.ok()) {
        created.push_back(answer->match_id());
      } else {
        EXPECT_TRUE(answer.status().code() ==
                        absl::StatusCode::kAlreadyExists ||
                    answer.status().code() == absl::StatusCode::kUnavailable)
            << answer.status();
      }
    }
    ASSERT_EQ(created.size(), 1u) << label;
    for (const auto& answer : answers) {
      if (absl::IsAlreadyExists(answer.status())) {
        EXPECT_TRUE(RefusedFor(answer, label, created[0], "running"));
      }
    }
  }
  EXPECT_EQ(List(20).first.size(), static_cast<size_t>(kRounds));
}

// A match whose log write failed (a full disk) has its log marked broken,
// mode 0444, before its end is recorded. If the registry could not record
// the end and the referee died (SIGKILL) before it could, the registry
// still says running: the next start finds the mark and ends the match
// broken instead of resuming it (its seats were told it stopped), leaving
// its log as it was; the end is recorded then, or kept until it can be,
// its request_id still naming it. A log of 0644 (a running match's under a
// referee older than 0600 logs) is resumed as before. Without the mark the
// broken match was resumed, sealed and entered in the transparency log.
TEST_F(LobbyTest, ARunningMatchWhoseLogIsMarkedBrokenIsNotResumed) {
  for (const bool full : {false, true}) {
    SCOPED_TRACE(full ? "registry full" : "registry writable");
    auto registry = std::make_shared<FailingEndRegistry>();
    registry->set_end_status(absl::OkStatus());
    const SigningKey key = SigningKey::Generate();
    Restart(registry, key);
    v1::CreateMatchRequest request;
    request.mutable_game()->set_game("rock_paper_pyramid");
    for (int i = 0; i < 3; ++i) request.add_seats();
    request.mutable_clocks()->set_seed_timeout_ms(60000);
    request.set_request_id(full ? "broke-full" : "broke");
    absl::StatusOr<v1::CreateMatchResponse> created =
        lobby_->CreateMatch(request);
    ASSERT_TRUE(created.ok()) << created.status();
    const std::string first = created->match_id();
    const std::string log_path = lobby_->FindMatch(first)->log_path();
    const std::string old_referee = CreateWithBot("", 60000);
    const std::string old_log = lobby_->FindMatch(old_referee)->log_path();
    lobby_.reset();  // As a SIGKILL leaves it: the registry says running.
    ASSERT_EQ(registry->FindMatch(first)->info.status(), v1::MATCH_RUNNING);
    ASSERT_TRUE(MarkLogBroken(log_path).ok());
    ASSERT_EQ(chmod(old_log.c_str(), 0644), 0);
    const absl::StatusOr<std::string> bytes = ReadFileToString(log_path);
    ASSERT_TRUE(bytes.ok()) << bytes.status();

    if (full) registry->set_end_status(DiskFull());
    const RecoveryReport report = Restart(registry, key);
    EXPECT_EQ(report.broken, 1);
    EXPECT_EQ(report.resumed, 1);  // The 0644 log's match.
    const v1::MatchInfo info =
        lobby_->FindMatch(first)->Info(lobby_->connections());
    EXPECT_EQ(info.status(), v1::MATCH_BROKEN);
    EXPECT_TRUE(absl::StrContains(info.broken_reason(),
                                  "broke before the referee stopped"))
        << info.broken_reason();
    EXPECT_EQ(ReadFileToString(log_path).value_or(""), *bytes);
    EXPECT_TRUE(LogIsMarkedBroken(log_path));
    EXPECT_EQ(
        lobby_->FindMatch(old_referee)->Info(lobby_->connections()).status(),
        v1::MATCH_RUNNING);
    if (full) {
      EXPECT_EQ(lobby_->held().unrecorded, 1u);
      EXPECT_EQ(registry->FindMatch(first)->info.status(), v1::MATCH_RUNNING);
      absl::StatusOr<v1::CreateMatchResponse> retry =
          lobby_->CreateMatch(request);
      EXPECT_EQ(retry.status().code(), absl::StatusCode::kResourceExhausted)
          << retry.status();
      EXPECT_TRUE(absl::StrContains(retry.status().message(), first));
      registry->set_end_status(absl::OkStatus());
    }
    absl::StatusOr<v1::CreateMatchResponse> retry =
        lobby_->CreateMatch(request);
    ASSERT_TRUE(retry.ok()) << retry.status();
    EXPECT_NE(retry->match_id(), first);
    EXPECT_EQ(lobby_->held().unrecorded, 0u);
    EXPECT_EQ(registry->FindMatch(first)->info.status(), v1::MATCH_BROKEN);
    // Recorded broken, it stays so (and its log marked) at the next start.
    const RecoveryReport again = Restart(registry, key);
    EXPECT_EQ(again.broken, 0);
    EXPECT_EQ(again.resumed, 2);
    EXPECT_TRUE(LogIsMarkedBroken(log_path));
    lobby_.reset();
  }
}

// An end the registry could not record is recorded at the next chance
// once it can be: when the referee stops (SuspendAll), when the lobby
// goes, and by the checkpointer; the lobby then forgets it (its tokens
// too). Before, it was kept in memory only, and lost with the process.
TEST_F(LobbyTest, AnEndNotRecordedIsRecordedAtTheNextChance) {
  for (const std::string when : {"suspend", "destroy", "checkpointer"}) {
    SCOPED_TRACE(when);
    auto registry = std::make_shared<FailingEndRegistry>();
    registry->set_end_status(absl::OkStatus());
    const SigningKey key = SigningKey::Generate();
    Restart(registry, key);
    const std::string id = CreateWithBot("", 60000);
    const std::string log_path = lobby_->FindMatch(id)->log_path();
    lobby_.reset();
    DamageLog(log_path);
    registry->set_end_status(DiskFull());
    Restart(
        registry, key, 0,
        when == "checkpointer" ? absl::Milliseconds(20) : absl::Seconds(60));
    ASSERT_EQ(lobby_->held().unrecorded, 1u);
    EXPECT_EQ(lobby_->held().tokens, 4u);  // The admin's, the seats'.
    registry->set_end_status(absl::OkStatus());
    if (when == "suspend") {
      lobby_->SuspendAll();
    } else if (when == "destroy") {
      lobby_.reset();
    } else {
      for (auto give_up =
               std::chrono::steady_clock::now() + std::chrono::seconds(10);
           lobby_->held().unrecorded > 0 &&
           std::chrono::steady_clock::now() < give_up;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    EXPECT_EQ(registry->FindMatch(id)->info.status(), v1::MATCH_BROKEN);
    if (lobby_ != nullptr) {
      EXPECT_EQ(lobby_->held().unrecorded, 0u);
      EXPECT_EQ(lobby_->held().tokens, 1u);
      EXPECT_EQ(lobby_->FindMatch(id)->Info(lobby_->connections()).status(),
                v1::MATCH_BROKEN);
    }
  }
}

// A registry that cannot record a new match or bot for lack of space is
// answered RESOURCE_EXHAUSTED (wait for space), and the next match is
// refused at once; any other failure stays UNAVAILABLE (try again soon).
TEST_F(LobbyTest, AFullRegistryIsResourceExhausted) {
  auto registry = std::make_shared<FailingEndRegistry>();
  Restart(registry, SigningKey::Generate());
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) request.add_seats();
  v1::RegisterBotRequest registration;
  registration.set_name("full");
  registry->set_add_status(
      absl::InternalError("registry: add match: disk I/O error"));
  EXPECT_EQ(lobby_->CreateMatch(request).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(lobby_->RegisterBot(registration).status().code(),
            absl::StatusCode::kUnavailable);
  registry->set_add_status(DiskFull());
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<v1::CreateMatchResponse> created =
        lobby_->CreateMatch(request);
    EXPECT_EQ(created.status().code(), absl::StatusCode::kResourceExhausted)
        << created.status();
    EXPECT_TRUE(absl::StrContains(created.status().message(),
                                  "database or disk is full"));
  }
  absl::StatusOr<v1::RegisterBotResponse> bot =
      lobby_->RegisterBot(registration);
  EXPECT_EQ(bot.status().code(), absl::StatusCode::kResourceExhausted)
      << bot.status();
  registry->set_add_status(absl::OkStatus());
  EXPECT_FALSE(Create().empty());  // The log directory has room.
}

// While ended matches are unrecorded the registry cannot filter by status
// (it holds them as running), and a page filtered by a status few matches
// have reads at most 10 registry rows per match it may list, then ends,
// short, with a token to go on from: before, one call read every match
// the registry had ever recorded.
TEST_F(LobbyTest, AListingReadsABoundedShareOfTheRegistryPerPage) {
  Restart(std::make_shared<FailingEndRegistry>(), SigningKey::Generate());
  constexpr int kMatches = 25;
  std::vector<std::string> ids;
  for (int i = 0; i < kMatches; ++i) ids.push_back(CreateWithBot("", 50));
  for (const std::string& id : ids) AwaitEnd(id);
  ASSERT_GT(lobby_->held().unrecorded, 0u);
  // None is broken: pages of one read 10 rows each, and list nothing.
  int pages = 0;
  std::string token;
  do {
    const auto [listed, next] = List(1, token, v1::MATCH_BROKEN);
    EXPECT_TRUE(listed.empty());
    token = next;
    ++pages;
  } while (!token.empty() && pages <= kMatches);
  EXPECT_EQ(pages, 3);  // Rows 1-10, 11-20, 21-25.
  // Pages of what there is are full.
  const auto [finished, next] = List(100, "", v1::MATCH_FINISHED);
  EXPECT_EQ(finished.size(), static_cast<size_t>(kMatches));
  EXPECT_TRUE(next.empty());
}

// A game that does not exist is refused NOT_FOUND before anything is
// recorded, whatever its id: before, its match was recorded first, and an
// id too long for a file name made the log's removal throw out of
// CreateMatch, leaving the record behind.
TEST_F(LobbyTest, AnUnknownGameIsRefusedBeforeAnythingIsRecorded) {
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  Restart(registry, SigningKey::Generate());
  for (const size_t size : {7, 3000}) {
    v1::CreateMatchRequest request;
    request.mutable_game()->set_game(std::string(size, 'g'));
    for (int i = 0; i < 3; ++i) request.add_seats();
    absl::StatusOr<v1::CreateMatchResponse> created =
        lobby_->CreateMatch(request);
    EXPECT_EQ(created.status().code(), absl::StatusCode::kNotFound)
        << created.status();
    EXPECT_TRUE(absl::StrContains(created.status().message(), "unknown game"));
  }
  absl::StatusOr<std::vector<StoredMatch>> recorded =
      registry->ListMatches(0, 10, v1::MATCH_STATUS_UNSPECIFIED);
  ASSERT_TRUE(recorded.ok()) << recorded.status();
  EXPECT_TRUE(recorded->empty());
  EXPECT_FALSE(Create().empty());  // And a match of a known game is made.
}

TEST_F(LobbyTest, EndedMatchesLeaveNothingInMemory) {
  for (const char* kind : {"sqlite", "memory", "failing"}) {
    SCOPED_TRACE(kind);
    std::shared_ptr<Registry> registry;
    if (kind == std::string("sqlite")) {
      std::filesystem::remove(dir_.File("registry.db"));
      registry = OpenRegistry();
      ASSERT_NE(registry, nullptr);
    } else if (kind == std::string("failing")) {
      registry = std::make_shared<FailingEndRegistry>();
    }  // "memory": none given.
    Restart(registry, SigningKey::Generate());
    const bool recorded = kind != std::string("failing");
    v1::RegisterBotRequest registration;
    registration.set_name("held");
    absl::StatusOr<v1::RegisterBotResponse> bot =
        lobby_->RegisterBot(registration);
    ASSERT_TRUE(bot.ok()) << bot.status();

    constexpr int kMatches = 12;
    // Match i's creation, and its retry.
    const auto request = [&bot](int i) {
      v1::CreateMatchRequest request;
      request.mutable_game()->set_game("rock_paper_pyramid");
      request.add_seats()->set_bot_id(bot->bot_id());
      for (int seat = 1; seat < 3; ++seat) request.add_seats();
      request.mutable_clocks()->set_seed_timeout_ms(1000);
      request.set_request_id(absl::StrCat("held-", i));
      return request;
    };
    std::vector<std::string> ids;
    std::vector<std::string> seat_tokens;  // Seat 1 of each.
    for (int i = 0; i < kMatches; ++i) {
      absl::StatusOr<v1::CreateMatchResponse> created =
          lobby_->CreateMatch(request(i));
      ASSERT_TRUE(created.ok()) << created.status();
      ids.push_back(created->match_id());
      seat_tokens.push_back(created->seat_tokens(1));
    }
    Lobby::Held held = lobby_->held();
    EXPECT_EQ(held.running, static_cast<size_t>(kMatches));
    EXPECT_EQ(held.tokens, 2u + 2 * kMatches);  // The admin's, the bot's.
    EXPECT_EQ(held.request_ids, static_cast<size_t>(kMatches));
    for (const std::string& id : ids) AwaitEnd(id);
    // The end is announced under the host's lock, and recorded just after.
    for (auto give_up =
             std::chrono::steady_clock::now() + std::chrono::seconds(10);
         lobby_->held().running > 0 &&
         std::chrono::steady_clock::now() < give_up;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    held = lobby_->held();
    EXPECT_EQ(held.running, 0u);
    EXPECT_EQ(held.seat_routes, 0u);  // No seat had a stream open.
    if (recorded) {
      EXPECT_EQ(held.unrecorded, 0u);
      EXPECT_EQ(held.tokens, 2u);
      EXPECT_EQ(held.request_ids, 0u);
    } else {
      EXPECT_EQ(held.unrecorded, static_cast<size_t>(kMatches));
      EXPECT_EQ(held.tokens, 2u + 2 * kMatches);
    }

    EXPECT_EQ(List(100, "", v1::MATCH_FINISHED).first.size(),
              static_cast<size_t>(kMatches));
    EXPECT_EQ(List(100).first.front(), ids.back());
    for (int i = 0; i < kMatches; i += 5) {
      std::shared_ptr<MatchHost> ended = lobby_->FindMatch(ids[i]);
      ASSERT_NE(ended, nullptr);
      const v1::MatchInfo info = ended->Info(lobby_->connections());
      EXPECT_EQ(info.status(), v1::MATCH_FINISHED);
      EXPECT_EQ(info.request_id(), absl::StrCat("held-", i));
      EXPECT_TRUE(std::filesystem::exists(ended->log_path()));

      std::optional<Principal> seat = lobby_->Authenticate(seat_tokens[i]);
      ASSERT_TRUE(seat.has_value());
      EXPECT_EQ(seat->match_id, ids[i]);
      EXPECT_EQ(seat->seat, 1);
      EXPECT_NE(seat->route, 0u);
      std::string forged = seat_tokens[i];
      forged.back() = forged.back() == '0' ? '1' : '0';
      EXPECT_FALSE(lobby_->Authenticate(forged).has_value());
      const std::vector<v1::PlayResponse> told =
          ConnectSeat(*lobby_, seat_tokens[i]);
      ASSERT_EQ(told.size(), 1u);
      ASSERT_TRUE(told[0].has_match_ended());
      EXPECT_EQ(told[0].match_ended().match_id(), ids[i]);
      EXPECT_EQ(told[0].match_ended().seat(), 1u);

      absl::StatusOr<v1::CreateMatchResponse> again =
          lobby_->CreateMatch(request(i));
      EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists)
          << again.status();
      EXPECT_TRUE(absl::StrContains(again.status().message(), ids[i]));
    }
    EXPECT_EQ(List(100).first.size(), static_cast<size_t>(kMatches));
    EXPECT_EQ(lobby_->held().request_ids, recorded ? 0u : kMatches);
  }
}

}  // namespace
}  // namespace pyramid

namespace pyramid {
namespace {

// Matches end (their hosts let go, their records made) while other threads
// list them, look them up and read their infos: every lookup finds the
// match, running or ended, every listing holds each match once, and in the
// end every match is listed as finished. (Under the sanitizers: no host is
// used after the lobby let it go.)
TEST_F(LobbyTest, MatchesEndWhileTheyAreListedAndLookedUp) {
  constexpr int kMatches = 200;
  std::vector<std::string> ids;
  for (int i = 0; i < kMatches; ++i) ids.push_back(CreateWithBot("", 50));
  std::atomic<bool> done = false;
  std::atomic<int> lookups = 0, listings = 0;
  auto look_up = [&] {
    for (int n = 0; !done; ++n) {
      const std::string& id = ids[n % kMatches];
      std::shared_ptr<MatchHost> host = lobby_->FindMatch(id);
      ASSERT_NE(host, nullptr) << id;
      EXPECT_EQ(host->Info(lobby_->connections()).match_id(), id);
      ++lookups;
    }
  };
  auto list = [&] {
    while (!done) {
      std::set<std::string> seen;
      std::string token;
      do {
        v1::ListMatchesRequest request;
        request.set_page_size(37);
        request.set_page_token(token);
        absl::StatusOr<v1::ListMatchesResponse> page =
            lobby_->ListMatches(request);
        ASSERT_TRUE(page.ok()) << page.status();
        for (const v1::MatchInfo& info : page->matches()) {
          EXPECT_TRUE(seen.insert(info.match_id()).second) << info.match_id();
        }
        token = page->next_page_token();
      } while (!token.empty());
      EXPECT_EQ(seen.size(), static_cast<size_t>(kMatches));
      ++listings;
    }
  };
  std::thread looking(look_up), listing(list);
  for (const std::string& id : ids) AwaitEnd(id);
  done = true;
  looking.join();
  listing.join();
  EXPECT_GT(lookups.load(), 0);
  EXPECT_GT(listings.load(), 0);
  EXPECT_EQ(List(1000, "", v1::MATCH_FINISHED).first.size(),
            static_cast<size_t>(kMatches));
  EXPECT_TRUE(List(1000, "", v1::MATCH_RUNNING).first.empty());
}

// A lobby goes while a match's deadline fires: the match hands its next
// deadline to the scheduler (Lobby::DeadlineSetter) while the scheduler
// stops. The lobby used to reset its scheduler, which nulls the pointer
// before the scheduler's thread is joined: that call then crashed
// (SIGSEGV). Here the deadline fires while a watcher holds the match's
// lock, and the lobby goes before it is released.
TEST_F(LobbyTest, GoesWhileADeadlineFires) {
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    const std::string log_dir = dir_.File(absl::StrCat("round", round));
    std::filesystem::create_directories(log_dir);
    LobbyOptions options;
    options.log_dir = log_dir;
    options.admin_token = std::string(32, 'a');
    lobby_ = std::make_unique<Lobby>(std::move(options));
    // Nobody plays: every decision times out, the default action is taken
    // and the next decision opens, with its own deadline.
    v1::CreateMatchRequest request;
    request.mutable_game()->set_game("rock_paper_pyramid");
    for (int i = 0; i < 3; ++i) request.add_seats();
    request.mutable_clocks()->set_commit_timeout_ms(50);
    request.mutable_clocks()->set_reveal_timeout_ms(50);
    request.set_forfeit_policy(v1::FORFEIT_POLICY_DEFAULT_ACTION);
    absl::StatusOr<v1::CreateMatchResponse> created =
        lobby_->CreateMatch(request);
    ASSERT_TRUE(created.ok()) << created.status();
    std::shared_ptr<MatchHost> host = lobby_->FindMatch(created->match_id());
    ASSERT_NE(host, nullptr);

    auto watcher = std::make_shared<BlockingWatcher>();
    std::thread watching([&] { (void)host->AddWatcher(watcher, 10); });
    watcher->entered().WaitForNotification();  // The match's lock is held.
    // A deadline comes due (50 ms): the scheduler's thread pops it and
    // waits for the lock. Waits until it has popped one (at most 10 s: the
    // thread may wake late on a loaded machine).
    for (const absl::Time give_up = absl::Now() + absl::Seconds(10);
         lobby_->scheduler().lateness().count == 0 && absl::Now() < give_up;) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    EXPECT_GT(lobby_->scheduler().lateness().count, 0);
    std::thread releasing([&] {
      // Once the lobby is stopping its scheduler.
      absl::SleepFor(absl::Milliseconds(100));
      watcher->Release();
    });
    lobby_.reset();
    releasing.join();
    watching.join();
  }
}

// At shutdown (SuspendAll) the last checkpoint covers every sealed log:
// no match seals after it (deadlines no longer fire), and each one sealed
// by then is entered before it. SuspendAll used to checkpoint while the
// deadlines still fired: matches sealed after, and their logs were entered
// in the transparency log after its last checkpoint.
TEST_F(LobbyTest, TheShutdownCheckpointCoversEverySealedLog) {
  absl::StatusOr<std::unique_ptr<TransparencyLog>> tlog = TransparencyLog::Open(
      dir_.File("tlog.db"), SigningKey::Generate(), "lobby-test");
  ASSERT_TRUE(tlog.ok()) << tlog.status();
  std::shared_ptr<TransparencyLog> tree = *std::move(tlog);
  std::filesystem::create_directories(dir_.File("logs"));
  LobbyOptions options;
  options.log_dir = dir_.File("logs");
  options.admin_token = std::string(32, 'a');
  options.tlog = tree;
  lobby_ = std::make_unique<Lobby>(std::move(options));
  // Nobody plays: each match ends (sealed, every seat forfeited) when its
  // seed deadline passes. A third of them at 50 ms: SuspendAll comes once
  // the first has ended, while the others end and seal (or have). A third
  // one every 25 ms from 100 ms on, which SuspendAll may come before, amid
  // or after (whatever the machine's load): none may end after it. A third
  // in 10 minutes: none ends before the test does.
  constexpr int kEach = 8;
  constexpr int kMatches = 3 * kEach;
  std::vector<std::string> ids;
  for (int i = 0; i < kEach; ++i) {
    ids.push_back(CreateWithBot("", 50));
    ids.push_back(CreateWithBot("", 100 + 25 * i));
    ids.push_back(CreateWithBot("", 600'000));
  }
  const absl::Time created = absl::Now();
  AwaitEnd(ids[0]);
  lobby_->SuspendAll();
  const uint64_t covered = tree->size();
  EXPECT_EQ(tree->unsigned_leaves(), 0u);
  // Until every deadline but the 10-minute ones has passed, and 100 ms
  // more: a match whose deadline fired after SuspendAll would have ended
  // by then (or later on a loaded machine: the check below then misses
  // it, but never fails for nothing).
  absl::SleepFor(created + absl::Milliseconds(100 + 25 * kEach + 100) -
                 absl::Now());
  int sealed = 0;
  for (const std::string& id : ids) {
    if (lobby_->FindMatch(id)->Info(lobby_->connections()).status() ==
        v1::MATCH_FINISHED) {
      ++sealed;
      EXPECT_TRUE(tree->Contains(id)) << id;
    }
  }
  EXPECT_GT(sealed, 0);                 // ids[0] at least.
  EXPECT_LE(sealed, kMatches - kEach);  // None of the 10-minute ones.
  EXPECT_EQ(tree->size(), static_cast<uint64_t>(sealed));
  EXPECT_EQ(tree->size(), covered);
  lobby_.reset();
  EXPECT_EQ(tree->unsigned_leaves(), 0u);
}

// A registry (SQLite, at `path`) whose process dies (SIGKILL) right after it
// has recorded a new match, before CreateMatch goes on to its log: at once
// (`file_bytes` < 0: no log yet), or at the first write that would take a
// file past `file_bytes` bytes (RLIMIT_FSIZE; that write's SIGXFSZ raises
// SIGKILL), so the log keeps its first `file_bytes` bytes exactly. It
// reports the match's id on `report` first. For a forked child only.
class DyingAfterAddRegistry final : public ForwardingRegistry {
 public:
  DyingAfterAddRegistry(std::unique_ptr<Registry> inner, int64_t file_bytes,
                        int report)
      : ForwardingRegistry(std::move(inner)),
        file_bytes_(file_bytes),
        report_(report) {}

  absl::Status AddMatch(const StoredMatch& match) override {
    if (absl::Status s = ForwardingRegistry::AddMatch(match); !s.ok()) {
      return s;
    }
    const std::string& id = match.info.match_id();
    if (write(report_, id.data(), id.size()) !=
        static_cast<ssize_t>(id.size())) {
      _exit(5);
    }
    if (file_bytes_ < 0) raise(SIGKILL);
    signal(SIGXFSZ, [](int) { raise(SIGKILL); });
    rlimit limit;
    if (getrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(6);
    limit.rlim_cur = static_cast<rlim_t>(file_bytes_);
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(6);
    return absl::OkStatus();
  }

 private:
  const int64_t file_bytes_;
  const int report_;
};

// Every match the registry holds, oldest first.
std::vector<StoredMatch> AllMatches(const Registry& registry) {
  std::vector<StoredMatch> all;
  for (int64_t after = 0;;) {
    absl::StatusOr<std::vector<StoredMatch>> page =
        registry.LoadMatches(after, 100);
    EXPECT_TRUE(page.ok()) << page.status();
    if (!page.ok() || page->empty()) return all;
    after = page->back().seq;
    for (StoredMatch& match : *page) all.push_back(std::move(match));
  }
}

// The decisions a seat (or a bot) that connects with `token` is asked for,
// by match id: each match it plays that waits for it.
std::set<std::string> AskedOf(Lobby& lobby, const std::string& token) {
  std::set<std::string> asked;
  for (const v1::PlayResponse& message : ConnectSeat(lobby, token)) {
    if (message.has_decision()) asked.insert(message.decision().match_id());
  }
  return asked;
}

// The referee killed (SIGKILL) while CreateMatch runs, after the registry
// recorded the new match and before its log held its first signed
// checkpoint (written and synced before CreateMatch answers): before the
// log existed, with it empty, cut inside its header, holding its header
// alone, cut inside the checkpoint. The match was never acknowledged and
// its log holds nothing signed: the next start forgets it (its log and its
// registry entry, seat tokens and request_id), lists no broken match, and
// the client's retry with the same request_id creates the match, whose
// seats (by token: their tokens fresh) are asked for the seed. Before,
// the start ended it broken ("cannot resume after a restart: no log (the
// referee stopped while creating the match)", or "log has no header" for
// an empty log), listed so for good beside the one the retry created.
TEST_F(LobbyTest, ACreationKilledBeforeItsLogHeldACheckpointLeavesNoTrace) {
  const SigningKey key = SigningKey::Generate();
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  Restart(registry, key);
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) request.add_seats();
  request.set_label("cup/run/7");
  // A match created in full: where its header and first checkpoint end (the
  // same for every match of the same request).
  request.set_request_id("measured");
  absl::StatusOr<v1::CreateMatchResponse> measured =
      lobby_->CreateMatch(request);
  ASSERT_TRUE(measured.ok()) << measured.status();
  const absl::StatusOr<std::string> full =
      ReadFileToString(lobby_->FindMatch(measured->match_id())->log_path());
  ASSERT_TRUE(full.ok()) << full.status();
  const SplitLogResult split = SplitLog(*full);
  ASSERT_GE(split.records.size(), 2u);
  const int64_t header_end = static_cast<int64_t>(split.records[1].offset);
  const int64_t checkpoint_end =
      split.records.size() > 2 ? static_cast<int64_t>(split.records[2].offset)
                               : static_cast<int64_t>(full->size());
  lobby_.reset();
  registry.reset();

  struct Moment {
    const char* name;
    int64_t file_bytes;  // What the log keeps; < 0: no log.
  };
  const std::vector<Moment> moments = {
      {"before its log existed", -1},
      {"with its log empty", 0},
      {"inside its header", header_end / 2},
      {"after its header", header_end},
      {"inside its first checkpoint", (header_end + checkpoint_end) / 2},
  };
  std::vector<std::string> messages;
  for (size_t i = 0; i < moments.size(); ++i) {
    const Moment& moment = moments[i];
    SCOPED_TRACE(moment.name);
    request.set_request_id(absl::StrCat("killed-", i));
    std::string match_id;
    {
      ForkedChild child([&](int report) {
        absl::StatusOr<std::unique_ptr<Registry>> inner =
            OpenSqliteRegistry(dir_.File("registry.db"));
        if (!inner.ok()) _exit(1);
        LobbyOptions options =
            OptionsOn(std::make_shared<DyingAfterAddRegistry>(
                          *std::move(inner), moment.file_bytes, report),
                      key);
        options.messages = [](std::string_view) {};
        Lobby lobby(std::move(options));
        if (!lobby.Recover().ok()) _exit(2);
        (void)lobby.CreateMatch(request);
        _exit(3);  // Not killed.
      });
      ASSERT_TRUE(child.ok());
      match_id = child.ReadToEnd();
      const ChildEnd end = child.Wait();
      ASSERT_EQ(end.signal, SIGKILL) << end.ToString();
    }
    // The window: the match recorded as running, its log as the moment says.
    registry = OpenRegistry();
    ASSERT_NE(registry, nullptr);
    absl::StatusOr<StoredMatch> stored = registry->FindMatch(match_id);
    ASSERT_TRUE(stored.ok()) << stored.status();
    EXPECT_EQ(stored->info.status(), v1::MATCH_RUNNING);
    const std::string log_path = dir_.File(stored->log_name);
    if (moment.file_bytes < 0) {
      EXPECT_FALSE(std::filesystem::exists(log_path));
    } else {
      EXPECT_EQ(std::filesystem::file_size(log_path),
                static_cast<uintmax_t>(moment.file_bytes));
    }

    absl::Mutex mu;
    messages_ = [&](std::string_view message) {
      absl::MutexLock lock(&mu);
      messages.emplace_back(message);
    };
    const RecoveryReport report = Restart(registry, key);
    EXPECT_EQ(report.forgotten, 1);
    EXPECT_EQ(report.broken, 0);
    // The measured match, and the retries' matches of the moments before.
    EXPECT_EQ(report.resumed, static_cast<int>(i) + 1);
    {
      absl::MutexLock lock(&mu);
      ASSERT_FALSE(messages.empty());
      EXPECT_TRUE(absl::StartsWith(
          messages.back(),
          absl::StrCat("match ", match_id, ": its creation was cut short")))
          << messages.back();
      EXPECT_TRUE(absl::StrContains(messages.back(), "forgotten"))
          << messages.back();
    }
    EXPECT_FALSE(std::filesystem::exists(log_path));
    EXPECT_TRUE(absl::IsNotFound(registry->FindMatch(match_id).status()));
    EXPECT_TRUE(
        absl::IsNotFound(registry->FindRequest(request.request_id()).status()));
    EXPECT_EQ(lobby_->FindMatch(match_id), nullptr);
    EXPECT_EQ(List(100, "", v1::MATCH_BROKEN).first,
              std::vector<std::string>());
    EXPECT_EQ(List(100).first.size(), i + 1);

    // The retry creates the match; its seats are asked for the seed.
    absl::StatusOr<v1::CreateMatchResponse> retried =
        lobby_->CreateMatch(request);
    ASSERT_TRUE(retried.ok()) << retried.status();
    EXPECT_NE(retried->match_id(), match_id);
    ASSERT_EQ(retried->seat_tokens_size(), 3);
    for (int seat = 0; seat < 3; ++seat) {
      EXPECT_EQ(AskedOf(*lobby_, retried->seat_tokens(seat)),
                std::set<std::string>({retried->match_id()}));
    }
    // Retried again: that match (its seat tokens went with the answer).
    EXPECT_EQ(lobby_->CreateMatch(request).status().code(),
              absl::StatusCode::kAlreadyExists);
    lobby_.reset();
    registry.reset();
    messages_ = nullptr;
  }
}

// The referee killed (SIGKILL) at random moments while three clients
// create matches (their seats played by a bot), each with a request_id of
// its own, eight times over on the same data directory. After each start:
// no match is broken, every match the registry holds was acknowledged (or
// is one whose answer the kill took, resumed), every acknowledged match is
// there, running, answered again to a retry of its request, and the bot is
// asked for its seed; and a retry of each request the kill left
// unanswered is answered with a match that is, too. The figures (matches
// forgotten, in-flight requests) are recorded as the test's properties.
TEST_F(LobbyTest, CreationsKilledAtRandomMomentsLoseNothingAcknowledged) {
  constexpr int kRounds = 8;
  constexpr int kClients = 3;
  constexpr int kPerClient = 5;
  std::mt19937_64 random(testing::UnitTest::GetInstance()->random_seed());
  const SigningKey key = SigningKey::Generate();
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  Restart(registry, key);
  v1::RegisterBotRequest registration;
  registration.set_name("crash");
  absl::StatusOr<v1::RegisterBotResponse> bot =
      lobby_->RegisterBot(registration);
  ASSERT_TRUE(bot.ok()) << bot.status();
  const auto request_for = [&](const std::string& request_id) {
    v1::CreateMatchRequest request;
    request.mutable_game()->set_game("rock_paper_pyramid");
    for (int i = 0; i < 3; ++i) request.add_seats()->set_bot_id(bot->bot_id());
    request.set_request_id(request_id);
    return request;
  };
  // One match created in full first: a log missing is taken for a creation
  // cut short only in a directory that holds logs (an empty one may be a
  // disk not mounted).
  absl::StatusOr<v1::CreateMatchResponse> before =
      lobby_->CreateMatch(request_for("before"));
  ASSERT_TRUE(before.ok()) << before.status();
  lobby_.reset();
  registry.reset();
  // A report: 'T' (a request tried) or 'A' (answered), the request_id and
  // the match id, in a record of fixed size (written at once: a pipe
  // takes it whole).
  constexpr size_t kReport = 64;
  std::map<std::string, std::string> acknowledged = {
      // request_id -> match.
      {"before", before->match_id()}};
  int forgotten = 0;
  int unanswered = 0;
  absl::Mutex mu;
  int said_forgotten = 0;  // The lines that say a match was forgotten.
  messages_ = [&](std::string_view message) {
    absl::MutexLock lock(&mu);
    said_forgotten +=
        message.find("as if never created") != std::string_view::npos;
  };
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    // Killed once this many answers have come, a moment later.
    const int answers = static_cast<int>(random() % (kClients * kPerClient));
    const auto delay = std::chrono::microseconds(random() % 3000);
    std::set<std::string> tried;
    {
      ForkedChild child([&](int report) {
        absl::StatusOr<std::unique_ptr<Registry>> opened =
            OpenSqliteRegistry(dir_.File("registry.db"));
        if (!opened.ok()) _exit(1);
        LobbyOptions options = OptionsOn(*std::move(opened), key);
        options.messages = [](std::string_view) {};
        Lobby lobby(std::move(options));
        if (!lobby.Recover().ok()) _exit(2);
        const auto say = [report](char kind, const std::string& request_id,
                                  const std::string& match_id) {
          char line[kReport + 1];
          snprintf(line, sizeof(line), "%c %-20s %-40s", kind,
                   request_id.c_str(), match_id.c_str());
          line[kReport - 1] = '\n';
          if (write(report, line, kReport) != static_cast<ssize_t>(kReport)) {
            _exit(4);
          }
        };
        std::vector<std::thread> clients;
        for (int c = 0; c < kClients; ++c) {
          clients.emplace_back([&, c] {
            for (int n = 0; n < kPerClient; ++n) {
              const std::string id = absl::StrCat("r", round, "-", c, "-", n);
              say('T', id, "-");
              absl::StatusOr<v1::CreateMatchResponse> created =
                  lobby.CreateMatch(request_for(id));
              if (!created.ok()) _exit(3);
              say('A', id, created->match_id());
            }
          });
        }
        for (std::thread& client : clients) client.join();
        while (true) pause();  // Until killed.
      });
      ASSERT_TRUE(child.ok());
      const auto take = [&](const std::string& line) {
        std::istringstream fields(line);
        std::string kind, request_id, match_id;
        fields >> kind >> request_id >> match_id;
        if (kind == "T") {
          tried.insert(request_id);
        } else {
          tried.erase(request_id);
          acknowledged[request_id] = match_id;
        }
        return kind == "A";
      };
      for (int seen = 0; seen < answers;) {
        const std::string line = child.Read(kReport);
        ASSERT_EQ(line.size(), kReport) << "the child ended first";
        if (take(line)) ++seen;
      }
      std::this_thread::sleep_for(delay);
      child.Kill(SIGKILL);
      const ChildEnd end = child.Wait();
      ASSERT_EQ(end.signal, SIGKILL) << end.ToString();
      const std::string rest = child.ReadToEnd();
      ASSERT_EQ(rest.size() % kReport, 0u);
      for (size_t at = 0; at < rest.size(); at += kReport) {
        take(rest.substr(at, kReport));
      }
    }
    registry = OpenRegistry();
    ASSERT_NE(registry, nullptr);
    const RecoveryReport report = Restart(registry, key);
    EXPECT_EQ(report.broken, 0);
    forgotten += report.forgotten;
    unanswered += static_cast<int>(tried.size());
    // The requests the kill left unanswered: a retry is answered with a
    // match (the one created, if its log held its checkpoint).
    for (const std::string& request_id : tried) {
      absl::StatusOr<v1::CreateMatchResponse> retried =
          lobby_->CreateMatch(request_for(request_id));
      ASSERT_TRUE(retried.ok()) << request_id << ": " << retried.status();
      acknowledged[request_id] = retried->match_id();
    }
    std::set<std::string> expected;
    for (const auto& [request_id, match_id] : acknowledged) {
      expected.insert(match_id);
      std::shared_ptr<MatchHost> host = lobby_->FindMatch(match_id);
      ASSERT_NE(host, nullptr) << request_id << ": " << match_id;
      EXPECT_EQ(host->Info(lobby_->connections()).status(), v1::MATCH_RUNNING);
      absl::StatusOr<v1::CreateMatchResponse> again =
          lobby_->CreateMatch(request_for(request_id));
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(again->match_id(), match_id) << request_id;
    }
    std::set<std::string> held;
    for (const StoredMatch& stored : AllMatches(*registry)) {
      held.insert(stored.info.match_id());
    }
    EXPECT_EQ(held, expected);
    EXPECT_EQ(List(1000, "", v1::MATCH_BROKEN).first,
              std::vector<std::string>());
    EXPECT_EQ(AskedOf(*lobby_, bot->bot_token()), expected);
    lobby_.reset();
    registry.reset();
  }
  messages_ = nullptr;
  EXPECT_EQ(said_forgotten, forgotten);
  RecordProperty("forgotten", forgotten);
  RecordProperty("unanswered", unanswered);
  RecordProperty("acknowledged", static_cast<int>(acknowledged.size()));
}

// A match whose creation was cut short (here not marked acknowledged, its
// log gone, as the referee leaves it when killed right after the registry
// recorded it) that
// the registry cannot forget at the start (its disk full) is said so and
// left to the next start; meanwhile it is unknown, listed nowhere, and a
// retry of its request_id creates the match. The next start forgets it
// and resumes the replacement.
TEST_F(LobbyTest, ACreationCutShortThatCannotBeForgottenIsForgottenLater) {
  auto registry = std::make_shared<FailingEndRegistry>();
  registry->set_end_status(absl::OkStatus());
  const SigningKey key = SigningKey::Generate();
  Restart(registry, key);
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game("rock_paper_pyramid");
  for (int i = 0; i < 3; ++i) request.add_seats();
  request.set_request_id("cut");
  registry->set_acknowledge(false);
  absl::StatusOr<v1::CreateMatchResponse> created =
      lobby_->CreateMatch(request);
  ASSERT_TRUE(created.ok()) << created.status();
  registry->set_acknowledge(true);
  const std::string first = created->match_id();
  const std::string log_path = lobby_->FindMatch(first)->log_path();
  const std::string kept = Create();  // Its log stays: the directory is
                                      // the referee's.
  lobby_.reset();
  std::filesystem::remove(log_path);

  registry->set_remove_status(DiskFull());
  std::vector<std::string> said;
  messages_ = [&said](std::string_view message) { said.emplace_back(message); };
  RecoveryReport report = Restart(registry, key);
  EXPECT_EQ(report.forgotten, 1);
  EXPECT_EQ(report.broken, 0);
  EXPECT_EQ(report.resumed, 1);  // `kept`.
  ASSERT_EQ(said.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(
      said[0], absl::StrCat("match ", first, ": its creation was cut short")))
      << said[0];
  EXPECT_TRUE(absl::StrContains(said[0], "not forgotten yet")) << said[0];
  EXPECT_EQ(registry->FindMatch(first)->info.status(), v1::MATCH_RUNNING);
  EXPECT_EQ(lobby_->FindMatch(first), nullptr);
  EXPECT_EQ(List(10).first, std::vector<std::string>({kept}));
  // Its seats' tokens play nothing.
  const std::optional<Principal> seat =
      lobby_->Authenticate(created->seat_tokens(0));
  EXPECT_TRUE(!seat.has_value() || lobby_->SeatsOf(*seat).empty());
  absl::StatusOr<v1::CreateMatchResponse> retried =
      lobby_->CreateMatch(request);
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_NE(retried->match_id(), first);
  EXPECT_EQ(List(10).first,
            std::vector<std::string>({retried->match_id(), kept}));

  registry->set_remove_status(absl::OkStatus());
  said.clear();
  report = Restart(registry, key);
  EXPECT_EQ(report.forgotten, 1);
  EXPECT_EQ(report.resumed, 2);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_TRUE(absl::StrContains(said[0], "forgotten, as if never created"))
      << said[0];
  EXPECT_TRUE(absl::IsNotFound(registry->FindMatch(first).status()));
  EXPECT_EQ(registry->FindRequest("cut").value(), retried->match_id());
  EXPECT_EQ(lobby_->CreateMatch(request).status().code(),
            absl::StatusCode::kAlreadyExists);
  lobby_.reset();
  messages_ = nullptr;
}

// A match of a label recorded as running but not hosted (its creation cut
// short, and the registry could not forget it at the start) holds its
// label against other requests, which are told to try again: the next
// start resumes or forgets it, and resumed it would share the label with
// theirs. Its own request_id's retry replaces it, as for the request_id.
TEST_F(LobbyTest, AnUnhostedMatchOfALabelHoldsItAgainstOtherRequests) {
  auto registry = std::make_shared<FailingEndRegistry>();
  registry->set_end_status(absl::OkStatus());
  const SigningKey key = SigningKey::Generate();
  unique_labels_ = true;
  Restart(registry, key);
  const v1::CreateMatchRequest request = LabelledRequest("cup/run/9", "cut");
  registry->set_acknowledge(false);  // Killed before the mark.
  absl::StatusOr<v1::CreateMatchResponse> created =
      lobby_->CreateMatch(request);
  ASSERT_TRUE(created.ok()) << created.status();
  registry->set_acknowledge(true);
  const std::string first = created->match_id();
  const std::string log_path = lobby_->FindMatch(first)->log_path();
  const std::string kept = Create();  // The log directory holds a log.
  lobby_.reset();
  std::filesystem::remove(log_path);
  registry->set_remove_status(DiskFull());
  messages_ = [](std::string_view) {};
  Restart(registry, key);
  ASSERT_EQ(registry->FindMatch(first)->info.status(), v1::MATCH_RUNNING);
  ASSERT_EQ(lobby_->FindMatch(first), nullptr);

  absl::StatusOr<v1::CreateMatchResponse> other =
      lobby_->CreateMatch(LabelledRequest("cup/run/9", "other"));
  EXPECT_EQ(other.status().code(), absl::StatusCode::kUnavailable)
      << other.status();
  EXPECT_EQ(std::string(other.status().message()),
            absl::StrCat("label \"cup/run/9\" is the label of match ", first,
                         ", recorded as running but not hosted (its creation "
                         "failed, and its entry could not be removed: the "
                         "next start resumes it or forgets it); try again "
                         "later"));
  absl::StatusOr<v1::CreateMatchResponse> retried =
      lobby_->CreateMatch(request);
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_NE(retried->match_id(), first);
  EXPECT_TRUE(
      RefusedFor(lobby_->CreateMatch(LabelledRequest("cup/run/9", "other")),
                 "cup/run/9", retried->match_id(), "running"));
  lobby_.reset();
  messages_ = nullptr;
}

// A running match whose log directory is missing at the start (a disk not
// mounted, a directory moved), or there but empty (the mount point of a
// disk not mounted, a volume shown empty), is not taken for a creation cut
// short: it is ended broken as before, its registry entry kept, never
// forgotten.
TEST_F(LobbyTest, AMissingLogDirectoryForgetsNoMatch) {
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  const SigningKey key = SigningKey::Generate();
  const std::string logs = dir_.File("logs");
  ASSERT_TRUE(std::filesystem::create_directory(logs));
  const auto start = [&] {
    LobbyOptions options;
    options.referee_key = key;
    options.log_dir = logs;
    options.admin_token = std::string(32, 'a');
    options.registry = registry;
    options.messages = [](std::string_view) {};
    lobby_.reset();
    lobby_ = std::make_unique<Lobby>(std::move(options));
    absl::StatusOr<RecoveryReport> recovered = lobby_->Recover();
    EXPECT_TRUE(recovered.ok()) << recovered.status();
    return recovered.ok() ? *recovered : RecoveryReport();
  };
  for (const bool empty : {false, true}) {
    SCOPED_TRACE(empty ? "an empty directory" : "no directory");
    start();
    const std::string id = Create();
    lobby_.reset();
    std::filesystem::rename(logs, absl::StrCat(logs, ".away", empty));
    if (empty) {
      ASSERT_TRUE(std::filesystem::create_directory(logs));
    }
    const RecoveryReport report = start();
    EXPECT_EQ(report.forgotten, 0);
    EXPECT_EQ(report.broken, 1);
    EXPECT_EQ(registry->FindMatch(id)->info.status(), v1::MATCH_BROKEN);
    // Its reason, which anyone may read, names the log by its file name:
    // where the logs are is the operator's business.
    const std::string reason =
        lobby_->FindMatch(id)->Info(lobby_->connections()).broken_reason();
    EXPECT_THAT(reason, ::testing::HasSubstr(absl::StrCat("-", id, ".pyrlog")));
    EXPECT_THAT(reason, ::testing::Not(::testing::HasSubstr("/"))) << reason;
    EXPECT_EQ(registry->FindMatch(id)->info.broken_reason(), reason);
    lobby_.reset();
    if (!empty) {
      ASSERT_TRUE(std::filesystem::create_directory(logs));
    }
  }
}

// A match CreateMatch answered for (the registry marks it acknowledged
// before the answer) whose log is missing at a restart (removed, the logs
// restored from an older copy), beside other logs, is not taken for a
// creation cut short: it is ended broken, its reason saying what happened,
// its registry entry kept (its request_id names it); so is one whose log
// holds less than its first checkpoint (emptied). Before, both were
// forgotten as "its creation was cut short", their entries and tokens
// gone. A match an older referee recorded (no mark) is told as that
// referee did, its log missing beside others taken for a creation cut
// short; one resumed is marked acknowledged.
TEST_F(LobbyTest, AnAcknowledgedMatchWhoseLogIsLostIsEndedBrokenNotForgotten) {
  std::shared_ptr<Registry> registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  const SigningKey key = SigningKey::Generate();
  KeepWhatIsSaid();
  Restart(registry, key);
  const std::string kept = Create();
  absl::StatusOr<v1::CreateMatchResponse> lost =
      lobby_->CreateMatch(LabelledRequest("cup/run/4", "lost"));
  ASSERT_TRUE(lost.ok()) << lost.status();
  const std::string emptied = Create();
  const std::string lost_log = lobby_->FindMatch(lost->match_id())->log_path();
  const std::string emptied_log = lobby_->FindMatch(emptied)->log_path();
  lobby_.reset();
  for (const std::string& id : {kept, lost->match_id(), emptied}) {
    EXPECT_EQ(registry->FindMatch(id)->acknowledged,
              StoredMatch::Acknowledged::kYes);
  }
  ASSERT_TRUE(std::filesystem::remove(lost_log));
  std::filesystem::resize_file(emptied_log, 0);
  TakeSaid();

  RecoveryReport report = Restart(registry, key);
  EXPECT_EQ(report.forgotten, 0);
  EXPECT_EQ(report.broken, 2);
  EXPECT_EQ(report.resumed, 1);
  for (const std::string& line : TakeSaid()) {
    EXPECT_THAT(line, ::testing::Not(::testing::HasSubstr("cut short")));
  }
  absl::StatusOr<StoredMatch> stored = registry->FindMatch(lost->match_id());
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->info.status(), v1::MATCH_BROKEN);
  EXPECT_EQ(stored->info.broken_reason(),
            absl::StrCat("cannot resume after a restart: its log ",
                         std::filesystem::path(lost_log).filename().string(),
                         " is missing, though CreateMatch answered for the "
                         "match (acknowledged): it was removed, or the log "
                         "directory was restored from an older copy"));
  EXPECT_EQ(registry->FindRequest("lost").value_or(""), lost->match_id());
  // Its seats' tokens are kept: a seat connecting is told it broke.
  EXPECT_EQ(
      lobby_->Authenticate(lost->seat_tokens(0)).value_or(Principal()).match_id,
      lost->match_id());
  stored = registry->FindMatch(emptied);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->info.status(), v1::MATCH_BROKEN);
  EXPECT_EQ(stored->info.broken_reason(),
            "cannot resume after a restart: its log holds less than its "
            "first checkpoint (an empty log), though CreateMatch answered "
            "for the match (acknowledged): emptied or cut since, or a power "
            "loss took its synced bytes (--fsync=never)");
  EXPECT_EQ(List(10, "", v1::MATCH_BROKEN).first.size(), 2u);

  // Rows as an older referee left them: no mark.
  const std::string unmarked_lost = Create();
  const std::string unmarked_kept = Create();
  const std::string unmarked_log = lobby_->FindMatch(unmarked_lost)->log_path();
  lobby_.reset();
  registry.reset();
  EditRegistry(
      "UPDATE matches SET acknowledged = NULL WHERE match_id IN "
      "(%Q, %Q);",
      unmarked_lost, unmarked_kept);
  registry = OpenRegistry();
  ASSERT_NE(registry, nullptr);
  EXPECT_EQ(registry->FindMatch(unmarked_kept)->acknowledged,
            StoredMatch::Acknowledged::kUnknown);
  ASSERT_TRUE(std::filesystem::remove(unmarked_log));
  report = Restart(registry, key);
  EXPECT_EQ(report.forgotten, 1);
  EXPECT_EQ(report.broken, 0);
  EXPECT_EQ(report.resumed, 2);
  EXPECT_TRUE(absl::IsNotFound(registry->FindMatch(unmarked_lost).status()));
  EXPECT_EQ(registry->FindMatch(unmarked_kept)->acknowledged,
            StoredMatch::Acknowledged::kYes);
  lobby_.reset();
  messages_ = nullptr;
}

// The checkpointer's wait between rounds is the monotonic clock's: begun
// while the wall clock is an hour ahead of the kernel's (as when the
// system clock was stepped an hour back), its next round comes after
// checkpoint_every, not an hour later (the wait was
// absl::Mutex::AwaitWithTimeout's, which Abseil 20220623 turns into a wall
// clock deadline): an end the registry could not record is recorded by it
// as soon as the registry can.
TEST_F(LobbyTest, AWallClockStepDoesNotHoldBackTheCheckpointer) {
  auto registry = std::make_shared<FailingEndRegistry>();
  registry->set_end_status(absl::OkStatus());
  const SigningKey key = SigningKey::Generate();
  Restart(registry, key);
  const std::string id = CreateWithBot("", 60000);
  const std::string log_path = lobby_->FindMatch(id)->log_path();
  lobby_.reset();
  DamageLog(log_path);
  registry->set_end_status(DiskFull());
  const ScopedWallClockStep step(absl::Hours(1));
  ASSERT_TRUE(step.taken()) << "the step did not take";
  Restart(registry, key, 0, absl::Milliseconds(20));
  ASSERT_EQ(lobby_->held().unrecorded, 1u);
  registry->set_end_status(absl::OkStatus());
  for (auto give_up =
           std::chrono::steady_clock::now() + std::chrono::seconds(10);
       lobby_->held().unrecorded > 0 &&
       std::chrono::steady_clock::now() < give_up;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(lobby_->held().unrecorded, 0u)
      << "the checkpointer waited for the wall clock";
  EXPECT_EQ(registry->FindMatch(id)->info.status(), v1::MATCH_BROKEN);
}

}  // namespace
}  // namespace pyramid
