// End to end over loopback with the real programs: the `referee` server,
// separate `bot` processes, `refctl` and `replay` (from $PYRAMID_BIN, else
// build/bin). A full match between three bot processes (and a bot process
// that plays two seats over one stream) whose log, fetched with GetLog,
// verifies with `replay verify --key`; every other game likewise, one bot
// process per seat (Pyramid Shambo 5 seats, Flaming Pyramids 4 with and
// without the curse, Pyramid Scheme 4), the verified outcome matching what
// the bots and `refctl get-match` report; health and reflection on the real
// server; no token in any output or log; and a referee killed with SIGKILL
// mid-match whose log on disk still verifies as a prefix up to its last
// checkpoint. Tournaments played against it publish evidence (checkpoint,
// inclusion proofs, schedule) that `replay verify-tournament` accepts
// untouched and rejects, naming the problem, when a log is removed or added
// or the checkpoint is an older one; consistency proofs between two
// checkpoints; the transparency log after a restart; a data directory
// renamed (after SIGTERM or SIGKILL) or copied, whose referee works on its
// own logs only, and a --log_dir elsewhere renamed after SIGKILL;
// --max_live_matches,
// --max_log_readers (and refctl get-log's retry), --log_stall_timeout_s,
// --max_health_watchers.
// Every process started
// here is killed when its test ends (and dies with the test process,
// PR_SET_PDEATHSIG).
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/sha256.h"
#include "referee/service/view_delta.h"
#include "tests/binaries.h"
#include "tests/temp_dir.h"
#include "tests/test_client.h"
#include "tests/test_process.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;
namespace v1 = ::pyramid::referee::v1;
using svctest::IsDecision;
using svctest::kWait;
using svctest::PlayClient;
using svctest::WatchClient;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kRpp[] = "rock_paper_pyramid";

std::string Slurp(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  return text.ok() ? *text : "";
}

std::string Trimmed(const std::string& path) {
  return std::string(absl::StripAsciiWhitespace(Slurp(path)));
}

using testing_util::Bin;
using testing_util::Process;
using testing_util::ToolResult;

class E2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    data_ = dir_.File("data");
    for (const char* tool : {"referee", "bot", "refctl", "replay"}) {
      ASSERT_TRUE(fs::exists(Bin(tool))) << Bin(tool) << " is not built";
    }
  }
  void TearDown() override {
    bots_.clear();
    referee_.reset();
  }

  std::string Path(const std::string& name) const { return dir_.File(name); }

  // Starts the referee on a free loopback port and waits until it serves.
  void StartReferee(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> flags = {"--data_dir=" + data_,
                                      "--checkpoint_interval=4"};
    flags.insert(flags.end(), extra.begin(), extra.end());
    referee_ = testing_util::StartReferee(
        Path("port"), flags, Path("referee.out"), Path("referee.err"), kWait);
    ASSERT_TRUE(fs::exists(Path("port"))) << referee_->err();
    // The port file is the start's last step: the banner is whole by then
    // (its last line is the connections'), as scripts that wait for the
    // file and read the registry's counts rely on.
    ASSERT_THAT(referee_->out(), HasSubstr("\n  connections:  "))
        << "the port file came before the banner";
    address_ = testing_util::LoopbackAddress(Path("port"));
    channel_ =
        grpc::CreateChannel(address_, grpc::InsecureChannelCredentials());
    ASSERT_TRUE(
        channel_->WaitForConnected(absl::ToChronoTime(absl::Now() + kWait)));
    stub_ = v1::Referee::NewStub(channel_);
  }

  ToolResult Run(const std::string& tool, std::vector<std::string> args) {
    args.insert(args.begin(), Bin(tool));
    const std::string tag = absl::StrCat(tool, "-", runs_++);
    ToolResult r = testing_util::RunTool(args, Path(tag + ".out"),
                                         Path(tag + ".err"), kWait);
    outputs_.push_back(r.out + r.err);
    return r;
  }
  ToolResult Refctl(std::vector<std::string> args) {
    args.insert(args.begin(), {"--referee=" + address_,
                               "--admin_token_file=" + data_ + "/admin.token"});
    return Run("refctl", args);
  }

  // Creates a match of `game` (default: a 3-seat rock_paper_pyramid); seat
  // tokens go to `token_dir`.
  std::string CreateMatch(const std::string& token_dir,
                          std::vector<std::string> extra = {},
                          const std::string& game = kRpp, int seats = 3) {
    std::vector<std::string> args = {"create-match", "--game=" + game,
                                     absl::StrCat("--seats=", seats),
                                     "--token_dir=" + token_dir};
    args.insert(args.end(), extra.begin(), extra.end());
    ToolResult r = Refctl(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return std::string(absl::StripAsciiWhitespace(r.out));
  }

  Process& StartBot(const std::string& token_file,
                    std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {Bin("bot"), "--referee=" + address_,
                                     "--token_file=" + token_file};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const std::string tag = absl::StrCat("bot-", bots_.size());
    bots_.push_back(std::make_unique<Process>(argv, Path(tag + ".out"),
                                              Path(tag + ".err")));
    return *bots_.back();
  }

  // The match's log in the log directory: log_dir_, else DATA_DIR/logs.
  std::string LogPath(const std::string& match_id,
                      const std::string& game = kRpp) const {
    return absl::StrCat(log_dir_.empty() ? data_ + "/logs" : log_dir_, "/",
                        game, "-", match_id, ".pyrlog");
  }
  std::string PublicKeyFile() const { return data_ + "/referee.key.pub"; }

  // Plays the three-seat match whose seat tokens are in `token_dir`
  // (CreateMatch's) to its end: one bot process per seat, each playing
  // one match. True when each bot exited 0; each that did not is a failure.
  bool PlayToItsEnd(const std::string& token_dir) {
    std::vector<Process*> seats;
    for (int seat = 0; seat < 3; ++seat) {
      seats.push_back(&StartBot(
          absl::StrCat(token_dir, "/seat-", seat, ".token"), {"--matches=1"}));
    }
    bool ended = true;
    for (Process* bot : seats) {
      const int code = bot->Wait(kWait);
      EXPECT_EQ(code, 0) << bot->err();
      ended = ended && code == 0;
    }
    return ended;
  }

  // Plays a match to its end (seat tokens in Path("tok-f")) and creates a
  // second one that no seat joins (Path("tok-r")), left running: sets
  // `finished` and `running` to their ids.
  void FinishOneMatchAndLeaveOneRunning(std::string* finished,
                                        std::string* running) {
    *finished = CreateMatch(Path("tok-f"));
    ASSERT_EQ(finished->size(), 32u);
    ASSERT_TRUE(PlayToItsEnd(Path("tok-f")));
    *running = CreateMatch(Path("tok-r"));
    ASSERT_EQ(running->size(), 32u);
  }

  // Cuts the log on disk of the ended match `match`, whose bytes were
  // `log`, to its first two records, as a power loss after a SIGKILL may:
  // only the journal, which it requires to be left to replay, holds the
  // rest after the log's first checkpoint. The next start repairs it.
  void CutToItsFirstRecords(const std::string& match, const std::string& log) {
    ASSERT_FALSE(fs::is_empty(data_ + "/journal"));
    const SplitLogResult split = SplitLog(log);
    ASSERT_GT(split.records.size(), 2u);
    fs::resize_file(LogPath(match), split.records[2].offset);
  }

  // `refctl get-log` serves the match's log byte for byte as `log`.
  void ExpectServedByteForByte(const std::string& match,
                               const std::string& log) {
    const std::string fetched = Path(match + ".pyrlog");
    ToolResult got = Refctl({"get-log", match, "--out=" + fetched});
    ASSERT_EQ(got.code, 0) << got.err;
    EXPECT_TRUE(Slurp(fetched) == log);
  }

  // `replay verify --key` finds the match's log on disk genuine.
  void ExpectGenuine(const std::string& match) {
    ToolResult verified =
        Run("replay", {"verify", "--key=" + PublicKeyFile(), LogPath(match)});
    EXPECT_EQ(verified.code, 0) << verified.out << verified.err;
    EXPECT_THAT(verified.out, HasSubstr("genuine"));
  }

  // `refctl list --status=broken` names none of `matches`.
  void ExpectNoneListedBroken(const std::vector<std::string>& matches) {
    ToolResult broken = Refctl({"list", "--status=broken"});
    ASSERT_EQ(broken.code, 0) << broken.err;
    for (const std::string& match : matches) {
      EXPECT_THAT(broken.out, Not(HasSubstr(match)));
    }
  }

  // Plays a round robin of three reference bots, three seats (3 matches),
  // named `name`, against the referee; its output directory is Path(name).
  ToolResult Tournament(const std::string& name) {
    const std::string file = Path(name + ".txt");
    std::string text = absl::StrCat("name: \"", name, "\" game { game: \"",
                                    kRpp, "\" } seats: 3 ");
    for (int i = 1; i <= 3; ++i) {
      absl::StrAppend(&text, "bots { name: \"bot-", i, "\" command: \"",
                      Bin("bot"), "\" command: \"--quiet\" }");
    }
    std::ofstream(file) << text;
    return Run("tournament", {file, "--referee=" + address_,
                              "--referee_key=" + PublicKeyFile(),
                              "--admin_token_file=" + data_ + "/admin.token",
                              "--output_dir=" + Path(name)});
  }

  // The regular files in `dir`, sorted.
  static std::vector<std::string> Files(const std::string& dir) {
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
      files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
  }

  // The tree size a checkpoint note states (its second line).
  static uint64_t CheckpointSize(const std::string& note) {
    std::vector<std::string> lines = absl::StrSplit(note, '\n');
    uint64_t size = 0;
    EXPECT_TRUE(lines.size() > 1 && absl::SimpleAtoi(lines[1], &size)) << note;
    return size;
  }

  // The match id (hex) in a log's header.
  static std::string MatchIdOf(const std::string& log) {
    std::vector<v1::LogRecord> records = svctest::ParseRecords(Slurp(log));
    EXPECT_FALSE(records.empty()) << log;
    return records.empty() ? "" : ToHex(records[0].header().match_id());
  }

  TempDir dir_{"e2e"};  // Removed after the processes are gone.
  std::string data_, address_;
  std::string log_dir_;  // The referee's --log_dir, when not the default.
  std::unique_ptr<Process> referee_;
  std::vector<std::unique_ptr<Process>> bots_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Referee::Stub> stub_;
  std::vector<std::string> outputs_;  // Of every tool run.
  int runs_ = 0;
};

TEST_F(E2eTest, BotProcessesPlayAndTheFetchedLogVerifies) {
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  // Health and reflection are on in the real server.
  EXPECT_EQ(svctest::HealthStatus(channel_), 1);
  EXPECT_TRUE(
      svctest::ReflectedServices(channel_).count("pyramid.referee.v1.Referee"));

  // Match A: three seat-token bot processes, with a minute to connect
  // (the seed decision's deadline; the referee's default clocks otherwise).
  const std::string a = CreateMatch(Path("tok-a"), {"--seed_timeout_ms=60000"});
  ASSERT_EQ(a.size(), 32u);
  ToolResult created = Refctl({"get-match", a});
  EXPECT_THAT(created.out, HasSubstr("\"seed_timeout_ms\":60000"));
  EXPECT_THAT(created.out, HasSubstr("\"commit_timeout_ms\":30000"));
  // Match B: one bot process playing two seats on one stream (a registered
  // bot) and a seat-token bot for the third.
  ToolResult reg =
      Refctl({"register-bot", "multi", "--token_out=" + Path("multi.token")});
  ASSERT_EQ(reg.code, 0) << reg.err;
  const std::string bot_id(absl::StripAsciiWhitespace(reg.out));
  const std::string b =
      CreateMatch(Path("tok-b"), {"--bots=" + bot_id + "," + bot_id + ","});
  ASSERT_EQ(b.size(), 32u);
  EXPECT_FALSE(fs::exists(Path("tok-b/seat-0.token")));

  for (int seat = 0; seat < 3; ++seat) {
    StartBot(Path(absl::StrCat("tok-a/seat-", seat, ".token")),
             {"--matches=1"});
  }
  StartBot(Path("multi.token"), {"--matches=2"});
  StartBot(Path("tok-b/seat-2.token"), {"--matches=1"});
  for (auto& bot : bots_) {
    EXPECT_EQ(bot->Wait(kWait), 0) << bot->out() << bot->err();
    outputs_.push_back(bot->out() + bot->err());
  }

  for (const std::string& match : {a, b}) {
    const std::string fetched = Path(match + ".pyrlog");
    ToolResult got = Refctl({"get-log", match, "--out=" + fetched});
    ASSERT_EQ(got.code, 0) << got.err;
    EXPECT_EQ(Slurp(fetched), Slurp(LogPath(match)));
    ToolResult verify =
        Run("replay", {"verify", "--key=" + PublicKeyFile(), fetched});
    EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
    EXPECT_THAT(verify.out, HasSubstr("genuine"));
    EXPECT_THAT(verify.out, HasSubstr("referee key pinned"));
    ToolResult info = Refctl({"get-match", match});
    EXPECT_THAT(info.out, HasSubstr("MATCH_FINISHED"));
  }
  // A different key is refused.
  const std::string other_key = Path("other.key");
  ASSERT_TRUE(WriteKeyFiles(other_key, SigningKey::Generate()).ok());
  ToolResult wrong = Run(
      "replay", {"verify", "--key=" + other_key + ".pub", Path(a + ".pyrlog")});
  EXPECT_EQ(wrong.code, 1) << wrong.out;

  // A clean shutdown, then: no token in any output or log.
  referee_->Signal(SIGTERM);
  EXPECT_EQ(referee_->Wait(kWait), 0);
  std::vector<std::string> tokens = {Trimmed(data_ + "/admin.token"),
                                     Trimmed(Path("multi.token")),
                                     Trimmed(Path("tok-b/seat-2.token"))};
  for (int seat = 0; seat < 3; ++seat) {
    tokens.push_back(
        Trimmed(Path(absl::StrCat("tok-a/seat-", seat, ".token"))));
  }
  std::vector<std::string> texts = outputs_;
  texts.push_back(referee_->out());
  texts.push_back(referee_->err());
  for (const auto& entry : fs::recursive_directory_iterator(data_ + "/logs")) {
    texts.push_back(Slurp(entry.path().string()));
  }
  EXPECT_THAT(referee_->out(), HasSubstr("listening on 127.0.0.1:"));
  for (const std::string& token : tokens) {
    ASSERT_GE(token.size(), 32u);
    const std::string secret = token.substr(token.find('.') + 1);
    for (const std::string& text : texts) {
      EXPECT_FALSE(absl::StrContains(text, token)) << "a token was printed";
      EXPECT_FALSE(absl::StrContains(text, secret)) << "a secret was printed";
    }
  }
}

// docs/durability.md: after SIGTERM and a restart on the same data
// directory, the referee lists every earlier match, serves a finished
// match's log byte for byte, and takes the seat and bot tokens it issued
// before: a match left running is resumed and played to a genuine end.
TEST_F(E2eTest, SigtermAndRestartKeepMatchesLogsAndTokens) {
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  const std::string finished = CreateMatch(Path("tok-f"));
  ASSERT_EQ(finished.size(), 32u);
  for (int seat = 0; seat < 3; ++seat) {
    StartBot(Path(absl::StrCat("tok-f/seat-", seat, ".token")),
             {"--matches=1"});
  }
  for (auto& bot : bots_) ASSERT_EQ(bot->Wait(kWait), 0) << bot->err();
  bots_.clear();
  ToolResult reg =
      Refctl({"register-bot", "keeper", "--token_out=" + Path("bot.token")});
  ASSERT_EQ(reg.code, 0) << reg.err;
  const std::string bot_id(absl::StripAsciiWhitespace(reg.out));
  // Left running, nobody playing: seat 0 is the registered bot.
  const std::string running =
      CreateMatch(Path("tok-r"), {"--bots=" + bot_id + ",,"});
  ASSERT_EQ(running.size(), 32u);
  const std::string finished_log = Slurp(LogPath(finished));

  referee_->Signal(SIGTERM);
  ASSERT_EQ(referee_->Wait(kWait), 0) << referee_->err();
  ASSERT_NO_FATAL_FAILURE(StartReferee({"--listen=" + address_}));

  ToolResult listed = Refctl({"list"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr(finished));
  EXPECT_THAT(listed.out, HasSubstr(running));
  const std::string fetched = Path("finished.pyrlog");
  ToolResult got = Refctl({"get-log", finished, "--out=" + fetched});
  ASSERT_EQ(got.code, 0) << got.err;
  EXPECT_EQ(Slurp(fetched), finished_log);
  EXPECT_EQ(Slurp(LogPath(finished)), finished_log);

  // The old bot token and seat tokens play the running match to its end.
  StartBot(Path("bot.token"), {"--matches=1"});
  StartBot(Path("tok-r/seat-1.token"), {"--matches=1"});
  StartBot(Path("tok-r/seat-2.token"), {"--matches=1"});
  for (auto& bot : bots_) EXPECT_EQ(bot->Wait(kWait), 0) << bot->err();
  ToolResult verified =
      Run("replay", {"verify", "--key=" + PublicKeyFile(), LogPath(running)});
  EXPECT_EQ(verified.code, 0) << verified.out << verified.err;
  int restarts = 0;
  for (const v1::LogRecord& r :
       svctest::ParseRecords(Slurp(LogPath(running)))) {
    restarts += r.has_restart();
  }
  EXPECT_EQ(restarts, 1);
}

// docs/transparency-log.md, end to end: two tournaments against one
// referee. Each directory passes `replay verify-tournament` as published;
// with a log removed, a log (and its proof) added from the other
// tournament, or its checkpoint replaced by the older one, it fails and
// names the problem. `refctl consistency` proves the first tournament's
// checkpoint a prefix of the second's (`replay consistency`), and not the
// other way round. After SIGTERM and a restart the tree is the same and
// still proves any earlier log's inclusion.
TEST_F(E2eTest, TournamentEvidenceNamesEveryTamperingAndSurvivesRestart) {
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  for (const std::string name : {"a", "b"}) {
    ToolResult t = Tournament(name);
    ASSERT_EQ(t.code, 0) << t.out << t.err;
    EXPECT_THAT(t.out, HasSubstr("3 matches, all included in checkpoint "));
    ToolResult v = Run("replay", {"verify-tournament", Path(name)});
    EXPECT_EQ(v.code, 0) << v.out << v.err;
    EXPECT_THAT(v.out, HasSubstr(": 3 matches, all included in checkpoint "));
  }
  const std::vector<std::string> a_logs = Files(Path("a/logs"));
  const std::vector<std::string> b_logs = Files(Path("b/logs"));
  ASSERT_EQ(a_logs.size(), 3u);
  ASSERT_EQ(b_logs.size(), 3u);
  auto tampered = [&](const std::string& name) {
    fs::copy(Path("b"), Path(name), fs::copy_options::recursive);
    return Path(name);
  };
  auto proof_of = [](const std::string& log) {
    fs::path p(log);
    return (p.parent_path().parent_path() / "proofs" /
            (p.stem().string() + ".tlog-proof"))
        .string();
  };
  // One log removed.
  const std::string missing = tampered("missing");
  fs::remove(fs::path(missing) / "logs" / fs::path(b_logs[1]).filename());
  ToolResult r = Run("replay", {"verify-tournament", missing});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr(") is missing: no sealed, included log"));
  EXPECT_THAT(r.out, HasSubstr("a proof without its log"));
  // One log added from the other tournament, with its valid proof.
  const std::string extra = tampered("extra");
  fs::copy(a_logs[0], fs::path(extra) / "logs");
  fs::copy(proof_of(a_logs[0]), fs::path(extra) / "proofs");
  r = Run("replay", {"verify-tournament", extra});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("extra: its label \"a/"));
  EXPECT_THAT(r.out, HasSubstr("is not in the schedule"));
  // The checkpoint replaced by the older one (which covers none of B).
  const std::string older = tampered("older");
  fs::copy(Path("a/checkpoint"), fs::path(older) / "checkpoint",
           fs::copy_options::overwrite_existing);
  r = Run("replay", {"verify-tournament", older});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("not in the directory's checkpoint"));
  EXPECT_THAT(r.out, HasSubstr("has no log that counts"));

  // The second checkpoint extends the first, and only that way round.
  const uint64_t a_size = CheckpointSize(Slurp(Path("a/checkpoint")));
  const uint64_t b_size = CheckpointSize(Slurp(Path("b/checkpoint")));
  ASSERT_GE(a_size, 3u);
  ASSERT_GE(b_size, a_size + 3);
  ToolResult proof =
      Refctl({"consistency", absl::StrCat(a_size), absl::StrCat(b_size),
              "--out=" + Path("a-b.proof")});
  ASSERT_EQ(proof.code, 0) << proof.err;
  const std::string vkey = data_ + "/tlog.vkey";
  r = Run("replay", {"consistency", "--tlog_key=" + vkey, Path("a/checkpoint"),
                     Path("b/checkpoint"), Path("a-b.proof")});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  // Swapped: the command's mistake (status 2), said as such.
  r = Run("replay",
          {"consistency", "--key=" + PublicKeyFile(), Path("b/checkpoint"),
           Path("a/checkpoint"), Path("a-b.proof")});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("swapped?"));
  EXPECT_EQ(r.out, "");
  // The referee serves the checkpoint it signed at A's size byte for byte.
  ToolResult old_note = Refctl({"checkpoint", absl::StrCat("--size=", a_size)});
  ASSERT_EQ(old_note.code, 0) << old_note.err;
  EXPECT_EQ(old_note.out, Slurp(Path("a/checkpoint")));

  // Restarted, the referee keeps its tree and proves A's first log again.
  referee_->Signal(SIGTERM);
  ASSERT_EQ(referee_->Wait(kWait), 0) << referee_->err();
  ASSERT_NO_FATAL_FAILURE(StartReferee({"--listen=" + address_}));
  ToolResult latest = Refctl({"checkpoint"});
  ASSERT_EQ(latest.code, 0) << latest.err;
  EXPECT_EQ(CheckpointSize(latest.out), b_size);
  const std::string log = a_logs[0];
  const std::string match_id = MatchIdOf(log);
  ToolResult inclusion =
      Refctl({"inclusion", match_id, "--out=" + Path("again.tlog-proof")});
  ASSERT_EQ(inclusion.code, 0) << inclusion.err;
  r = Run("replay", {"verify", "--key=" + PublicKeyFile(),
                     "--inclusion=" + Path("again.tlog-proof"), log});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  // The proof does not vouch for another log.
  r = Run("replay", {"verify", "--key=" + PublicKeyFile(),
                     "--inclusion=" + Path("again.tlog-proof"), a_logs[1]});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
}

// `replay` tells a mistake in its input (status 2, on standard error) from
// a verdict on the evidence (status 1): checkpoints swapped, an inclusion
// proof given as the consistency proof, a directory that is not a
// tournament's, a secret key file given for the public one; a proof that
// does not hold stays a verdict. A witness's cosignature on a proof's
// checkpoint does not make it another checkpoint; `show` prints the
// header's label. On testdata/tlog alone: no referee.
TEST_F(E2eTest, ReplayTellsInputMistakesFromVerdicts) {
  const std::string tlog = "testdata/tlog";
  const std::string vkey = "--tlog_key=" + tlog + "/tlog.vkey";
  const std::string old_note = tlog + "/checkpoint-3";
  const std::string new_note = tlog + "/example/checkpoint";
  const std::string proof = tlog + "/consistency-3-6";
  const std::string log =
      tlog +
      "/example/logs/"
      "rock_paper_pyramid-d0aee5bef90ecef16d35bdd984664047.pyrlog";
  const std::string inclusion =
      tlog +
      "/example/proofs/"
      "rock_paper_pyramid-d0aee5bef90ecef16d35bdd984664047.tlog-proof";
  ToolResult r =
      Run("replay", {"consistency", vkey, old_note, new_note, proof});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  r = Run("replay", {"consistency", vkey, new_note, old_note, proof});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "consistency: the old checkpoint (size 6) is larger than the new "
            "one (size 3): swapped? The older checkpoint comes first (if it "
            "is the older, the tree shrank, which no proof can show "
            "consistent)\n");
  r = Run("replay", {"consistency", vkey, old_note, new_note, inclusion});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, absl::StrCat("consistency: ", inclusion,
                                " is not a consistency proof (it looks like "
                                "an inclusion proof, a .tlog-proof file)\n"));
  // A proof hash changed: a proof that does not hold, a verdict.
  std::string bad = Slurp(proof);
  bad[bad.size() - 3] = bad[bad.size() - 3] == 'A' ? 'B' : 'A';
  std::ofstream(Path("bad-proof")) << bad;
  r = Run("replay",
          {"consistency", vkey, old_note, new_note, Path("bad-proof")});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("NOT CONSISTENT: the proof does not show that "
                               "the tree of size 3 is a prefix"));

  // Not a tournament directory at all: status 2. One with its checkpoint
  // gone: 1, a problem named.
  fs::create_directory(Path("empty"));
  r = Run("replay", {"verify-tournament", Path("empty")});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, absl::StrCat(Path("empty"),
                                " is not a tournament directory (no "
                                "schedule.json, no checkpoint)\n"));
  const std::string copy = Path("example");
  fs::copy(tlog + "/example", copy, fs::copy_options::recursive);
  // A witness cosigned the checkpoint of one proof: the same tree.
  const std::string cosigned = absl::StrCat(
      copy, "/proofs/rock_paper_pyramid-d0aee5bef90ecef16d35bdd984664047",
      ".tlog-proof");
  std::ofstream(cosigned, std::ios::app)
      << "\xe2\x80\x94 witness.example AAAAAAAAAAAA\n";
  r = Run("replay", {"verify-tournament", copy});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  fs::remove(copy + "/checkpoint");
  r = Run("replay", {"verify-tournament", copy});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr(": checkpoint: "));

  // The referee's secret key file given for its public key.
  const std::string secret = Path("referee.key");
  ASSERT_TRUE(WriteKeyFiles(secret, SigningKey::Generate()).ok());
  r = Run("replay", {"verify", "--key=" + secret, log});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr(absl::StrCat(
                         "--key: ", secret,
                         " holds a secret key; give the public key (", secret,
                         ".pub)")));
  // Another referee's key: both keys named.
  r = Run("replay", {"verify", "--key=" + secret + ".pub", log});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat(
                         "is not the pinned key (header ",
                         Trimmed(tlog + "/example/referee.pub"), ", pinned ",
                         Trimmed(secret + ".pub"), ")")));

  // --inclusion without a pinned key: a note that it proves no referee.
  r = Run("replay", {"verify", "--inclusion=" + inclusion, log});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("replay: note: no key pinned"));
  r = Run("replay", {"verify", vkey, "--inclusion=" + inclusion, log});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");

  // show prints the signed label with the header.
  r = Run("replay", {"show", log});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nlabel \"example/434764977a9d6e1d/2\"\n"));
}

TEST_F(E2eTest, SigkillMidMatchLeavesAPrefixThatVerifiesToItsLastCheckpoint) {
  // Long deadlines: nobody times out while the test holds seat 2 still.
  ASSERT_NO_FATAL_FAILURE(
      StartReferee({"--commit_timeout_ms=60000", "--reveal_timeout_ms=60000"}));
  const std::string match = CreateMatch(Path("tok"));
  ASSERT_EQ(match.size(), 32u);
  WatchClient watch(channel_, match);
  StartBot(Path("tok/seat-0.token"));
  StartBot(Path("tok/seat-1.token"));
  // Seat 2 plays decisions 0 to 3 and then never answers decision 4.
  constexpr uint64_t kStall = 4;
  PlayClient seat2(
      grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()),
      Trimmed(Path("tok/seat-2.token")), "seat2");
  seat2.AutoPlay(0, kStall);
  ASSERT_TRUE(seat2.Await(IsDecision(match, 2, kStall)));
  for (uint32_t seat : {0u, 1u}) {
    ASSERT_TRUE(watch.AwaitEvent([&](const v1::WatchEvent& e) {
      return e.has_commit() && e.commit().decision_id() == kStall &&
             e.commit().seat() == seat;
    }));
  }
  const std::string before_kill = Slurp(LogPath(match));

  referee_->Signal(SIGKILL);
  EXPECT_EQ(referee_->Wait(kWait), 128 + SIGKILL);
  const std::string log = Slurp(LogPath(match));
  EXPECT_EQ(log, before_kill);  // Nothing was lost or added by the kill.
  const SplitLogResult split = SplitLog(log);
  EXPECT_EQ(split.tail, SplitLogResult::Tail::kClean) << split.tail_reason;

  ToolResult strict =
      Run("replay", {"verify", "--key=" + PublicKeyFile(), LogPath(match)});
  EXPECT_EQ(strict.code, 1) << strict.out << strict.err;
  EXPECT_THAT(strict.out, HasSubstr("unsealed prefix"));
  ToolResult lenient = Run("replay", {"verify", "--key=" + PublicKeyFile(),
                                      "--allow-unsealed", LogPath(match)});
  EXPECT_EQ(lenient.code, 0) << lenient.out << lenient.err;

  // The prefix reaches the last checkpoint, at most 4 records from the end
  // (--checkpoint_interval=4), and covers decisions 0 to 3.
  VerifyOptions options;
  absl::StatusOr<std::string> key = ParsePublicKey(PublicKeyFile());
  ASSERT_TRUE(key.ok()) << key.status();
  options.pinned_key = *key;
  const Verdict v = VerifyLog(log, options);
  EXPECT_EQ(v.kind, Verdict::Kind::kUnsealedPrefix) << v.reason;
  EXPECT_LE(v.records - v.signed_records, 4u) << v.reason;
  const std::vector<v1::LogRecord> records = svctest::ParseRecords(log);
  int applied = 0, seed_revealed = 0;
  for (uint64_t i = 0; i < v.signed_records && i < records.size(); ++i) {
    applied += records[i].has_applied();
    seed_revealed += records[i].has_seed_reveal();
  }
  EXPECT_EQ(seed_revealed, 1);
  EXPECT_EQ(applied, 3);  // Rounds 1 to 3.
  EXPECT_EQ(v.moves, 9u);

  // The referee comes back on the same address and data directory and
  // resumes the match by re-running its log. The bots reconnect by
  // themselves; seat 2 reconnects with its old token and is asked for
  // decision 4 again. The match ends, its log verifies with one Restart
  // record, and the referee lists it and serves its log byte for byte.
  ASSERT_NO_FATAL_FAILURE(
      StartReferee({"--listen=" + address_, "--commit_timeout_ms=60000",
                    "--reveal_timeout_ms=60000"}));
  PlayClient seat2_again(
      grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()),
      Trimmed(Path("tok/seat-2.token")), "seat2-again");
  seat2_again.AutoPlay(kStall);
  ASSERT_TRUE(seat2_again.Await(svctest::IsEnded(match, 2)));
  // The bots (seat tokens, --matches 0) lived through the referee's
  // downtime, and exit 0 once the referee ends their streams OK after the
  // match's end.
  for (auto& bot : bots_) EXPECT_EQ(bot->Wait(kWait), 0) << bot->err();
  ToolResult verified =
      Run("replay", {"verify", "--key=" + PublicKeyFile(), LogPath(match)});
  EXPECT_EQ(verified.code, 0) << verified.out << verified.err;
  EXPECT_THAT(verified.out, HasSubstr("genuine"));
  const std::string final_log = Slurp(LogPath(match));
  EXPECT_EQ(final_log.substr(0, log.size()), log);
  int restarts = 0, faults = 0;
  for (const v1::LogRecord& r : svctest::ParseRecords(final_log)) {
    restarts += r.has_restart();
    faults += r.has_fault();
  }
  EXPECT_EQ(restarts, 1);
  EXPECT_EQ(faults, 0);  // Nobody was charged for the referee's downtime.
  ToolResult listed = Refctl({"list"});
  EXPECT_EQ(listed.code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr(match));
  const std::string fetched = Path("fetched.pyrlog");
  ToolResult got = Refctl({"get-log", match, "--out=" + fetched});
  EXPECT_EQ(got.code, 0) << got.err;
  EXPECT_EQ(Slurp(fetched), final_log);
}

// Every other game end to end: one `bot` process per seat.
constexpr absl::Duration kMatchTime = absl::Seconds(45);

// The referee's resident memory (VmRSS), in KiB.
int64_t RssKib(pid_t pid) {
  for (absl::string_view line :
       absl::StrSplit(Slurp(absl::StrCat("/proc/", pid, "/status")), '\n')) {
    if (absl::ConsumePrefix(&line, "VmRSS:")) {
      int64_t kib = 0;
      line = absl::StripAsciiWhitespace(line);
      absl::ConsumeSuffix(&line, " kB");
      if (absl::SimpleAtoi(line, &kib)) return kib;
    }
  }
  return -1;
}

// Watch streams that never read: each is started, then left alone.
class SilentWatchers {
 public:
  SilentWatchers(const std::string& address, const std::string& match_id,
                 int count) {
    v1::WatchRequest request;
    request.set_match_id(match_id);
    for (int c = 0; c < kChannels; ++c) {
      grpc::ChannelArguments args;
      args.SetInt("pyramid.test.connection", c);  // One connection each.
      // Never read, down to the transport: no bandwidth probing (which
      // would let gRPC's client take megabytes per stream on their
      // behalf), and a small window per stream.
      args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
      args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 4096);
      stubs_.push_back(v1::Referee::NewStub(grpc::CreateCustomChannel(
          address, grpc::InsecureChannelCredentials(), args)));
    }
    for (int i = 0; i < count; ++i) {
      auto call = std::make_unique<Call>();
      call->reader = stubs_[i % kChannels]->PrepareAsyncWatch(&call->context,
                                                              request, &queue_);
      call->reader->StartCall(call.get());
      calls_.push_back(std::move(call));
    }
    for (int i = 0; i < count; ++i) {
      void* tag = nullptr;
      bool ok = false;
      EXPECT_TRUE(queue_.Next(&tag, &ok));
      started_ += ok;
    }
  }
  ~SilentWatchers() {
    for (auto& call : calls_) {
      call->context.TryCancel();
      call->reader->Finish(&call->status, call.get());
    }
    for (size_t i = 0; i < calls_.size(); ++i) {
      void* tag = nullptr;
      bool ok = false;
      queue_.Next(&tag, &ok);
    }
    queue_.Shutdown();
    void* tag = nullptr;
    bool ok = false;
    while (queue_.Next(&tag, &ok)) {
    }
  }
  int started() const { return started_; }

 private:
  static constexpr int kChannels = 8;
  struct Call {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientAsyncReader<v1::WatchEvent>> reader;
    grpc::Status status;
  };
  std::vector<std::unique_ptr<v1::Referee::Stub>> stubs_;
  grpc::CompletionQueue queue_;
  std::vector<std::unique_ptr<Call>> calls_;
  int started_ = 0;
};

// A second referee on a DATA_DIR in use refuses to start, naming the first,
// which goes on serving.
// docs/durability.md, "The journal": with --fsync=checkpoints a referee
// syncs a log itself only when it creates it (the header and its
// checkpoint), then only its journal. A power loss that then takes every
// later byte of the logs loses none the referee reported durable: two
// matches play to their end (a seat hears of the end only once the seal is
// durable), the referee is killed, the logs are cut after their first
// checkpoint, and the restarted referee rebuilds them byte for byte before
// it serves.
TEST_F(E2eTest, APowerLossLosesNoLogTheJournalHolds) {
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  std::vector<std::string> matches;
  for (int m = 0; m < 2; ++m) {
    matches.push_back(CreateMatch(Path(absl::StrCat("tok-", m))));
    ASSERT_EQ(matches.back().size(), 32u);
    for (int seat = 0; seat < 3; ++seat) {
      StartBot(Path(absl::StrCat("tok-", m, "/seat-", seat, ".token")),
               {"--matches=1"});
    }
  }
  for (auto& bot : bots_) ASSERT_EQ(bot->Wait(kWait), 0) << bot->err();
  bots_.clear();
  std::vector<std::string> ended;
  for (const std::string& match : matches) {
    ended.push_back(Slurp(LogPath(match)));
  }
  referee_->Signal(SIGKILL);
  EXPECT_EQ(referee_->Wait(kWait), 128 + SIGKILL);
  ASSERT_FALSE(fs::is_empty(data_ + "/journal"));
  for (size_t m = 0; m < matches.size(); ++m) {
    const SplitLogResult split = SplitLog(ended[m]);
    ASSERT_GT(split.records.size(), 40u);
    fs::resize_file(LogPath(matches[m]), split.records[2].offset);
  }

  ASSERT_NO_FATAL_FAILURE(StartReferee({"--listen=" + address_}));
  EXPECT_THAT(referee_->out(), HasSubstr("2 logs repaired"));
  for (size_t m = 0; m < matches.size(); ++m) {
    EXPECT_TRUE(Slurp(LogPath(matches[m])) == ended[m]) << matches[m];
    ToolResult verified = Run(
        "replay", {"verify", "--key=" + PublicKeyFile(), LogPath(matches[m])});
    EXPECT_EQ(verified.code, 0) << verified.out << verified.err;
  }
  ToolResult listed = Refctl({"list", "--status=finished"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  for (const std::string& match : matches) {
    EXPECT_THAT(listed.out, HasSubstr(match));
  }
}

// docs/durability.md, "Moving or copying a data directory": the registry
// and the journal name each log by its file name, which the referee
// resolves against its log directory (--log_dir, default DATA_DIR/logs)
// of the run that opens it. A data directory renamed after the referee
// stopped (SIGTERM), or after it was killed (SIGKILL, its journal left to
// replay, here with a power loss's cut of the ended match's log too),
// starts on its new name: the running match resumes and is played to a
// genuine end, the ended one's log is served byte for byte, and nothing
// is made at the old place. (They named the old paths: the running match
// ended MATCH_BROKEN, GetLog answered DATA_LOSS, and after a SIGKILL the
// journal's replay stopped the start.)
class MovedDataDirE2eTest : public E2eTest,
                            public ::testing::WithParamInterface<int> {};

TEST_P(MovedDataDirE2eTest, EveryMatchResumesOrIsServedOnTheNewName) {
  const int stop = GetParam();
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  std::string finished, running;
  ASSERT_NO_FATAL_FAILURE(
      FinishOneMatchAndLeaveOneRunning(&finished, &running));
  const std::string finished_log = Slurp(LogPath(finished));

  referee_->Signal(stop);
  ASSERT_EQ(referee_->Wait(kWait), stop == SIGKILL ? 128 + SIGKILL : 0)
      << referee_->err();
  if (stop == SIGKILL) {
    ASSERT_NO_FATAL_FAILURE(CutToItsFirstRecords(finished, finished_log));
  }
  const std::string old_data = data_;
  data_ = Path("moved");
  fs::rename(old_data, data_);
  ASSERT_NO_FATAL_FAILURE(StartReferee({"--listen=" + address_}));
  EXPECT_THAT(referee_->out(),
              HasSubstr("(1 ended, 1 resumed, 0 found broken (not resumed)"));
  if (stop == SIGKILL) {
    EXPECT_THAT(referee_->out(), HasSubstr("1 logs repaired"));
  }

  ASSERT_NO_FATAL_FAILURE(ExpectServedByteForByte(finished, finished_log));
  // The running match's seats play it to its end on the new name.
  EXPECT_TRUE(PlayToItsEnd(Path("tok-r")));
  ExpectGenuine(running);
  ASSERT_NO_FATAL_FAILURE(
      ExpectServedByteForByte(running, Slurp(LogPath(running))));
  ASSERT_NO_FATAL_FAILURE(ExpectNoneListedBroken({finished, running}));
  EXPECT_FALSE(fs::exists(old_data));
}

INSTANTIATE_TEST_SUITE_P(StoppedBy, MovedDataDirE2eTest,
                         ::testing::Values(SIGTERM, SIGKILL),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(
                               info.param == SIGKILL ? "Sigkill" : "Sigterm");
                         });

// docs/durability.md, "Moving or copying a data directory": with a
// --log_dir outside the data directory the journal names each log by its
// file name too, resolved against the --log_dir of the start that replays
// it. A log directory renamed after a SIGKILL (the journal left to replay,
// with a power loss's cut of the ended match's log) is repaired under its
// new name: a start given the old name refuses, naming the log there and
// the way out, and keeps the journal and makes nothing; the start given
// the new name repairs the log, resumes the running match, serves the
// ended one's log byte for byte, and leaves the old name unused. (The
// referee did not tell the journal its --log_dir: the entries named the
// logs by their old paths, and every start stopped at the replay.)
TEST_F(E2eTest, ALogDirectoryElsewhereRenamedAfterSigkillIsRepairedThere) {
  log_dir_ = Path("logs-a");
  ASSERT_NO_FATAL_FAILURE(StartReferee({"--log_dir=" + log_dir_}));
  std::string finished, running;
  ASSERT_NO_FATAL_FAILURE(
      FinishOneMatchAndLeaveOneRunning(&finished, &running));
  const std::string finished_log = Slurp(LogPath(finished));
  referee_->Signal(SIGKILL);
  ASSERT_EQ(referee_->Wait(kWait), 128 + SIGKILL) << referee_->err();
  ASSERT_NO_FATAL_FAILURE(CutToItsFirstRecords(finished, finished_log));
  const std::string old_log_dir = log_dir_;
  log_dir_ = Path("logs-b");
  fs::rename(old_log_dir, log_dir_);

  ToolResult refused =
      Run("referee", {"--listen=" + address_, "--port_file=" + Path("port"),
                      "--data_dir=" + data_, "--log_dir=" + old_log_dir});
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr(absl::StrCat(
                               "of the log ", old_log_dir, "/",
                               fs::path(LogPath(finished)).filename().string(),
                               ", which cannot be opened")));
  EXPECT_THAT(refused.err,
              HasSubstr("put the log back, or remove " + data_ +
                        "/journal to start without repairing it); the logs "
                        "are looked for in --log_dir " +
                        old_log_dir + "\n"));
  EXPECT_FALSE(fs::exists(old_log_dir));
  ASSERT_FALSE(fs::is_empty(data_ + "/journal"));

  ASSERT_NO_FATAL_FAILURE(
      StartReferee({"--listen=" + address_, "--log_dir=" + log_dir_}));
  EXPECT_THAT(referee_->out(), HasSubstr("1 logs repaired"));
  EXPECT_THAT(referee_->out(),
              HasSubstr("(1 ended, 1 resumed, 0 found broken (not resumed)"));
  EXPECT_TRUE(Slurp(LogPath(finished)) == finished_log);
  ASSERT_NO_FATAL_FAILURE(ExpectServedByteForByte(finished, finished_log));
  EXPECT_TRUE(PlayToItsEnd(Path("tok-r")));
  ExpectGenuine(running);
  ASSERT_NO_FATAL_FAILURE(ExpectNoneListedBroken({finished, running}));
  EXPECT_FALSE(fs::exists(old_log_dir));
}

// SHA-256 of every file in `dir`, by name.
std::map<std::string, std::string> FileHashes(const std::string& dir) {
  std::map<std::string, std::string> hashes;
  for (const auto& entry : fs::directory_iterator(dir)) {
    hashes[entry.path().filename().string()] =
        ToHex(AsView(Sha256(Slurp(entry.path().string()))));
  }
  return hashes;
}

// docs/durability.md, "Moving or copying a data directory": a copy of a
// data directory (cp -a, its lock file removed) run beside the original
// works on its own logs. The copy's referee resumes the running match and
// plays it to its end, and serves the ended one's log; the original's logs
// are byte for byte what they were. (The copy's registry named the
// original's paths: its referee resumed the match by writing into the
// original's log.)
TEST_F(E2eTest, ARefereeOnACopyOfItsDataDirectoryLeavesTheOriginalsLogsAlone) {
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  std::string finished, running;
  ASSERT_NO_FATAL_FAILURE(
      FinishOneMatchAndLeaveOneRunning(&finished, &running));
  referee_->Signal(SIGTERM);
  ASSERT_EQ(referee_->Wait(kWait), 0) << referee_->err();

  const std::string original = data_;
  const std::map<std::string, std::string> hashes =
      FileHashes(original + "/logs");
  ASSERT_EQ(hashes.size(), 2u);
  data_ = Path("copy");
  fs::copy(original, data_, fs::copy_options::recursive);
  fs::remove(data_ + "/lock");
  ASSERT_NO_FATAL_FAILURE(StartReferee({"--listen=" + address_}));
  EXPECT_THAT(referee_->out(),
              HasSubstr("(1 ended, 1 resumed, 0 found broken (not resumed)"));
  EXPECT_TRUE(PlayToItsEnd(Path("tok-r")));
  ExpectGenuine(running);
  ASSERT_NO_FATAL_FAILURE(ExpectServedByteForByte(
      finished, Slurp(original + "/logs/" +
                      fs::path(LogPath(finished)).filename().string())));
  referee_->Signal(SIGTERM);
  EXPECT_EQ(referee_->Wait(kWait), 0) << referee_->err();
  EXPECT_EQ(FileHashes(original + "/logs"), hashes);
  EXPECT_NE(FileHashes(data_ + "/logs"), hashes);  // The copy's went on.
}

// docs/durability.md, "What the referee keeps": a data directory the
// referee makes is 0700; an existing one (".", a home directory) keeps its
// mode, and what holds a secret is 0600 itself: a running match's log (its
// seed gives its hidden cards away, 0644 once the match has ended) and the
// journal's copy of it.
TEST_F(E2eTest, SecretsAre0600WhateverTheDataDirsMode) {
  const auto mode = [](const std::string& path) {
    return static_cast<int>(fs::status(path).permissions() & fs::perms::mask);
  };
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  EXPECT_EQ(mode(data_), 0700);
  referee_->Signal(SIGTERM);
  EXPECT_EQ(referee_->Wait(kWait), 0) << referee_->err();

  data_ = Path("shared");
  fs::create_directory(data_);
  fs::permissions(data_, static_cast<fs::perms>(0755));
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  const std::string match = CreateMatch(Path("tok"));
  ASSERT_EQ(match.size(), 32u);
  EXPECT_EQ(mode(LogPath(match)), 0600);
  for (int seat = 0; seat < 3; ++seat) {
    StartBot(Path(absl::StrCat("tok/seat-", seat, ".token")), {"--matches=1"});
  }
  for (auto& bot : bots_) ASSERT_EQ(bot->Wait(kWait), 0) << bot->err();
  EXPECT_EQ(mode(data_), 0755);
  // A seat hears of the end once the seal is durable, a moment before the
  // referee's end-of-match work.
  const absl::Time end = absl::Now() + kWait;
  while (mode(LogPath(match)) != 0644 && absl::Now() < end) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(mode(LogPath(match)), 0644);
  int journal_files = 0;
  for (const auto& entry : fs::directory_iterator(data_ + "/journal")) {
    EXPECT_EQ(mode(entry.path().string()), 0600) << entry.path();
    ++journal_files;
  }
  EXPECT_GT(journal_files, 0);
  for (const char* name : {"referee.key", "admin.token", "registry.sqlite3"}) {
    EXPECT_EQ(mode(data_ + "/" + name), 0600) << name;
  }
}

TEST_F(E2eTest, ASecondRefereeOnTheSameDataDirIsRefused) {
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  ToolResult second =
      Run("referee", {"--listen=127.0.0.1:0", "--data_dir=" + data_});
  EXPECT_EQ(second.code, 2);
  EXPECT_THAT(second.err, HasSubstr(absl::StrCat(
                              data_, " is in use by another process (pid ",
                              referee_->pid(), ")")));
  // Nor on its address, from another directory: one line says why, and
  // nothing else (no gRPC log lines from a server that never started).
  ToolResult third = Run(
      "referee", {"--listen=" + address_, "--data_dir=" + Path("other-data")});
  EXPECT_EQ(third.code, 2);
  EXPECT_EQ(third.err, "referee: cannot listen on " + address_ +
                           ": Address already in use\n");
  EXPECT_FALSE(fs::exists(Path("other-data")));
  EXPECT_EQ(CreateMatch(Path("tok")).size(), 32u);
}

// Every file under `dir` with its contents, by path.
std::map<std::string, std::string> Tree(const std::string& dir) {
  std::map<std::string, std::string> tree;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    tree[entry.path().string()] = entry.is_regular_file()
                                      ? Slurp(entry.path().string())
                                      : std::string("(directory)");
  }
  return tree;
}

// A referee that cannot start leaves nothing new behind: on an address
// another process listens on, it says so in one line (no gRPC log line
// first) before it writes anything, whether its DATA_DIR is new, empty or
// holds a referee's state; and when a later step fails (here the port
// file, once the server is bound), what it made goes again.
TEST_F(E2eTest, ARefereeThatCannotStartLeavesNothingBehind) {
  // The address, taken by a plain socket of this process.
  const int taken = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(taken, 0);
  sockaddr_in bound{};
  bound.sin_family = AF_INET;
  bound.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(bound);
  ASSERT_EQ(bind(taken, reinterpret_cast<sockaddr*>(&bound), size), 0);
  ASSERT_EQ(listen(taken, 1), 0);
  ASSERT_EQ(getsockname(taken, reinterpret_cast<sockaddr*>(&bound), &size), 0);
  const std::string address = absl::StrCat("127.0.0.1:", ntohs(bound.sin_port));
  const std::string refused =
      "referee: cannot listen on " + address + ": Address already in use\n";

  ToolResult fresh = Run(
      "referee", {"--listen=" + address, "--data_dir=" + Path("fresh/data")});
  EXPECT_EQ(fresh.code, 2);
  EXPECT_EQ(fresh.err, refused);
  EXPECT_EQ(fresh.out, "");
  EXPECT_FALSE(fs::exists(Path("fresh")));

  fs::create_directory(Path("empty"));
  ToolResult empty =
      Run("referee", {"--listen=" + address, "--data_dir=" + Path("empty")});
  EXPECT_EQ(empty.code, 2);
  EXPECT_EQ(empty.err, refused);
  EXPECT_TRUE(fs::is_empty(Path("empty")));

  // A data directory a referee has run on.
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  EXPECT_EQ(CreateMatch(Path("tok")).size(), 32u);
  referee_->Signal(SIGTERM);
  ASSERT_EQ(referee_->Wait(kWait), 0) << referee_->err();
  const std::map<std::string, std::string> before = Tree(data_);
  ToolResult used =
      Run("referee", {"--listen=" + address, "--data_dir=" + data_});
  EXPECT_EQ(used.code, 2);
  EXPECT_EQ(used.err, refused);
  EXPECT_TRUE(Tree(data_) == before) << "the data directory changed";
  close(taken);

  // Bound, then stopped by the port file: DATA_DIR (new or empty) and
  // --log_dir (new) are as they were.
  for (const std::string& dir : {Path("late/data"), Path("empty")}) {
    ToolResult late =
        Run("referee", {"--listen=127.0.0.1:0", "--data_dir=" + dir,
                        "--log_dir=" + Path("late-logs/logs"),
                        "--port_file=" + Path("no-dir/port")});
    EXPECT_EQ(late.code, 2) << dir;
    EXPECT_THAT(late.err, HasSubstr("referee: --port_file: cannot create "))
        << dir;
    EXPECT_FALSE(fs::exists(Path("late-logs"))) << dir;
  }
  EXPECT_FALSE(fs::exists(Path("late")));
  EXPECT_TRUE(fs::is_empty(Path("empty")));

  // TLS files gRPC would refuse only once the files are made (in its own
  // log, naming neither): named with what is wrong, before anything.
  std::ofstream(Path("junk.pem")) << "junk\n";
  ToolResult tls =
      Run("referee",
          {"--listen=127.0.0.1:0", "--data_dir=" + Path("tls-data"),
           "--tls_cert=" + Path("junk.pem"), "--tls_key=" + Path("junk.pem")});
  EXPECT_EQ(tls.code, 2);
  EXPECT_EQ(tls.err, "referee: --tls_cert: " + Path("junk.pem") +
                         " holds no PEM certificate (-----BEGIN "
                         "CERTIFICATE-----)\n");
  EXPECT_FALSE(fs::exists(Path("tls-data")));
}

// A token file holding anything but a token (here, binary bytes) is named
// as such; gRPC would abort the whole process on its bytes as metadata.
TEST_F(E2eTest, AFileThatHoldsNoTokenIsNamedNotSent) {
  const std::string junk = Path("junk.token");
  std::ofstream(junk, std::ios::binary) << std::string("\x01\xff tok\nen", 9);
  ToolResult bot =
      Run("bot", {"--referee=127.0.0.1:1", "--token_file=" + junk});
  EXPECT_EQ(bot.code, 2);
  EXPECT_THAT(bot.err, HasSubstr(junk + " does not hold a token"));
  ToolResult negative = Run("bot", {"--referee=127.0.0.1:1", "--matches=-1"});
  EXPECT_EQ(negative.code, 2);
  EXPECT_THAT(negative.err, HasSubstr("--matches is 0 or more, not -1"));
  ToolResult refctl =
      Run("refctl", {"--referee=127.0.0.1:1", "--admin_token_file=" + junk,
                     "register-bot", "b"});
  EXPECT_EQ(refctl.code, 1);
  EXPECT_THAT(refctl.err, HasSubstr(junk + " does not hold a token"));
}

// refctl checks where the tokens it is about to be issued go before asking
// for them: a --token_dir it cannot use, a bot token file that is already
// there (it may hold another bot's token) or whose directory is missing
// stop it before the referee records a match or a bot whose secret would be
// lost. A bot's name becomes a file name in the current directory only
// through letters, digits, '-' and '_'.
TEST_F(E2eTest, RefctlChecksWhereTokensGoBeforeTheyAreIssued) {
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  const std::string file = Path("a-file");
  std::ofstream(file) << "x\n";
  ToolResult r = Refctl({"create-match", "--game=" + std::string(kRpp),
                         "--seats=3", "--token_dir=" + file});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err,
              HasSubstr("refctl: --token_dir " + file + " is not a directory"));
  EXPECT_THAT(r.err, HasSubstr("; no match created"));
  fs::create_directories(Path("tok/seat-1.token"));
  r = Refctl({"create-match", "--game=" + std::string(kRpp), "--seats=3",
              "--token_dir=" + Path("tok")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("seat-1.token: it is a directory; no match "
                               "created"));
  // A game of one seat count says that count.
  r = Refctl({"create-match", "--game=" + std::string(kRpp), "--seats=2",
              "--token_dir=" + Path("tok-2")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("refctl: INVALID_ARGUMENT: rock_paper_pyramid "
                               "takes 3 seats, not 2"));
  // A refused match leaves no token directory behind (of what refctl made
  // for it), and one that was there before stays.
  EXPECT_FALSE(fs::exists(Path("tok-2")));
  r = Refctl({"create-match", "--game=" + std::string(kRpp), "--seats=2",
              "--token_dir=" + Path("new/deeper")});
  EXPECT_EQ(r.code, 1);
  EXPECT_FALSE(fs::exists(Path("new")));
  r = Refctl({"create-match", "--game=" + std::string(kRpp), "--seats=2",
              "--token_dir=" + Path("tok")});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(fs::is_directory(Path("tok")));
  {
    grpc::ClientContext context;
    v1::ListMatchesResponse listed;
    ASSERT_TRUE(
        stub_->ListMatches(&context, v1::ListMatchesRequest(), &listed).ok());
    EXPECT_EQ(listed.matches_size(), 0) << "a match was created";
  }

  // A bot token file is never overwritten.
  r = Refctl({"register-bot", "first", "--token_out=" + Path("bot.token")});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string first_token = Trimmed(Path("bot.token"));
  r = Refctl({"register-bot", "second", "--token_out=" + Path("bot.token")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr(Path("bot.token") +
                               " exists and may hold another bot's token"));
  EXPECT_THAT(r.err, HasSubstr("no bot registered"));
  EXPECT_EQ(Trimmed(Path("bot.token")), first_token);
  r = Refctl(
      {"register-bot", "third", "--token_out=" + Path("missing/bot.token")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("is not a directory; no bot registered"));

  // The default file: the name made safe, in the current directory.
  fs::create_directories(Path("cwd"));
  Process p({"/bin/sh", "-c",
             absl::StrCat("cd '", Path("cwd"), "' && exec '", Bin("refctl"),
                          "' --referee=", address_, " --admin_token_file=",
                          data_, "/admin.token register-bot '../a/b c'")},
            Path("sh.out"), Path("sh.err"));
  ASSERT_EQ(p.Wait(kWait), 0) << p.err();
  EXPECT_THAT(p.err(), HasSubstr("bot token written to ___a_b_c.token"));
  EXPECT_FALSE(Trimmed(Path("cwd/___a_b_c.token")).empty());
  EXPECT_EQ(
      fs::status(Path("cwd/___a_b_c.token")).permissions() & fs::perms::all,
      fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_FALSE(fs::exists(Path("a")));
}

// selfplay refuses a mistake in its command line as a usage error (status
// 2), saying what it is, before it makes its output directory; the
// corrected command then writes its logs there.
TEST_F(E2eTest, SelfplayRefusesMistakesBeforeWritingAnything) {
  std::ofstream(Path("junk.key")) << "not a key\n";
  const struct {
    std::vector<std::string> flags;
    std::string message;
  } cases[] = {
      {{"--seats=99"},
       "selfplay: --seats: rock_paper_pyramid takes 3 seats, not 99"},
      {{"--seats=-1"}, "selfplay: --matches and --seats are not negative"},
      {{"--matches=-1"}, "selfplay: --matches and --seats are not negative"},
      {{"--game=no_such_game"}, "selfplay: unknown game \"no_such_game\""},
      {{"--options=bogus"},
       "selfplay: cannot parse --options: line 1 column 6: Message type "
       "\"pyramid.referee.v1.GameConfig\" has no field named \"bogus\""},
      {{"--deterministic=abc"},
       "selfplay: --deterministic takes 64 hex digits"},
      {{"--key=" + Path("missing.key")},
       "selfplay: --key: cannot read " + Path("missing.key")},
      {{"--key=" + Path("junk.key")},
       "selfplay: --key: " + Path("junk.key") + ": expected 64 hex digits"},
      {{"surplus"},
       "selfplay: takes no positional arguments (got \"surplus\")"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"--out=" + Path("sp")};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    const std::string flags = absl::StrJoin(c.flags, " ");
    ToolResult r = Run("selfplay", args);
    EXPECT_EQ(r.code, 2) << flags << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << flags;
    // The program's own line only: protobuf logs nothing of its own.
    EXPECT_THAT(r.err, Not(HasSubstr("[libprotobuf"))) << flags;
    EXPECT_FALSE(fs::exists(Path("sp"))) << flags;
    fs::remove_all(Path("sp"));  // For the next case.
  }
  // Corrected: a key that reads, logs signed with it and no key of its own.
  const SigningKey key = SigningKey::Generate();
  ASSERT_TRUE(WriteKeyFiles(Path("good.key"), key).ok());
  ToolResult r = Run("selfplay", {"--out=" + Path("sp"), "--matches=1",
                                  "--key=" + Path("good.key")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(Path("sp/referee.key")));
  const std::vector<std::string> logs = Files(Path("sp"));
  ASSERT_EQ(logs.size(), 1u);
  std::vector<v1::LogRecord> records = svctest::ParseRecords(Slurp(logs[0]));
  ASSERT_FALSE(records.empty()) << logs[0];
  EXPECT_EQ(records[0].header().referee_public_key(), key.public_key());
}

// A damaged registry or transparency log stops the referee at its start,
// naming the file. (Each directory has its key: one that holds a
// transparency log but not its key is refused before the log is opened.)
TEST_F(E2eTest, ADamagedDatabaseIsNamedAtStart) {
  for (const char* name : {"registry.sqlite3", "tlog.sqlite3"}) {
    const std::string data_dir = Path(absl::StrCat("damaged-", name));
    fs::create_directories(data_dir);
    ASSERT_TRUE(
        WriteKeyFiles(data_dir + "/referee.key", SigningKey::Generate()).ok());
    std::ofstream(data_dir + "/" + name, std::ios::binary)
        << std::string(4096, '\x5a');
    ToolResult r =
        Run("referee", {"--listen=127.0.0.1:0", "--data_dir=" + data_dir});
    EXPECT_EQ(r.code, 2) << name;
    EXPECT_THAT(r.err, HasSubstr(absl::StrCat("file is not a database (",
                                              data_dir, "/", name, ")")))
        << name;
  }
}

// Waits (up to kWait) until a running `refctl watch` has printed the
// match's snapshot.
void AwaitSnapshot(const Process& watch) {
  const absl::Time end = absl::Now() + kWait;
  while (watch.out().find("\"snapshot\"") == std::string::npos &&
         absl::Now() < end && watch.running()) {
    absl::SleepFor(absl::Milliseconds(20));
  }
}

// `refctl watch` is live when its output goes to a file or a pipe: each
// event's line is written as it arrives (here the match and the snapshot
// of a match whose seats have not connected), not when the stream ends.
TEST_F(E2eTest, RefctlWatchWritesEachEventAsItArrives) {
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  const std::string match = CreateMatch(Path("tok"));
  ASSERT_EQ(match.size(), 32u);
  Process watch({Bin("refctl"), "--referee=" + address_, "watch", match},
                Path("watch.out"), Path("watch.err"));
  AwaitSnapshot(watch);
  EXPECT_TRUE(watch.running()) << watch.err();
  EXPECT_THAT(watch.out(), HasSubstr("{\"match\":{\"match_id\":\"" + match));
  EXPECT_THAT(watch.out(), HasSubstr("{\"snapshot\":"));
  // Interrupted, it keeps what it wrote.
  watch.Signal(SIGINT);
  EXPECT_NE(watch.Wait(kWait), -1);
  EXPECT_THAT(watch.out(), HasSubstr("{\"snapshot\":"));
}

// `refctl watch` of a match played while it watches: a move's delta shows
// only what the move changed, no field at zero (what the move emptied is
// listed in `cleared`), as ViewDelta says.
TEST_F(E2eTest, RefctlWatchPrintsOnlyWhatEachMoveChanged) {
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  const std::string match = CreateMatch(Path("tok"));
  ASSERT_EQ(match.size(), 32u);
  Process watch({Bin("refctl"), "--referee=" + address_, "watch", match},
                Path("watch.out"), Path("watch.err"));
  // Watching before the first move: every move comes as a delta.
  AwaitSnapshot(watch);
  for (int seat = 0; seat < 3; ++seat) {
    StartBot(Path(absl::StrCat("tok/seat-", seat, ".token")),
             {"--matches=1", "--quiet"});
  }
  for (auto& bot : bots_) ASSERT_EQ(bot->Wait(kWait), 0) << bot->err();
  ASSERT_EQ(watch.Wait(kWait), 0) << watch.err();
  int deltas = 0;
  for (absl::string_view line : absl::StrSplit(watch.out(), '\n')) {
    if (!absl::StrContains(line, "\"delta\":")) continue;
    ++deltas;
    const absl::string_view delta = line.substr(line.find("\"delta\":"));
    EXPECT_FALSE(absl::StrContains(delta, "\":0,") ||
                 absl::StrContains(delta, "\":0}"))
        << line;
  }
  EXPECT_GT(deltas, 5) << watch.out();
}

// docs/protocol.md, "Who may watch": a referee started with
// --public_watch=false answers reads (list, get-match, watch, get-log of a
// finished match, and the transparency log's checkpoint and inclusion
// proofs) to refctl when it has the admin token, and refuses them
// UNAUTHENTICATED to a refctl without any token. An --admin_token_file that
// cannot be read is named, as the admin commands do, instead of sending
// nothing.
TEST_F(E2eTest, ReadsOfAPrivateRefereeSendTheAdminToken) {
  ASSERT_NO_FATAL_FAILURE(StartReferee({"--public_watch=false"}));
  const std::string match = CreateMatch(Path("tok"));
  ASSERT_EQ(match.size(), 32u);
  for (int seat = 0; seat < 3; ++seat) {
    StartBot(Path(absl::StrCat("tok/seat-", seat, ".token")),
             {"--matches=1", "--quiet"});
  }
  for (auto& bot : bots_) ASSERT_EQ(bot->Wait(kWait), 0) << bot->err();

  ToolResult listed = Refctl({"list"});
  EXPECT_EQ(listed.code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr(match));
  ToolResult info = Refctl({"get-match", match});
  EXPECT_EQ(info.code, 0) << info.err;
  EXPECT_THAT(info.out, HasSubstr("MATCH_FINISHED"));
  ToolResult watched = Refctl({"watch", match});
  EXPECT_EQ(watched.code, 0) << watched.err;
  EXPECT_THAT(watched.out, HasSubstr("\"outcome\""));
  ToolResult checkpoint = Refctl({"checkpoint"});
  EXPECT_EQ(checkpoint.code, 0) << checkpoint.err;
  ToolResult inclusion = Refctl({"inclusion", match});
  EXPECT_EQ(inclusion.code, 0) << inclusion.err;
  ToolResult log =
      Refctl({"get-log", match, "--out=" + Path("private.pyrlog")});
  EXPECT_EQ(log.code, 0) << log.err;

  // No token at all: no flag, no $PYRAMID_ADMIN_TOKEN, no
  // referee-data/admin.token in the current directory.
  fs::create_directories(Path("cwd"));
  for (const std::string& command : std::vector<std::string>{
           "list", "get-match " + match, "watch " + match, "checkpoint",
           "inclusion " + match,
           "get-log " + match + " --out=anonymous.pyrlog"}) {
    Process p(
        {"/bin/sh", "-c",
         absl::StrCat("cd '", Path("cwd"),
                      "' && unset PYRAMID_ADMIN_TOKEN && exec '", Bin("refctl"),
                      "' --referee=", address_, " ", command)},
        Path("anonymous.out"), Path("anonymous.err"));
    EXPECT_EQ(p.Wait(kWait), 1) << command;
    EXPECT_THAT(p.err(), HasSubstr("refctl: UNAUTHENTICATED: this referee "
                                   "serves matches to its token holders "
                                   "only (--public_watch=false)"))
        << command;
    EXPECT_THAT(p.out(), Not(HasSubstr(match))) << command;
  }
  ToolResult unreadable =
      Run("refctl", {"--referee=" + address_,
                     "--admin_token_file=" + Path("missing.token"), "list"});
  EXPECT_EQ(unreadable.code, 1);
  EXPECT_THAT(unreadable.err,
              HasSubstr("refctl: the admin token: cannot open " +
                        Path("missing.token")));
}

// The key of a data directory is generated only on its first start: one
// whose referee.key is gone but which holds a transparency log (signed
// with that key) is refused, naming both, and nothing is created; given
// the key with --key_file, it starts (its transparency log takes no
// other key).
TEST_F(E2eTest, AMissingKeyIsNotReplacedInADataDirThatHasAnIdentity) {
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  referee_->Signal(SIGTERM);
  ASSERT_EQ(referee_->Wait(kWait), 0) << referee_->err();
  fs::rename(data_ + "/referee.key", Path("moved.key"));
  fs::rename(data_ + "/referee.key.pub", Path("moved.key.pub"));
  const std::vector<std::string> before = Files(data_);

  ToolResult r =
      Run("referee", {"--listen=127.0.0.1:0", "--data_dir=" + data_});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr(absl::StrCat(
                         "referee: ", data_, "/referee.key is missing, but ",
                         data_, "/tlog.sqlite3 holds a transparency log")));
  EXPECT_THAT(r.err, HasSubstr("restore that key file, or give it with "
                               "--key_file"));
  EXPECT_EQ(Files(data_), before) << "a file was created";

  ASSERT_NO_FATAL_FAILURE(StartReferee({"--key_file=" + Path("moved.key")}));
  ToolResult listed = Refctl({"list"});
  EXPECT_EQ(listed.code, 0) << listed.err;
  EXPECT_FALSE(fs::exists(data_ + "/referee.key"));
}

// A data directory started with one key refuses a start with another
// (its transparency log must never sign under two identities), saying
// what to do as the missing key's refusal does: leave --key_file out to
// use the key it was started with, naming that key's public half, or give
// another --data_dir; with the default key replaced, the key to give.
TEST_F(E2eTest, AnotherKeyIsRefusedNamingTheKeyTheDataDirWasStartedWith) {
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  referee_->Signal(SIGTERM);
  ASSERT_EQ(referee_->Wait(kWait), 0) << referee_->err();
  const std::string other = Path("other.key");
  ASSERT_TRUE(WriteKeyFiles(other, SigningKey::Generate()).ok());

  ToolResult r = Run("referee", {"--listen=127.0.0.1:0", "--data_dir=" + data_,
                                 "--key_file=" + other});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err,
              HasSubstr("(a log must never sign under two "
                        "identities): leave --key_file out to use "
                        "the key it was started with, " +
                        data_ + "/referee.key (its public half is " + data_ +
                        "/referee.key.pub), or give another "
                        "--data_dir to start a new identity\n"));

  fs::rename(data_ + "/referee.key", Path("moved.key"));
  fs::rename(data_ + "/referee.key.pub", Path("moved.key.pub"));
  ASSERT_TRUE(
      WriteKeyFiles(data_ + "/referee.key", SigningKey::Generate()).ok());
  r = Run("referee", {"--listen=127.0.0.1:0", "--data_dir=" + data_});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("(a log must never sign under two "
                               "identities): give --key_file the key it was "
                               "started with (its public half is the key "
                               "above, which " +
                               data_ +
                               "/tlog.vkey names), or give another "
                               "--data_dir to start a new identity\n"));
}

// A flag value its parser cannot judge alone is refused with status 2,
// naming it, before the referee creates anything on disk.
TEST_F(E2eTest, BadFlagValuesAreRefusedBeforeDataDirIsTouched) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--sync_threads=-3", "--sync_threads is 0 to 1024, not -3"},
      {"--sync_threads=5000", "--sync_threads is 0 to 1024, not 5000"},
      {"--max_message_bytes=0", "--max_message_bytes must be positive, not 0"},
      {"--fsync=sometimes", "--fsync is never, checkpoints or every_record"},
      {"--play_queues=0", "--play_queues is 1 to 64, not 0"},
      {"--max_log_readers=0", "--max_log_readers must be at least 1, not 0"},
      {"--max_health_watchers=0",
       "--max_health_watchers must be at least 1, not 0"},
      {"--log_stall_timeout_s=-1", "--log_stall_timeout_s"},
      {"--write_stall_timeout_s=86401",
       "--write_stall_timeout_s is 0 (never) to "},
      {"--max_calls_per_peer=0",
       "--max_calls_per_peer must be at least 1, not 0"},
      {"--max_health_watchers_per_peer=0",
       "--max_health_watchers_per_peer must be at least 1, not 0"},
      {"--max_health_checks_per_peer=0",
       "--max_health_checks_per_peer must be at least 1, not 0"},
      {"--max_reflection_threads=2",
       "--max_reflection_threads is 4 to 4096, not 2"},
      {"--tls_key=" + Path("key.pem"),
       "referee: --tls_cert and --tls_key go together: give both"},
      {"--tls_cert=" + Path("cert.pem"),
       "referee: --tls_cert and --tls_key go together: give both"},
      {"--key_file=" + Path("mistyped.key"),
       "referee: --key_file: cannot read " + Path("mistyped.key") +
           ": No such file or directory; create a key with keygen, or leave "
           "--key_file out to use DATA_DIR/referee.key"},
      {"--listen=bogus", "referee: --listen is HOST:PORT"},
      {"--listen=127.0.0.1:70000", "referee: --listen is HOST:PORT"},
      {"--key_file=" + Path("junk.key"),
       "referee: --key_file: " + Path("junk.key") + ": expected 64 hex digits"},
      {"--admin_token_file=" + Path("missing.token"),
       "referee: --admin_token_file: cannot open " + Path("missing.token") +
           ": No such file or directory"},
  };
  std::ofstream(Path("junk.key")) << "junk\n";
  for (const auto& [flag, message] : cases) {
    const std::string data_dir = Path("never-made");
    ToolResult r = Run(
        "referee", {"--listen=127.0.0.1:0", "--data_dir=" + data_dir, flag});
    EXPECT_EQ(r.code, 2) << flag;
    EXPECT_THAT(r.err, HasSubstr(message)) << flag;
    EXPECT_FALSE(fs::exists(data_dir)) << flag;
    EXPECT_FALSE(fs::exists(Path("mistyped.key"))) << flag;
  }
  // A DATA_DIR that cannot even be looked at (a loop of symbolic links) is
  // named, not thrown.
  {
    fs::create_symlink(Path("loop"), Path("loop"));
    ToolResult r =
        Run("referee", {"--listen=127.0.0.1:0", "--data_dir=" + Path("loop")});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("referee: cannot create --data_dir " +
                                 Path("loop") + ": "));
  }
  // A port file that cannot be written stops the referee with a message.
  {
    ToolResult r =
        Run("referee", {"--listen=127.0.0.1:0", "--data_dir=" + Path("data-2"),
                        "--port_file=" + Path("no-dir/port")});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("referee: --port_file: cannot create "));
  }
}

// refctl names what is wrong with its command line, before it calls the
// referee (none runs here), with status 2, as for any mistake in it.
TEST_F(E2eTest, RefctlNamesTheMistakeInItsCommandLine) {
  const struct {
    std::vector<std::string> args;
    int code;
    std::string message;
  } cases[] = {
      {{"bogus-cmd"}, 2, "refctl: unknown command \"bogus-cmd\"\nusage:"},
      {{"get-match"}, 2, "refctl: get-match: wrong number of arguments"},
      {{"create-match", "--seats=3", "--names=a,b"},
       2,
       "--names has 2 entries for 3 seats: give one per seat"},
      {{"create-match", "--seats=2", "--bots=x,,y"},
       2,
       "--bots has 3 entries for 2 seats: give one per seat"},
      {{"list", "--status=over"},
       2,
       "--status is running, finished or broken, not \"over\""},
      {{"register-bot", "b", "--public_key=abcd"},
       2,
       "refctl: --public_key is 64 hex digits (an Ed25519 public key, 32 "
       "bytes)"},
      {{"register-bot", "b", "--public_key=xyz"},
       2,
       "refctl: --public_key is 64 hex digits"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = c.args;
    args.push_back("--referee=127.0.0.1:1");
    ToolResult r = Run("refctl", args);
    EXPECT_EQ(r.code, c.code) << c.args[0];
    EXPECT_THAT(r.err, HasSubstr(c.message)) << c.args[0];
  }
}

// --max_live_matches: CreateMatch beyond it is refused UNAVAILABLE,
// naming the flag, until a live match ends.
TEST_F(E2eTest, MaxLiveMatchesRefusesCreationUntilAMatchEnds) {
  ASSERT_NO_FATAL_FAILURE(StartReferee({"--max_live_matches=1"}));
  const std::string match = CreateMatch(Path("tok-1"));
  ASSERT_EQ(match.size(), 32u);
  ToolResult refused = Refctl({"create-match", "--game=" + std::string(kRpp),
                               "--seats=3", "--token_dir=" + Path("tok-2")});
  EXPECT_NE(refused.code, 0);
  EXPECT_THAT(refused.err,
              HasSubstr("refctl: UNAVAILABLE: the referee's limit of live "
                        "matches is reached (--max_live_matches=1, 1 live)"));
  for (int seat = 0; seat < 3; ++seat) {
    StartBot(Path(absl::StrCat("tok-1/seat-", seat, ".token")),
             {"--matches=1", "--quiet"});
  }
  for (auto& bot : bots_) ASSERT_EQ(bot->Wait(kMatchTime), 0) << bot->err();
  EXPECT_EQ(CreateMatch(Path("tok-3")).size(), 32u);
}

// A GetLog call whose client never reads, on a connection of its own that
// keeps gRPC's initial 64 KiB window: for a log larger than that, it holds
// one of the referee's --max_log_readers places until it is cancelled.
class SilentGetLog {
 public:
  SilentGetLog(const std::string& address, const std::string& match_id) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.use_local_subchannel_pool", 1);
    args.SetInt("grpc.http2.bdp_probe", 0);
    stub_ = v1::Referee::NewStub(grpc::CreateCustomChannel(
        address, grpc::InsecureChannelCredentials(), args));
    v1::GetLogRequest request;
    request.set_match_id(match_id);
    reader_ = stub_->GetLog(&context_, request);
    reader_->WaitForInitialMetadata();  // The server serves it.
  }
  ~SilentGetLog() {
    context_.TryCancel();
    if (!ended_) Finish().IgnoreError();
  }
  void Cancel() { context_.TryCancel(); }
  // Reads what reached it, then the call's status (once only).
  grpc::Status Finish() {
    ended_ = true;
    v1::LogChunk chunk;
    while (reader_->Read(&chunk)) received_ += chunk.data().size();
    return reader_->Finish();
  }
  size_t received() const { return received_; }

 private:
  std::unique_ptr<v1::Referee::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<v1::LogChunk>> reader_;
  bool ended_ = false;
  size_t received_ = 0;
};

// Waits (up to kWait) until `process` has written `text` to stderr.
bool AwaitStderr(const Process& process, const std::string& text) {
  const absl::Time end = absl::Now() + kWait;
  while (!absl::StrContains(process.err(), text) && absl::Now() < end) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  return absl::StrContains(process.err(), text);
}

class LogReadersE2eTest : public E2eTest {
 protected:
  // A finished match played by three bot processes, its log file padded
  // to 8 MiB (GetLog serves the file's bytes as they are), so that a
  // silent GetLog of it stays open. Its id.
  std::string FinishedMatchWithALargeLog() {
    const std::string match = CreateMatch(Path("tok"));
    EXPECT_EQ(match.size(), 32u);
    for (int seat = 0; seat < 3; ++seat) {
      StartBot(Path(absl::StrCat("tok/seat-", seat, ".token")),
               {"--matches=1", "--quiet"});
    }
    for (auto& bot : bots_) EXPECT_EQ(bot->Wait(kMatchTime), 0) << bot->err();
    const std::string log = Slurp(LogPath(match));
    EXPECT_FALSE(log.empty());
    std::ofstream(LogPath(match), std::ios::app)
        << std::string((8 << 20) - log.size(), 'p');
    return match;
  }
};

// --max_log_readers bounds the referee binary's downloads, and `refctl
// get-log` refused for it (UNAVAILABLE) says it waits and retries until a
// place frees (--retry_for_s=0: it fails at once, naming the limit).
TEST_F(LogReadersE2eTest, RefctlGetLogWaitsForAPlaceAmongTheLogReaders) {
  ASSERT_NO_FATAL_FAILURE(StartReferee({"--max_log_readers=1"}));
  const std::string match = FinishedMatchWithALargeLog();
  auto silent = std::make_unique<SilentGetLog>(address_, match);

  ToolResult refused = Refctl(
      {"get-log", match, "--out=" + Path("refused.pyrlog"), "--retry_for_s=0"});
  EXPECT_EQ(refused.code, 1);
  EXPECT_THAT(refused.err,
              HasSubstr("refctl: UNAVAILABLE: this referee already serves 1 "
                        "GetLog calls, as many as it takes at once "
                        "(--max_log_readers); retry with backoff"));
  EXPECT_FALSE(fs::exists(Path("refused.pyrlog")));

  const std::string fetched = Path("fetched.pyrlog");
  Process get_log({Bin("refctl"), "--referee=" + address_,
                   "--admin_token_file=" + data_ + "/admin.token", "get-log",
                   match, "--out=" + fetched},
                  Path("get-log.out"), Path("get-log.err"));
  ASSERT_TRUE(AwaitStderr(get_log, "to retry (--retry_for_s)"))
      << get_log.err();
  EXPECT_THAT(get_log.err(), HasSubstr("refctl: UNAVAILABLE: this referee "
                                       "already serves 1 GetLog calls"));
  silent->Cancel();  // Its place frees.
  ASSERT_EQ(get_log.Wait(kWait), 0) << get_log.err();
  EXPECT_THAT(get_log.err(), HasSubstr("8388608 bytes written to " + fetched));
  EXPECT_TRUE(Slurp(fetched) == Slurp(LogPath(match)));
}

// --log_stall_timeout_s: a download whose client takes nothing for that
// long is cancelled, so that a refctl get-log waiting behind it gets the
// place without anyone else's help.
TEST_F(LogReadersE2eTest, AStalledDownloadIsCancelledAfterLogStallTimeout) {
  ASSERT_NO_FATAL_FAILURE(
      StartReferee({"--max_log_readers=1", "--log_stall_timeout_s=1"}));
  const std::string match = FinishedMatchWithALargeLog();
  SilentGetLog silent(address_, match);
  const std::string fetched = Path("fetched.pyrlog");
  ToolResult got = Refctl({"get-log", match, "--out=" + fetched});
  ASSERT_EQ(got.code, 0) << got.err;
  EXPECT_TRUE(Slurp(fetched) == Slurp(LogPath(match)));
  EXPECT_EQ(silent.Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_LT(silent.received(), size_t{8 << 20});
}

// --max_health_watchers bounds the health service's Watch streams: one
// more is refused RESOURCE_EXHAUSTED, and the referee still answers.
TEST_F(E2eTest, MaxHealthWatchersRefusesOneWatchStreamMore) {
  ASSERT_NO_FATAL_FAILURE(StartReferee({"--max_health_watchers=1"}));
  auto health = grpc::health::v1::Health::NewStub(channel_);
  grpc::health::v1::HealthCheckRequest request;
  grpc::ClientContext first_context;
  auto first = health->Watch(&first_context, request);
  grpc::health::v1::HealthCheckResponse response;
  ASSERT_TRUE(first->Read(&response));
  EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  grpc::ClientContext second_context;
  auto second = health->Watch(&second_context, request);
  EXPECT_FALSE(second->Read(&response));
  const grpc::Status refused = second->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("already serves 1 health Watch streams, as many as "
                        "it takes (--max_health_watchers)"));
  first_context.TryCancel();
  first->Finish().IgnoreError();
  EXPECT_EQ(svctest::HealthStatus(channel_), 1);
}

// Issue 14: 1,000 watchers of one match that never read cost the referee a
// bounded amount of memory (each has at most --watch_queue_bytes unsent,
// and an event is held once for all of them), which stays flat while a
// 4-seat Pyramid Scheme match plays to its end; a watcher beside them
// that reads sees every event (or, if it fell behind, a fresh snapshot)
// and the end. Prints the figures.
TEST_F(E2eTest, ThousandSilentWatchersCostBoundedFlatMemory) {
  // Under AddressSanitizer (the sanitizer build) freed memory waits in a
  // quarantine of up to 256 MiB to catch use after free, which RSS would
  // count as held: the referee started here runs without it, so that RSS
  // measures what it holds. (No effect on an uninstrumented referee.)
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string saved = asan != nullptr ? asan : "";
  setenv("ASAN_OPTIONS",
         absl::StrCat(saved, saved.empty() ? "" : ":",
                      "quarantine_size_mb=0:thread_local_quarantine_size_kb=0")
             .c_str(),
         1);
  // A silent watcher's queue grows with the match until its bound, then
  // holds: a small bound (8 KiB; the default is 32) makes the 1,000 queues
  // full within the first moves, so that the second half of the match
  // shows whether anything else grows.
  ASSERT_NO_FATAL_FAILURE(StartReferee({"--max_watchers_per_match=1001",
                                        "--max_watchers_per_peer=1001",
                                        "--watch_queue_bytes=8192"}));
  if (asan != nullptr) {
    setenv("ASAN_OPTIONS", saved.c_str(), 1);
  } else {
    unsetenv("ASAN_OPTIONS");
  }
  const std::string game = "pyramid_scheme";
  const std::string match = CreateMatch(Path("tok"), {}, game, 4);
  ASSERT_EQ(match.size(), 32u);
  const int64_t before = RssKib(referee_->pid());
  SilentWatchers silent(address_, match, 1000);
  ASSERT_EQ(silent.started(), 1000);
  WatchClient reader(channel_, match);
  ASSERT_TRUE(reader.AwaitEvent(
      [](const v1::WatchEvent& e) { return e.has_snapshot(); }));
  const int64_t connected = RssKib(referee_->pid());
  for (int seat = 0; seat < 4; ++seat) {
    StartBot(Path(absl::StrCat("tok/seat-", seat, ".token")),
             {"--matches=1", "--quiet"});
  }
  std::vector<int64_t> samples;  // While the match plays.
  while (bots_.back()->running() &&
         bots_.back()->Wait(absl::Milliseconds(20)) == -1) {
    samples.push_back(RssKib(referee_->pid()));
  }
  for (auto& bot : bots_) ASSERT_EQ(bot->Wait(kMatchTime), 0) << bot->err();
  ASSERT_TRUE(reader.AwaitEnd(kMatchTime).ok());
  samples.push_back(RssKib(referee_->pid()));
  ASSERT_GE(samples.size(), 2u);
  const int64_t peak = *std::max_element(samples.begin(), samples.end());
  const int64_t middle = samples[samples.size() / 2];
  std::cout << "referee RSS: " << before << " KiB before the watchers, "
            << connected << " KiB with 1,001 connected, peak " << peak
            << " KiB while " << samples.size() << " samples were taken ("
            << middle << " KiB half-way, " << samples.back()
            << " KiB at the end)\n";
  EXPECT_LT(peak - before, 50 << 10);
  EXPECT_LT(samples.back() - middle, 8 << 10);

  // The reading watcher saw every decision, commit and move, once.
  int commits = 0, moves = 0, decisions = 0;
  for (const v1::LogRecord& record :
       svctest::ParseRecords(Slurp(LogPath(match, game)))) {
    commits += record.has_commit();
    moves += record.has_applied() || record.has_seed_reveal();
    decisions += record.has_decision_opened();
  }
  WatchedMatch followed;
  int seen_commits = 0, seen_moves = 0, seen_decisions = 0;
  for (const v1::WatchEvent& event : reader.Events()) {
    ASSERT_TRUE(followed.Apply(event).ok());
    seen_commits += event.has_commit();
    seen_moves += event.has_delta();
    seen_decisions += event.has_decision();
  }
  EXPECT_EQ(reader.Events().at(1).snapshot().decision().seats_size(), 4);
  EXPECT_TRUE(followed.ended());
  EXPECT_GT(moves, 50);
  if (followed.snapshots() == 1) {
    EXPECT_EQ(seen_commits, commits);
    EXPECT_EQ(seen_moves, moves);
    // The seed decision was open when it joined: its snapshot holds it.
    EXPECT_EQ(seen_decisions + 1, decisions);
  } else {
    // It fell behind its queue's bound (8 KiB here; on a busy machine,
    // under the sanitizers) and was sent a fresh snapshot instead of what
    // it missed, as documented: it still followed the match to its end.
    std::cout << "the reading watcher fell behind " << followed.snapshots() - 1
              << " times\n";
    EXPECT_LT(seen_commits, commits);
  }
}

struct GameCase {
  std::string name;  // The test's name suffix.
  std::string game;  // Game id.
  int seats = 0;
  std::string options;  // `refctl --options` text; empty: every default.
};

void PrintTo(const GameCase& c, std::ostream* out) { *out << c.name; }

class GameE2eTest : public E2eTest,
                    public ::testing::WithParamInterface<GameCase> {};

TEST_P(GameE2eTest, OneBotProcessPerSeatPlaysAndTheVerifiedOutcomeIsReported) {
  const GameCase& c = GetParam();
  ASSERT_NO_FATAL_FAILURE(StartReferee());
  std::vector<std::string> extra;
  if (!c.options.empty()) extra.push_back("--options=" + c.options);
  const std::string match = CreateMatch(Path("tok"), extra, c.game, c.seats);
  ASSERT_EQ(match.size(), 32u);
  for (int seat = 0; seat < c.seats; ++seat) {
    StartBot(Path(absl::StrCat("tok/seat-", seat, ".token")),
             {"--matches=1", "--game=" + c.game});
  }
  for (auto& bot : bots_) {
    ASSERT_EQ(bot->Wait(kMatchTime), 0) << bot->out() << bot->err();
  }

  // The fetched log is the file on disk and `replay verify --key` finds it
  // genuine, with the game and seat count asked for.
  const std::string fetched = Path(match + ".pyrlog");
  ToolResult got = Refctl({"get-log", match, "--out=" + fetched});
  ASSERT_EQ(got.code, 0) << got.err;
  const std::string log = Slurp(fetched);
  EXPECT_EQ(log, Slurp(LogPath(match, c.game)));
  ToolResult verify =
      Run("replay", {"verify", "--key=" + PublicKeyFile(), fetched});
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;
  EXPECT_THAT(verify.out, HasSubstr(absl::StrCat(": genuine (", c.game, ", ")));
  absl::StatusOr<std::string> key = ParsePublicKey(PublicKeyFile());
  ASSERT_TRUE(key.ok()) << key.status();
  const Verdict verdict = svctest::VerifyBytes(log, *key);
  ASSERT_EQ(verdict.kind, Verdict::Kind::kGenuine) << verdict.reason;
  EXPECT_EQ(verdict.header.game().game(), c.game);
  EXPECT_EQ(verdict.header.seats_size(), c.seats);
  const v1::Outcome& outcome = verdict.outcome;
  ASSERT_EQ(outcome.seats_size(), c.seats);
  EXPECT_NE(outcome.termination(), v1::TERMINATION_FORFEIT);
  v1::GameConfig asked;
  asked.set_game(c.game);
  ASSERT_TRUE(google::protobuf::TextFormat::MergeFromString(c.options, &asked));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
      verdict.header.game(), asked))
      << verdict.header.game().DebugString();

  // `replay` prints the verified ranks; each bot printed its seat's rank and
  // score; `refctl get-match` shows the same outcome.
  std::string ranks;
  for (const v1::SeatOutcome& seat : outcome.seats()) {
    absl::StrAppend(&ranks, ranks.empty() ? "" : " ", seat.rank());
  }
  EXPECT_THAT(verify.out,
              HasSubstr(absl::StrCat(" moves, ranks ", ranks, ";")));
  for (int seat = 0; seat < c.seats; ++seat) {
    const v1::SeatOutcome& mine = outcome.seats(seat);
    EXPECT_THAT(
        bots_[seat]->out(),
        HasSubstr(absl::StrCat("match ", match, " seat ", seat, ": rank ",
                               mine.rank(), ", score ", mine.score(), "\n")));
  }
  ToolResult info = Refctl({"get-match", match});
  ASSERT_EQ(info.code, 0) << info.err;
  v1::MatchInfo shown;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(info.out, &shown).ok())
      << info.out;
  EXPECT_EQ(shown.status(), v1::MATCH_FINISHED);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
      shown.outcome(), outcome))
      << shown.outcome().DebugString() << " vs " << outcome.DebugString();
}

INSTANTIATE_TEST_SUITE_P(
    Games, GameE2eTest,
    ::testing::Values(GameCase{"PyramidShambo5", "pyramid_shambo", 5, ""},
                      GameCase{"FlamingPyramids4", "flaming_pyramids", 4, ""},
                      GameCase{"FlamingPyramids4Curse", "flaming_pyramids", 4,
                               "flaming_pyramids { curse: true }"},
                      GameCase{"PyramidScheme4", "pyramid_scheme", 4, ""}),
    [](const ::testing::TestParamInfo<GameCase>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace pyramid
