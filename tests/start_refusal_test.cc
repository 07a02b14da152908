// A referee started on a data directory whose state was damaged refuses
// to start (exit status 2, one line saying why) rather than serve from
// it, with the real `referee` binary (from $PYRAMID_BIN, else build/bin)
// and matches played by real `bot` processes:
// - its transparency log lost, or replaced by an older copy, while
//   DATA_DIR/checkpoint holds a larger checkpoint (a new tree would be
//   signed at a size already signed, with another root: a fork); a tree
//   that extends the checkpoint (its last signature lost) starts;
// - its registry lost beside a tree with sealed logs, or beside match logs;
// - its registry immutable (`chattr +i`): SQLite would open it read-only,
//   and every write would fail;
// - its log directory missing, or there but empty (a disk not mounted
//   yet), while the registry names a finished and a running match's logs;
// - its Unix socket served by another referee;
// while a new data directory, and one holding only keygen's key, start.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "tests/binaries.h"
#include "tests/temp_dir.h"
#include "tests/test_process.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing_util::Bin;
using testing_util::Process;
using testing_util::ToolResult;

constexpr absl::Duration kWait = absl::Seconds(60);

std::string Slurp(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  return text.ok() ? *text : "";
}

class StartRefusalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    for (const char* tool : {"referee", "bot", "refctl", "keygen"}) {
      ASSERT_TRUE(fs::exists(Bin(tool))) << Bin(tool) << " is not built";
    }
  }

  std::string Path(const std::string& name) const { return dir_.File(name); }
  std::string Data(const std::string& name) const { return data_ + "/" + name; }

  // Starts the referee on data_ and waits until it serves (its port file).
  void Start() {
    referee_ = testing_util::StartReferee(
        Path("port"), {"--data_dir=" + data_},
        Path(absl::StrCat("referee-", runs_, ".out")),
        Path(absl::StrCat("referee-", runs_, ".err")), kWait);
    ++runs_;
    ASSERT_TRUE(fs::exists(Path("port"))) << referee_->err();
    address_ = testing_util::LoopbackAddress(Path("port"));
  }
  // SIGTERM: it signs the checkpoint of its tree as it stops.
  void Stop() {
    referee_->Signal(SIGTERM);
    ASSERT_EQ(referee_->Wait(kWait), 0) << referee_->err();
    referee_.reset();
  }

  ToolResult Run(const std::string& tool, std::vector<std::string> args) {
    args.insert(args.begin(), Bin(tool));
    const std::string tag = absl::StrCat(tool, "-", runs_++);
    return testing_util::RunTool(args, Path(tag + ".out"), Path(tag + ".err"),
                                 kWait);
  }
  // A start on data_ that is expected to be refused.
  ToolResult RefusedStart() {
    return Run("referee", {"--listen=127.0.0.1:0", "--data_dir=" + data_});
  }

  // Creates a match of three seats; returns its id.
  std::string CreateMatch() {
    const std::string tokens = Path(absl::StrCat("tok-", runs_));
    ToolResult r = Run("refctl", {"--referee=" + address_,
                                  "--admin_token_file=" + Data("admin.token"),
                                  "create-match", "--game=rock_paper_pyramid",
                                  "--seats=3", "--token_dir=" + tokens});
    EXPECT_EQ(r.code, 0) << r.err;
    token_dir_ = tokens;
    return std::string(absl::StripAsciiWhitespace(r.out));
  }
  // Plays a match to its end (sealed, in the transparency log).
  void PlayMatch() {
    ASSERT_EQ(CreateMatch().size(), 32u);
    std::vector<std::unique_ptr<Process>> bots;
    for (int seat = 0; seat < 3; ++seat) {
      bots.push_back(std::make_unique<Process>(
          std::vector<std::string>{Bin("bot"), "--referee=" + address_,
                                   absl::StrCat("--token_file=", token_dir_,
                                                "/seat-", seat, ".token"),
                                   "--matches=1", "--quiet"},
          Path(absl::StrCat("bot-", runs_, "-", seat, ".out")),
          Path(absl::StrCat("bot-", runs_, "-", seat, ".err"))));
    }
    ++runs_;
    for (auto& bot : bots) ASSERT_EQ(bot->Wait(kWait), 0) << bot->err();
  }

  // The database `name` of data_ and its side files, copied to (or from)
  // Path(copy).
  void SaveDatabase(const std::string& name, const std::string& copy) {
    fs::create_directories(Path(copy));
    for (const char* suffix : {"", "-wal", "-shm"}) {
      if (fs::exists(Data(name) + suffix)) {
        fs::copy_file(Data(name) + suffix, Path(copy) + "/" + name + suffix);
      }
    }
  }
  void RemoveDatabase(const std::string& name) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      fs::remove(Data(name) + suffix);
    }
  }
  void RestoreDatabase(const std::string& name, const std::string& copy) {
    RemoveDatabase(name);
    for (const auto& entry : fs::directory_iterator(Path(copy))) {
      fs::copy_file(entry.path(), Data(entry.path().filename().string()));
    }
  }

  // The names in data_, sorted.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(data_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  // `r` is a refusal: status 2, one line beginning "referee: ".
  static void ExpectOneLineRefusal(const ToolResult& r) {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, StartsWith("referee: "));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
  }

  TempDir dir_{"start-refusal"};
  std::string data_ = dir_.File("data");
  std::string address_, token_dir_;
  std::unique_ptr<Process> referee_;
  int runs_ = 0;
};

// The tree removed, or replaced by an older copy, while DATA_DIR/checkpoint
// holds a checkpoint of a larger one: refused, naming both; nothing is
// left behind (no new tlog.sqlite3). The right tree with an older
// checkpoint file (the tree extends it) starts.
TEST_F(StartRefusalTest, ATreeThatDoesNotExtendTheLastCheckpointIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start());
  ASSERT_NO_FATAL_FAILURE(PlayMatch());
  ASSERT_NO_FATAL_FAILURE(Stop());
  SaveDatabase("tlog.sqlite3", "tree-1");
  const std::string checkpoint_1 = Slurp(Data("checkpoint"));
  ASSERT_NO_FATAL_FAILURE(Start());
  ASSERT_NO_FATAL_FAILURE(PlayMatch());
  ASSERT_NO_FATAL_FAILURE(Stop());
  SaveDatabase("tlog.sqlite3", "tree-2");
  const std::string checkpoint_2 = Slurp(Data("checkpoint"));
  ASSERT_THAT(checkpoint_2, HasSubstr("\n2\n")) << checkpoint_2;
  const std::string fork_line =
      ": the tree was lost or replaced; restore " + Data("tlog.sqlite3") +
      " from a backup (signing a new tree would fork the log)\n";

  RemoveDatabase("tlog.sqlite3");
  const std::vector<std::string> lost = Names();
  ToolResult r = RefusedStart();
  ExpectOneLineRefusal(r);
  EXPECT_THAT(r.err,
              HasSubstr("referee: transparency log: " + Data("tlog.sqlite3") +
                        " holds 0 logs but " + Data("checkpoint") +
                        ", signed by this key, holds 2 with root "));
  EXPECT_THAT(r.err, HasSubstr(fork_line));
  EXPECT_EQ(Names(), lost) << "the refused start left a file";
  EXPECT_EQ(Slurp(Data("checkpoint")), checkpoint_2);

  RestoreDatabase("tlog.sqlite3", "tree-1");
  r = RefusedStart();
  ExpectOneLineRefusal(r);
  EXPECT_THAT(r.err, HasSubstr(" holds 1 logs but " + Data("checkpoint") +
                               ", signed by this key, holds 2 with root "));
  EXPECT_THAT(r.err, HasSubstr(fork_line));
  EXPECT_EQ(Slurp(Data("checkpoint")), checkpoint_2);

  // The tree of two with the checkpoint of one: it extends it.
  RestoreDatabase("tlog.sqlite3", "tree-2");
  ASSERT_TRUE(WriteFileAtomically(Data("checkpoint"), checkpoint_1).ok());
  ASSERT_NO_FATAL_FAILURE(Start());
  EXPECT_THAT(Slurp(Path(absl::StrCat("referee-", runs_ - 1, ".out"))),
              HasSubstr("(2 sealed logs;"));
  ASSERT_NO_FATAL_FAILURE(Stop());
}

// The registry removed where a referee ran: beside a tree with a sealed
// log, and beside only the log of a match still running (a tree with
// none): refused, saying what is there; no registry is made.
TEST_F(StartRefusalTest, ALostRegistryIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start());
  ASSERT_NO_FATAL_FAILURE(PlayMatch());
  ASSERT_NO_FATAL_FAILURE(Stop());
  RemoveDatabase("registry.sqlite3");
  ToolResult r = RefusedStart();
  ExpectOneLineRefusal(r);
  EXPECT_THAT(r.err,
              HasSubstr("referee: registry: " + Data("registry.sqlite3") +
                        " is missing, but a referee has run on this data "
                        "directory (" +
                        Data("tlog.sqlite3") + " holds 1 sealed logs, " +
                        Data("checkpoint") +
                        " holds the transparency log's checkpoint, " +
                        Data("logs") + " holds 1 match logs)"));
  EXPECT_THAT(r.err, HasSubstr("restore it from a backup"));
  EXPECT_FALSE(fs::exists(Data("registry.sqlite3")));

  data_ = Path("running");
  ASSERT_NO_FATAL_FAILURE(Start());
  ASSERT_EQ(CreateMatch().size(), 32u);
  ASSERT_NO_FATAL_FAILURE(Stop());
  RemoveDatabase("registry.sqlite3");
  r = RefusedStart();
  ExpectOneLineRefusal(r);
  EXPECT_THAT(r.err, HasSubstr(Data("logs") + " holds 1 match logs)"));
  EXPECT_THAT(r.err, Not(HasSubstr("sealed logs")));
  EXPECT_FALSE(fs::exists(Data("registry.sqlite3")));
}

// The log directory moved away after a SIGTERM, then put back: missing,
// and there but empty (the mount point of a disk not mounted yet), beside
// a registry naming a finished match's log and an acknowledged running
// match's, it is refused (status 2, one line) and nothing is changed: no
// log directory made, the running match not ended broken, the registry
// and the logs as they were. Put back, both matches are served: the
// running one resumed, the finished one's log.
TEST_F(StartRefusalTest, ALogDirectoryMissingOrEmptyIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start());
  ASSERT_NO_FATAL_FAILURE(PlayMatch());
  const std::string running = CreateMatch();
  ASSERT_EQ(running.size(), 32u);
  ASSERT_NO_FATAL_FAILURE(Stop());
  const std::string registry = Slurp(Data("registry.sqlite3"));
  std::vector<std::string> logs;
  for (const auto& entry : fs::directory_iterator(Data("logs"))) {
    logs.push_back(entry.path().filename().string());
  }
  ASSERT_EQ(logs.size(), 2u);
  fs::rename(Data("logs"), Path("logs-offline"));
  const std::vector<std::string> names = Names();
  for (const bool empty : {false, true}) {
    SCOPED_TRACE(empty ? "an empty log directory" : "no log directory");
    if (empty) fs::create_directory(Data("logs"));
    ToolResult r = RefusedStart();
    ExpectOneLineRefusal(r);
    EXPECT_EQ(r.err,
              absl::StrCat(
                  "referee: the log directory ", Data("logs"), " (--log_dir) ",
                  empty ? "holds no match logs (*.pyrlog)" : "is missing",
                  ", but the registry ", Data("registry.sqlite3"),
                  " names the logs of 2 matches (finished, or "
                  "running and acknowledged): mount the disk that "
                  "holds them, or give the right --log_dir; nothing "
                  "was changed (docs/durability.md, \"A start that "
                  "refuses\")\n"));
    EXPECT_EQ(fs::exists(Data("logs")), empty);
    if (empty) {
      EXPECT_TRUE(fs::is_empty(Data("logs")));
      EXPECT_EQ(Names().size(), names.size() + 1);
    } else {
      EXPECT_EQ(Names(), names) << "the refused start left a file";
    }
    EXPECT_EQ(Slurp(Data("registry.sqlite3")), registry);
  }
  fs::remove(Data("logs"));
  fs::rename(Path("logs-offline"), Data("logs"));
  for (const std::string& log : logs) {  // None marked broken (0444).
    EXPECT_NE(
        fs::status(Data("logs/" + log)).permissions() & fs::perms::owner_write,
        fs::perms::none)
        << log;
  }
  ASSERT_NO_FATAL_FAILURE(Start());
  EXPECT_THAT(Slurp(Path(absl::StrCat("referee-", runs_ - 1, ".out"))),
              HasSubstr("(1 ended, 1 resumed, 0 found broken"));
  ToolResult got =
      Run("refctl", {"--referee=" + address_, "get-match", running});
  EXPECT_EQ(got.code, 0) << got.err;
  EXPECT_THAT(got.out, HasSubstr("MATCH_RUNNING"));
  const std::string finished =
      logs[0].find(running) == std::string::npos ? logs[0] : logs[1];
  got = Run("refctl", {"--referee=" + address_, "get-log",
                       finished.substr(finished.rfind('-') + 1, 32),
                       "--out=" + Path("finished.pyrlog")});
  EXPECT_EQ(got.code, 0) << got.err;
  EXPECT_EQ(Slurp(Path("finished.pyrlog")), Slurp(Data("logs/" + finished)));
  ASSERT_NO_FATAL_FAILURE(Stop());
}

// A new data directory starts, and so does one holding only a key made by
// keygen (which it signs with).
TEST_F(StartRefusalTest, ANewDataDirAndAKeygenOnlyOneStart) {
  ASSERT_NO_FATAL_FAILURE(Start());
  ASSERT_NO_FATAL_FAILURE(Stop());
  data_ = Path("keygen");
  fs::create_directories(data_);
  ToolResult keygen = Run("keygen", {"--out=" + Data("referee.key")});
  ASSERT_EQ(keygen.code, 0) << keygen.err;
  const std::string key = Slurp(Data("referee.key"));
  ASSERT_NO_FATAL_FAILURE(Start());
  ASSERT_NO_FATAL_FAILURE(PlayMatch());
  ASSERT_NO_FATAL_FAILURE(Stop());
  EXPECT_EQ(Slurp(Data("referee.key")), key);
}

// A referee on a Unix socket says the socket in its banner and writes 0
// (no port) to its port file; a second referee on the same path is
// refused (gRPC would unlink the first's socket file and take every new
// client from it unnoticed), and the first serves on.
TEST_F(StartRefusalTest, AUnixSocketAnotherRefereeServesIsRefused) {
  const std::string socket = "unix:" + Path("referee.sock");
  referee_ = testing_util::StartReferee(
      Path("port"), {"--listen=" + socket, "--data_dir=" + data_},
      Path("first.out"), Path("first.err"), kWait);
  ASSERT_TRUE(fs::exists(Path("port"))) << referee_->err();
  EXPECT_EQ(Slurp(Path("port")), "0\n");
  EXPECT_THAT(referee_->out(),
              StartsWith("referee listening on " + socket + " (plaintext)\n"));
  const std::string second = Path("second");
  ToolResult r = Run("referee", {"--listen=" + socket, "--data_dir=" + second});
  ExpectOneLineRefusal(r);
  EXPECT_EQ(r.err, "referee: cannot listen on " + socket +
                       ": another server listens on this socket\n");
  EXPECT_FALSE(fs::exists(second));  // Nothing made.
  address_ = socket;
  r = Run("refctl", {"--referee=" + socket, "health"});
  EXPECT_EQ(r.code, 0) << r.err;
  ASSERT_NO_FATAL_FAILURE(PlayMatch());
  ASSERT_NO_FATAL_FAILURE(Stop());
}

// A registry SQLite can open only for reading (immutable: even root
// cannot write it) is refused at start, naming it, instead of served
// until every write fails.
TEST_F(StartRefusalTest, ARegistryThatCannotBeWrittenIsRefused) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "chattr +i needs root (CAP_LINUX_IMMUTABLE)";
  }
  ASSERT_NO_FATAL_FAILURE(Start());
  ASSERT_NO_FATAL_FAILURE(Stop());
  const std::string registry = Data("registry.sqlite3");
  ASSERT_EQ(std::system(("chattr +i '" + registry + "'").c_str()), 0);
  ToolResult r = RefusedStart();
  EXPECT_EQ(std::system(("chattr -i '" + registry + "'").c_str()), 0);
  ExpectOneLineRefusal(r);
  EXPECT_EQ(r.err, "referee: cannot open the registry " + registry +
                       ": it cannot be written (Operation not permitted)\n");
  ASSERT_NO_FATAL_FAILURE(Start());
  ASSERT_NO_FATAL_FAILURE(Stop());
}

}  // namespace
}  // namespace pyramid
