// The tournament runner end to end: RunTournament in this process with its
// embedded referee, and the reference `bot` program (from $PYRAMID_BIN,
// else build/bin) as separate processes. Round robin, Swiss and SPRT
// tournaments whose every log verifies; a bot that keeps crashing, restarted
// and forfeiting the matches it interrupted; a first interruption that lets
// the matches in flight finish, a second that stops at once; an
// interrupted tournament that resumes without replaying a finished match,
// and on a running referee without playing again the matches it left in
// flight; 256 matches in flight without a timeout; refused tournament
// files. And the `tournament` program itself, killed with SIGKILL mid-run,
// resumes from its output directory.
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/tournament.pb.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/service/directory_lock.h"
#include "referee/tlog/note.h"
#include "replay/verifier.h"
#include "tests/binaries.h"
#include "tests/forked_child.h"
#include "tests/temp_dir.h"
#include "tests/test_process.h"
#include "tools/tournament/match_journal.h"
#include "tools/tournament/runner.h"
#include "tools/tournament/schedule.h"
#include "tools/tournament/sprt.h"
#include "tools/tournament/standings.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;
namespace v1 = ::pyramid::referee::v1;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing_util::Bin;

// Every file under `dir` with its bytes, in name order ("" when none).
std::string Listing(const std::string& dir) {
  std::map<std::string, std::string> files;
  std::error_code error;
  for (const fs::directory_entry& entry :
       fs::recursive_directory_iterator(dir, error)) {
    if (entry.is_regular_file()) {
      files[entry.path().string()] =
          ReadFileToString(entry.path().string()).value_or("?");
    }
  }
  std::string listing;
  for (const auto& [name, bytes] : files) {
    absl::StrAppend(&listing, name, "\n", bytes, "\n");
  }
  return listing;
}

// The published checkpoint `published` (a signed note) made again for tree
// `size` and root hash `root` (base64), signed with the referee's key in
// `key_file`, as a referee whose transparency log was rewritten would.
std::string ForgedCheckpoint(const std::string& published,
                             const std::string& size, const std::string& root,
                             const std::string& key_file) {
  std::vector<std::string> lines = absl::StrSplit(published, '\n');
  EXPECT_GE(lines.size(), 3u);
  if (lines.size() < 3) return "";
  absl::StatusOr<SigningKey> key = ReadSigningKey(key_file);
  EXPECT_TRUE(key.ok()) << key.status();
  if (!key.ok()) return "";
  absl::StatusOr<std::string> note = tlog::SignNote(
      absl::StrCat(lines[0], "\n", size, "\n", root, "\n"), lines[0], *key);
  EXPECT_TRUE(note.ok()) << note.status();
  return note.value_or("");
}

// A non-blocking inotify instance watching the directory `dir` for opens
// (OpensSeen) and closes; -1 with errno when it cannot be made. The
// closes are watched only to come between the opens: inotify merges an
// event with the one queued just before it when both are the same, so a
// file opened, closed and opened again would show one open.
int WatchOpens(const std::string& dir) {
  const int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return -1;
  if (inotify_add_watch(fd, dir.c_str(), IN_OPEN | IN_CLOSE) < 0) {
    const int why = errno;
    close(fd);
    errno = why;
    return -1;
  }
  return fd;
}

// How many times each file in the directory that the inotify instance
// `fd` (WatchOpens) watches was opened since, by name.
std::map<std::string, int> OpensSeen(int fd) {
  std::map<std::string, int> opens;
  alignas(inotify_event) char buffer[64 * 1024];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) {
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
      if (event->len > 0 && (event->mask & IN_OPEN) != 0) {
        ++opens[event->name];
      }
      at += sizeof(inotify_event) + event->len;
    }
  }
  return opens;
}

class TournamentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    ASSERT_TRUE(fs::exists(Bot())) << Bot() << " is not built";
  }

  std::string Bot() const { return Bin("bot"); }

  // A tournament of `bots` random reference bots named bot-1, bot-2, ...
  v1::Tournament Make(const std::string& game, int seats, int bots,
                      const std::string& more = "") const {
    std::string text =
        absl::StrCat("name: \"t\" game { game: \"", game, "\" } seats: ", seats,
                     " output_dir: \"", dir_.path(), "/out\" ", more);
    for (int i = 1; i <= bots; ++i) {
      absl::StrAppend(&text, " bots { name: \"bot-", i, "\" command: \"", Bot(),
                      "\" command: \"--quiet\" }");
    }
    v1::Tournament t;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &t));
    return t;
  }

  // `interruptions`, when given, says how many interruptions the run has
  // received (RunOptions::interruptions): 1 finishes the matches in
  // flight, 2 stops at once.
  absl::StatusOr<v1::TournamentResults> Run(
      const v1::Tournament& t, std::function<int()> interruptions = nullptr) {
    RunOptions options;
    options.progress = &progress_;
    if (interruptions) options.interruptions = std::move(interruptions);
    return RunTournament(t, options);
  }

  // The logs in OUT/logs (the embedded referee makes a match's log as it
  // creates the match), as "logs/NAME".
  std::set<std::string> Logs() const {
    std::set<std::string> logs;
    std::error_code ignored;
    for (const auto& entry :
         fs::directory_iterator(dir_.File("out/logs"), ignored)) {
      if (entry.path().extension() == ".pyrlog") {
        logs.insert("logs/" + entry.path().filename().string());
      }
    }
    return logs;
  }

  // 3 bots at 3 seats, 6 matches, 2 at a time: every match seats bot-3,
  // whose program starts 3 s late, so the first two stay in flight (their
  // seed decision waits for it: the runner's MatchClocks) for 3 s.
  v1::Tournament WithALateBot() const {
    v1::Tournament t =
        Make("rock_paper_pyramid", 3, 3,
             "rounds: 2 concurrency: 2 clocks { "
             "commit_timeout_ms: 1500 reveal_timeout_ms: 1500 }");
    t.mutable_bots(2)->clear_command();
    for (const std::string& arg :
         {std::string("/bin/sh"), std::string("-c"),
          absl::StrCat("sleep 3; exec '", Bot(),
                       "' --quiet --referee='{referee}'",
                       " --token_file='{token_file}'")}) {
      t.mutable_bots(2)->add_command(arg);
    }
    return t;
  }

  // Writes `t` as the tournament file t.txt; returns the `tournament`
  // program's command line for it.
  std::vector<std::string> TournamentCommand(const v1::Tournament& t) const {
    const std::string file = dir_.File("t.txt");
    std::string text;
    google::protobuf::TextFormat::PrintToString(t, &text);
    std::ofstream(file) << text;
    return {Bin("tournament"), file};
  }

  std::vector<v1::TournamentMatchResult> Journaled() const {
    absl::StatusOr<std::vector<v1::TournamentMatchResult>> entries =
        MatchJournal::Read(dir_.File("out/journal.jsonl"));
    EXPECT_TRUE(entries.ok()) << entries.status();
    return entries.ok() ? *entries : std::vector<v1::TournamentMatchResult>{};
  }

  // Runs the tournament program `argv` and SIGKILLs it once its journal
  // holds at least `matches` matches (a run killed mid-tournament).
  void KillOnceJournaled(const std::vector<std::string>& argv, size_t matches) {
    testing_util::Process run(argv, dir_.File("1.out"), dir_.File("1.err"));
    const absl::Time end = absl::Now() + absl::Seconds(60);
    while (Journaled().size() < matches && absl::Now() < end && run.running()) {
      absl::SleepFor(absl::Milliseconds(20));
    }
    ASSERT_TRUE(run.running()) << run.err();
    run.Signal(SIGKILL);
    EXPECT_EQ(run.Wait(absl::Seconds(10)), 128 + SIGKILL);
  }

  // Every match of `results` is genuine and its log file is where it says.
  void ExpectAllGenuine(const v1::TournamentResults& results) const {
    for (const v1::TournamentMatchResult& m : results.matches()) {
      EXPECT_EQ(m.verdict(), "genuine") << m.index();
      EXPECT_TRUE(fs::exists(dir_.File("out/" + m.log_file()))) << m.log_file();
      if (m.outcome().termination() == v1::TERMINATION_NORMAL) {
        EXPECT_GT(m.moves(), 0u) << m.index();
      }
    }
  }

  TempDir dir_{"tournament"};
  std::ostringstream progress_;
};

TEST_F(TournamentTest, RoundRobinOfReferenceBotsVerifiesEveryLog) {
  // 4 bots, 3 seats: 4 tables in 3 rotations.
  absl::StatusOr<v1::TournamentResults> results =
      Run(Make("rock_paper_pyramid", 3, 4, "concurrency: 6"));
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_EQ(results->scheduled(), 12u);
  EXPECT_EQ(results->verified(), 12u);
  EXPECT_EQ(results->matches_size(), 12);
  ExpectAllGenuine(*results);
  EXPECT_EQ(results->rating_model(), "bradley_terry_pairwise");
  ASSERT_EQ(results->standings_size(), 4);
  for (const v1::TournamentStanding& s : results->standings()) {
    EXPECT_EQ(s.matches(), 9u) << s.bot();
    EXPECT_LE(s.rating_low(), s.rating());
    EXPECT_GE(s.rating_high(), s.rating());
    EXPECT_EQ(s.restarts(), 0u);
  }
  EXPECT_EQ(Journaled().size(), 12u);
  // The ETA is unknown until a match has finished.
  EXPECT_THAT(progress_.str(),
              HasSubstr("0/12 matches  0.0 matches/s  ETA -  forfeits 0"));
  EXPECT_THAT(progress_.str(), HasSubstr("ETA 0 s"));
  EXPECT_THAT(progress_.str(), Not(HasSubstr("0/12 matches  0.0 matches/s  "
                                             "ETA 0 s")));
  const std::string json = *ReadFileToString(dir_.File("out/results.json"));
  v1::TournamentResults parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &parsed).ok());
  EXPECT_EQ(parsed.verified(), 12u);
  const std::string html = *ReadFileToString(dir_.File("out/report.html"));
  EXPECT_THAT(html, HasSubstr("<svg"));
  EXPECT_THAT(html, HasSubstr("bot-4"));
  for (int i = 1; i <= 4; ++i) {
    EXPECT_TRUE(
        fs::exists(absl::StrCat(dir_.path(), "/out/bots/bot-", i, ".log")));
  }
  // The embedded referee's checkpoint journal is gone with it: the
  // directory holds only the tournament's evidence.
  EXPECT_FALSE(fs::exists(dir_.File("out/log-journal")));
}

// The embedded referee's secret key never lies in the output directory,
// which is published as the tournament's evidence: it is created beside
// it (OUTPUT.referee.key, 0600), with only its public half inside; the
// bots' tokens are deleted when the bots stop. A
// directory an earlier runner wrote, with the key inside, has it moved out
// on resume; a resume that cannot find the key that signed the directory's
// logs, or is given another, or finds two, is refused (INVALID_ARGUMENT:
// the program's status 2) instead of signing with a new one.
TEST_F(TournamentTest, TheRefereesSecretKeyStaysOutOfTheOutputDirectory) {
  const fs::path out = dir_.File("out");
  const fs::path key_file = dir_.File("out.referee.key");
  const v1::Tournament t = Make("rock_paper_pyramid", 3, 3);
  absl::StatusOr<v1::TournamentResults> results = Run(t);
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_EQ(results->verified(), 3u);
  ExpectAllGenuine(*results);
  ASSERT_TRUE(fs::exists(key_file));
  EXPECT_EQ(fs::status(key_file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  absl::StatusOr<SigningKey> key = ReadSigningKey(key_file.string());
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(*ReadFileToString((out / "referee.key.pub").string()),
            ToHex(key->public_key()) + "\n");
  // No file in the directory holds the secret, and the bots' tokens went
  // with the bots.
  EXPECT_FALSE(fs::exists(out / "tokens"));
  const std::string secret = *ReadFileToString(key_file.string());
  for (const fs::directory_entry& entry :
       fs::recursive_directory_iterator(out)) {
    if (!entry.is_regular_file()) continue;
    absl::StatusOr<std::string> bytes = ReadFileToString(entry.path().string());
    ASSERT_TRUE(bytes.ok()) << entry.path();
    EXPECT_EQ(bytes->find(secret), std::string::npos) << entry.path();
  }

  // Another key for this directory is refused, and so is none.
  v1::Tournament other = t;
  other.set_signing_key_file(dir_.File("other.key"));
  ASSERT_TRUE(
      WriteKeyFiles(other.signing_key_file(), SigningKey::Generate()).ok());
  absl::StatusOr<v1::TournamentResults> refused = Run(other);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("did not sign"));
  const fs::path kept = dir_.File("kept.key");
  fs::rename(key_file, kept);
  refused = Run(t);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("secret half"));

  // A directory that holds its key, as earlier runners left it: the resume
  // moves the key out and signs with it.
  fs::rename(kept, out / "referee.key");
  results = Run(t);
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_EQ(results->verified(), 3u);
  EXPECT_THAT(progress_.str(), HasSubstr("moved the referee's secret key"));
  EXPECT_FALSE(fs::exists(out / "referee.key"));
  EXPECT_EQ(*ReadFileToString(key_file.string()), secret);

  // A copy left inside is removed; a different key inside is refused.
  fs::copy_file(key_file, out / "referee.key");
  results = Run(t);
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_THAT(progress_.str(), HasSubstr("removed a copy"));
  EXPECT_FALSE(fs::exists(out / "referee.key"));
  fs::copy_file(other.signing_key_file(), out / "referee.key");
  refused = Run(t);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("two different"));
}

// Every file under `dir` (a regular file with its bytes, anything else as
// "-"), by path relative to it: what a refused run must leave as it was.
std::map<std::string, std::string> Tree(const fs::path& dir) {
  std::map<std::string, std::string> tree;
  if (!fs::exists(dir)) return tree;
  for (const fs::directory_entry& entry :
       fs::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().lexically_relative(dir).string();
    if (!entry.is_regular_file()) {
      tree[name] = "-";
      continue;
    }
    absl::StatusOr<std::string> bytes = ReadFileToString(entry.path().string());
    tree[name] = bytes.ok() ? *bytes : "(unreadable)";
  }
  return tree;
}

// A signing_key_file inside the output directory, which is published whole,
// is refused with status 2 in one line saying why and where the key goes
// by default, before anything is written: whether the directory exists yet
// or not, and whether the key's path names it as given, relative to the
// current directory, or through a symbolic link.
TEST_F(TournamentTest, ASigningKeyFileInsideTheOutputDirectoryIsRefused) {
  const std::string file =
      TournamentCommand(Make("rock_paper_pyramid", 3, 3))[1];
  const fs::path out = dir_.File("out");
  ASSERT_TRUE(fs::create_directory(dir_.File("elsewhere")));
  fs::create_directory_symlink(out, dir_.File("link"));
  fs::create_directory_symlink(out, dir_.File("elsewhere/into-out"));
  const std::string out_key = dir_.File("out.referee.key");
  const struct {
    bool out_exists;
    std::vector<std::string> flags;  // After --output_dir=OUT unless given.
    std::string default_key;
  } cases[] = {
      {false, {"--signing_key_file=" + dir_.File("out/k.key")}, out_key},
      {true, {"--signing_key_file=" + dir_.File("out/k.key")}, out_key},
      {false,
       {"--signing_key_file=" + dir_.File("out/keys/../k.key")},
       out_key},
      {true,
       {"--signing_key_file=" +
        (out / "k.key").lexically_relative(fs::current_path()).string()},
       out_key},
      {true, {"--signing_key_file=" + dir_.File("link/k.key")}, out_key},
      {true,
       {"--signing_key_file=" + dir_.File("elsewhere/into-out/k.key")},
       out_key},
      {true,
       {"--output_dir=" + dir_.File("link"),
        "--signing_key_file=" + dir_.File("out/sub/k.key")},
       dir_.File("link.referee.key")},
      {false,
       {"--output_dir=" + dir_.File("out/"),
        "--signing_key_file=" + dir_.File("out/k.key")},
       out_key},
  };
  for (const auto& c : cases) {
    fs::remove_all(out);
    if (c.out_exists) {
      ASSERT_TRUE(fs::create_directory(out));
    }
    std::vector<std::string> argv = {Bin("tournament"), file};
    if (c.flags.size() == 1) argv.push_back("--output_dir=" + out.string());
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    const std::string flags = absl::StrJoin(argv, " ");
    testing_util::Process run(argv, dir_.File("run.out"), dir_.File("run.err"));
    EXPECT_EQ(run.Wait(absl::Seconds(30)), 2) << flags << ": " << run.err();
    EXPECT_THAT(run.err(), HasSubstr("is inside the output directory"))
        << flags;
    EXPECT_THAT(run.err(), HasSubstr("would be published with it")) << flags;
    EXPECT_THAT(run.err(), HasSubstr("by default it is " + c.default_key))
        << flags;
    const std::string err = run.err();
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    // Nothing written: neither the directory (or anything in it) nor a key.
    EXPECT_EQ(fs::exists(out), c.out_exists) << flags;
    EXPECT_TRUE(Tree(out).empty()) << flags;
    EXPECT_FALSE(fs::exists(out_key)) << flags;
    EXPECT_FALSE(fs::exists(dir_.File("link.referee.key"))) << flags;
  }
  // Also when the directory holds another tournament, which would be named
  // only once the directory is opened: the key's place is the command's
  // mistake, said first, and the directory stays as it was.
  fs::remove_all(out);
  ASSERT_TRUE(fs::create_directory(out));
  ASSERT_TRUE(
      WriteFileAtomically((out / "tournament.txt").string(), "another\n").ok());
  const std::map<std::string, std::string> before = Tree(out);
  {
    testing_util::Process inside(
        {Bin("tournament"), file, "--output_dir=" + out.string(),
         "--signing_key_file=" + dir_.File("out/k.key")},
        dir_.File("run.out"), dir_.File("run.err"));
    EXPECT_EQ(inside.Wait(absl::Seconds(30)), 2) << inside.err();
    EXPECT_THAT(inside.err(), HasSubstr("is inside the output directory"));
    EXPECT_EQ(Tree(out), before);
  }
  // Beside it, the same key is taken (a name that only begins like the
  // directory's is not inside it).
  fs::remove_all(out);
  testing_util::Process run(
      {Bin("tournament"), file, "--output_dir=" + out.string(),
       "--signing_key_file=" + dir_.File("out-k.key")},
      dir_.File("run.out"), dir_.File("run.err"));
  EXPECT_EQ(run.Wait(absl::Seconds(120)), 0) << run.err();
  EXPECT_TRUE(ReadSigningKey(dir_.File("out-k.key")).ok());
}

// A signing_key_file that does not exist yet is created, and the runner
// says so on standard error, naming it (a mistyped path would otherwise
// become a new key unnoticed); a resume, which finds it, says nothing of
// the kind.
TEST_F(TournamentTest, ANewSigningKeyFileIsAnnounced) {
  std::vector<std::string> argv =
      TournamentCommand(Make("rock_paper_pyramid", 3, 3));
  const std::string key = dir_.File("new.key");
  argv.push_back("--signing_key_file=" + key);
  {
    testing_util::Process run(argv, dir_.File("1.out"), dir_.File("1.err"));
    ASSERT_EQ(run.Wait(absl::Seconds(120)), 0) << run.err();
    EXPECT_THAT(run.err(),
                HasSubstr("created a new secret key for the referee: " + key));
  }
  absl::StatusOr<SigningKey> created = ReadSigningKey(key);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(*ReadFileToString(key + ".pub"),
            *ReadFileToString(dir_.File("out/referee.key.pub")));
  testing_util::Process again(argv, dir_.File("2.out"), dir_.File("2.err"));
  ASSERT_EQ(again.Wait(absl::Seconds(120)), 0) << again.err();
  EXPECT_THAT(again.err(), Not(HasSubstr("created")));
}

// A resume (the same command, on the output directory of a run that was
// killed) without the secret key that signed the directory's logs, or
// with another, or with two different ones, is a mistake in the command:
// status 2, as for a key file that cannot be read, one line saying why,
// and nothing in the directory changes. With the key back, it resumes.
TEST_F(TournamentTest, AResumeWithoutItsSecretKeyIsRefusedWithStatus2) {
  const std::vector<std::string> argv = TournamentCommand(
      Make("rock_paper_pyramid", 3, 4, "rounds: 3 concurrency: 2"));
  ASSERT_NO_FATAL_FAILURE(KillOnceJournaled(argv, 2));
  const fs::path out = dir_.File("out");
  const std::string key = dir_.File("out.referee.key");
  const std::string kept = dir_.File("kept.key");
  const std::string other = dir_.File("other.key");
  ASSERT_TRUE(WriteKeyFiles(other, SigningKey::Generate()).ok());
  fs::rename(key, kept);
  const std::map<std::string, std::string> before = Tree(out);
  const std::string missing = dir_.File("missing.key");
  const struct {
    std::string flag;
    std::string message;
  } cases[] = {
      {"",
       "tournament: this output directory's logs are signed with the key "
       "in " +
           out.string() +
           "/referee.key.pub, but its secret half is "
           "not at " +
           key},
      {"--signing_key_file=" + missing,
       "but its secret half is not at " + missing},
      {"--signing_key_file=" + other,
       "tournament: the key in " + other +
           " did not sign this output directory's logs"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> resume = argv;
    if (!c.flag.empty()) resume.push_back(c.flag);
    testing_util::Process run(resume, dir_.File("r.out"), dir_.File("r.err"));
    EXPECT_EQ(run.Wait(absl::Seconds(30)), 2) << c.flag << ": " << run.err();
    EXPECT_THAT(run.err(), HasSubstr(c.message)) << c.flag;
    const std::string err = run.err();
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(fs::exists(key)) << c.flag;
    EXPECT_FALSE(fs::exists(missing)) << c.flag;
    EXPECT_TRUE(Tree(out) == before) << c.flag;
  }
  // Another tournament's directory is named as such (status 2, the
  // command's mistake, and nothing in it changes), whatever its key: that,
  // not the key, is what is wrong with the command.
  {
    std::vector<std::string> another = argv;
    another.push_back("--rounds=2");
    testing_util::Process run(another, dir_.File("a.out"), dir_.File("a.err"));
    EXPECT_EQ(run.Wait(absl::Seconds(30)), 2) << run.err();
    EXPECT_THAT(run.err(), HasSubstr("holds another tournament"));
    EXPECT_FALSE(fs::exists(key));
    EXPECT_TRUE(Tree(out) == before);
  }

  // Two different keys, the right one beside the directory and another
  // inside it where earlier runners kept theirs: neither is guessed.
  fs::rename(kept, key);
  fs::copy_file(other, out / "referee.key");
  const std::map<std::string, std::string> with_both = Tree(out);
  {
    testing_util::Process run(argv, dir_.File("r.out"), dir_.File("r.err"));
    EXPECT_EQ(run.Wait(absl::Seconds(30)), 2) << run.err();
    EXPECT_THAT(run.err(), HasSubstr("two different referee keys"));
    EXPECT_TRUE(Tree(out) == with_both);
  }
  // The same key written otherwise (a line more) is a copy, removed as one
  // (the check before the directory is touched and the one under its lock
  // compare keys alike).
  fs::remove(out / "referee.key");
  {
    std::ofstream copy(out / "referee.key");
    copy << *ReadFileToString(key) << "\n";
  }

  testing_util::Process resumed(argv, dir_.File("2.out"), dir_.File("2.err"));
  ASSERT_EQ(resumed.Wait(absl::Seconds(120)), 0) << resumed.err();
  EXPECT_THAT(resumed.out(), HasSubstr("36 of 36 match logs verified"));
  EXPECT_FALSE(fs::exists(out / "referee.key"));
}

TEST_F(TournamentTest, InterruptedTournamentResumesWithoutReplaying) {
  const v1::Tournament t =
      Make("rock_paper_pyramid", 3, 4, "rounds: 3 concurrency: 2");
  // Interrupt twice (at once) once a few matches are in the journal.
  absl::StatusOr<v1::TournamentResults> first =
      Run(t, [&] { return Journaled().size() >= 5 ? 2 : 0; });
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), absl::StatusCode::kCancelled)
      << first.status();
  EXPECT_THAT(first.status().message(), HasSubstr("resume"));
  const std::vector<v1::TournamentMatchResult> before = Journaled();
  ASSERT_GE(before.size(), 5u);
  ASSERT_LT(before.size(), 36u);

  absl::StatusOr<v1::TournamentResults> second = Run(t);
  ASSERT_TRUE(second.ok()) << second.status() << progress_.str();
  EXPECT_THAT(progress_.str(),
              HasSubstr(absl::StrCat("resuming: ", before.size(), " of 36")));
  EXPECT_EQ(second->verified(), 36u);
  ExpectAllGenuine(*second);
  // Every match finished before the interruption is kept as it was.
  std::map<uint32_t, std::string> ids;
  for (const auto& m : second->matches()) ids[m.index()] = m.match_id();
  EXPECT_EQ(ids.size(), 36u);
  for (const auto& m : before) EXPECT_EQ(ids[m.index()], m.match_id());
  // And none was played twice.
  const std::vector<v1::TournamentMatchResult> after = Journaled();
  std::set<uint32_t> indices;
  for (const auto& m : after) {
    EXPECT_TRUE(indices.insert(m.index()).second) << m.index();
  }
  EXPECT_EQ(after.size(), 36u);
}

// A finished tournament run again reads and verifies each log once (the
// check of the lost logs, the embedded referee's start and the resume used
// to read each again: 3 reads; the final check of the directory read each
// once more), and keeps the published proofs that still
// stand against its unchanged checkpoint: an untouched proof keeps its
// file, a damaged or missing one is written again. (A stray entry makes
// proofs/ anew: ARunAgainMakesAnewAProofsDirectoryHoldingOtherThanProofs.)
TEST_F(TournamentTest, AFinishedTournamentRunAgainReadsEachLogOnce) {
  const v1::Tournament t =
      Make("rock_paper_pyramid", 3, 3, "rounds: 2 concurrency: 2");
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_TRUE(first.ok()) << first.status() << progress_.str();
  ASSERT_EQ(first->verified(), 6u);
  std::vector<std::string> proofs;
  for (const v1::TournamentMatchResult& m : first->matches()) {
    proofs.push_back(dir_.File(absl::StrCat(
        "out/proofs/", fs::path(m.log_file()).stem().string(), ".tlog-proof")));
  }
  std::map<std::string, std::string> proof_bytes;
  for (const std::string& proof : proofs) {
    proof_bytes[proof] = ReadFileToString(proof).value_or("");
  }
  struct stat untouched;
  ASSERT_EQ(stat(proofs[0].c_str(), &untouched), 0);
  std::ofstream(proofs[1], std::ios::trunc) << "damaged";
  fs::remove(proofs[2]);

  std::map<std::string, int> reads;
  RunOptions options;
  options.progress = &progress_;
  options.log_verified = [&](const std::string& path) {
    ++reads[fs::path(path).filename().string()];
  };
  // Every open of a log, by whoever opens it.
  const int opens = WatchOpens(dir_.File("out/logs"));
  ASSERT_GE(opens, 0) << std::strerror(errno);
  absl::StatusOr<v1::TournamentResults> again = RunTournament(t, options);
  const std::map<std::string, int> opened = OpensSeen(opens);
  close(opens);
  ASSERT_TRUE(again.ok()) << again.status() << progress_.str();
  EXPECT_EQ(again->verified(), 6u);
  EXPECT_EQ(again->transparency_problems(), 0u)
      << again->transparency_verdict();
  EXPECT_THAT(again->transparency_verdict(),
              HasSubstr("6 matches, all included in checkpoint 6"));
  EXPECT_EQ(reads.size(), 6u);
  EXPECT_EQ(opened.size(), 6u);
  // The one other reader of logs in a run is the report's check that each
  // bot played (BotsThatNeverPlayed): its opens, seen by calling it again
  // on the same results, are its own business. Every other open of a log
  // is the runner's verification, which opens each log once.
  const int by_report_fd = WatchOpens(dir_.File("out/logs"));
  ASSERT_GE(by_report_fd, 0) << std::strerror(errno);
  BotsThatNeverPlayed(*again, dir_.File("out"));
  const std::map<std::string, int> by_report = OpensSeen(by_report_fd);
  close(by_report_fd);
  const auto count = [](const std::map<std::string, int>& opens,
                        const std::string& name) {
    const auto it = opens.find(name);
    return it == opens.end() ? 0 : it->second;
  };
  for (const std::string& log : Logs()) {
    const std::string name = fs::path(log).filename().string();
    EXPECT_EQ(reads[name], 1) << log;
    EXPECT_EQ(count(opened, name) - count(by_report, name), 1)
        << log << ": opened " << count(opened, name) << " times in the run, "
        << count(by_report, name) << " of them by BotsThatNeverPlayed";
  }
  for (const std::string& proof : proofs) {
    EXPECT_EQ(ReadFileToString(proof).value_or(""), proof_bytes[proof])
        << proof;
  }
  struct stat kept;
  ASSERT_EQ(stat(proofs[0].c_str(), &kept), 0);
  EXPECT_EQ(kept.st_ino, untouched.st_ino);
  EXPECT_FALSE(fs::exists(dir_.File("out/proofs.new")));
}

// What a finished tournament run again finds in proofs/ under a proof's
// name is read only when it is a regular file of at most 1 MiB: a FIFO
// hung the run (SIGTERM did not stop it), a symlink to /dev/zero was read
// to the machine's memory, and a directory failed every later run ("cannot
// write ...tlog-proof: Is a directory"), leaving NAME.tlog-proof.new in
// proofs/, a proof without its log to `replay verify-tournament`. Such
// entries, a stray file and a *.new an earlier failure left make proofs/
// anew: the run finishes, every proof a regular file again, and the
// directory verifies.
TEST_F(TournamentTest,
       ARunAgainMakesAnewAProofsDirectoryHoldingOtherThanProofs) {
  const v1::Tournament t =
      Make("rock_paper_pyramid", 3, 3, "rounds: 2 concurrency: 2");
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_TRUE(first.ok()) << first.status() << progress_.str();
  ASSERT_EQ(first->verified(), 6u);
  std::map<std::string, std::string> proof_bytes;  // By file name.
  std::vector<fs::path> proofs;
  for (const v1::TournamentMatchResult& m : first->matches()) {
    const fs::path proof = dir_.File(absl::StrCat(
        "out/proofs/", fs::path(m.log_file()).stem().string(), ".tlog-proof"));
    proofs.push_back(proof);
    proof_bytes[proof.filename().string()] =
        ReadFileToString(proof.string()).value_or("");
  }
  for (const fs::path& proof : {proofs[0], proofs[1], proofs[2]}) {
    ASSERT_TRUE(fs::remove(proof)) << proof;
  }
  ASSERT_EQ(mkfifo(proofs[0].c_str(), 0600), 0) << std::strerror(errno);
  ASSERT_TRUE(fs::create_directories(proofs[1] / "inside"));
  fs::create_symlink("/dev/zero", proofs[2]);
  fs::path left = proofs[3];
  left += ".new";
  std::ofstream(left) << "left by a failure";
  std::ofstream(dir_.File("out/proofs/stray.tlog-proof")) << "stray";

  testing_util::Process again(TournamentCommand(t), dir_.File("again.out"),
                              dir_.File("again.err"));
  ASSERT_EQ(again.Wait(absl::Seconds(120)), 0) << again.err();
  std::map<std::string, std::string> now;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(dir_.File("out/proofs"))) {
    EXPECT_TRUE(fs::is_regular_file(entry.symlink_status())) << entry.path();
    now[entry.path().filename().string()] =
        fs::is_regular_file(entry.symlink_status())
            ? ReadFileToString(entry.path().string()).value_or("?")
            : "not a file";
  }
  EXPECT_EQ(now, proof_bytes);
  EXPECT_FALSE(fs::exists(dir_.File("out/proofs.new")));
  testing_util::Process check(
      {Bin("replay"), "verify-tournament", dir_.File("out")},
      dir_.File("check.out"), dir_.File("check.err"));
  EXPECT_EQ(check.Wait(absl::Seconds(60)), 0) << check.out() << check.err();
  EXPECT_THAT(check.out(),
              HasSubstr(": 6 matches, all included in checkpoint 6"));
  EXPECT_THAT(check.out(), Not(HasSubstr("problem")));
}

// verify-tournament checks results.json against the logs: as the runner
// wrote it, it passes; a host who swaps two standings or changes what a
// match's result says is named, the directory failing (exit 1).
TEST_F(TournamentTest, ResultsThatDisagreeWithTheLogsAreNamed) {
  absl::StatusOr<v1::TournamentResults> results =
      Run(Make("rock_paper_pyramid", 3, 4, "concurrency: 4"));
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  ASSERT_EQ(results->standings_size(), 4);
  ASSERT_GT(results->matches_size(), 0);
  const std::string path = dir_.File("out/results.json");
  const std::string json = *ReadFileToString(path);
  auto verify = [&](const std::string& name) {
    testing_util::Process check(
        {Bin("replay"), "verify-tournament", dir_.File("out")},
        dir_.File(name + ".out"), dir_.File(name + ".err"));
    const int status = check.Wait(absl::Seconds(60));
    return std::make_pair(status, check.out() + check.err());
  };
  const auto [ok, ok_text] = verify("as-written");
  EXPECT_EQ(ok, 0) << ok_text;
  EXPECT_THAT(ok_text, Not(HasSubstr("results.json")));
  auto write = [&](const v1::TournamentResults& r) {
    std::string text;
    ASSERT_TRUE(google::protobuf::util::MessageToJsonString(r, &text).ok());
    ASSERT_TRUE(WriteFileAtomically(path, text).ok());
  };
  v1::TournamentResults parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &parsed).ok());
  v1::TournamentResults swapped = parsed;
  swapped.mutable_standings()->SwapElements(0, 1);
  write(swapped);
  const auto [standings, standings_text] = verify("standings");
  EXPECT_EQ(standings, 1) << standings_text;
  EXPECT_THAT(standings_text, HasSubstr(absl::StrCat(
                                  "results.json: standing 1: results.json "
                                  "says \"",
                                  parsed.standings(1).bot(), "\", the logs \"",
                                  parsed.standings(0).bot(), "\"")));
  v1::TournamentResults moved = parsed;
  v1::Outcome& outcome = *moved.mutable_matches(0)->mutable_outcome();
  ASSERT_EQ(outcome.seats_size(), 3);
  outcome.mutable_seats(0)->set_rank(outcome.seats(0).rank() == 1 ? 3 : 1);
  write(moved);
  const auto [match, match_text] = verify("match");
  EXPECT_EQ(match, 1) << match_text;
  EXPECT_THAT(match_text,
              HasSubstr(absl::StrCat("results.json: match ",
                                     parsed.matches(0).index(), ": outcome")));
}

// `replay verify-tournament OUT`: its exit status and what it printed.
std::pair<int, std::string> VerifyTournament(const std::string& out,
                                             const std::string& name) {
  testing_util::Process check({Bin("replay"), "verify-tournament", out},
                              out + "." + name + ".out",
                              out + "." + name + ".err");
  const int status = check.Wait(absl::Seconds(60));
  return {status, check.out() + check.err()};
}

// results.json is checked with the tournament of tournament.txt (the
// format orders the standings; the bots and the SPRT are its), which only
// the name and game tied to the signed logs: a gauntlet's tournament.txt
// and results.json edited to another format reordered the standings with
// exit 0, and with tournament.txt removed results.json's own format, bots
// and SPRT were taken without a word. tournament.txt must now make
// schedule.json (the runner's MakeSchedule from its format, bots, seats,
// rounds and seed; for Swiss, the first round and the rounds' shape), and
// with results.json it must be there. Genuine directories of each format,
// and one whose SPRT skipped matches, pass.
TEST_F(TournamentTest, TournamentTxtMustBeTheTournamentThatMadeTheSchedule) {
  struct Case {
    std::string name;
    v1::Tournament t;
  };
  std::vector<Case> cases = {
      {"rr", Make("pyramid_scheme", 2, 3, "rounds: 2 concurrency: 4")},
      {"gauntlet", Make("rock_paper_pyramid", 3, 4,
                        "format: GAUNTLET seed: 7 concurrency: 4")},
      {"swiss",
       Make("pyramid_scheme", 2, 5, "format: SWISS rounds: 2 concurrency: 4")},
      {"sprt", Make("pyramid_scheme", 2, 2,
                    "rounds: 200 concurrency: 2 sprt { elo0: 0 elo1: 100 }")},
  };
  cases[3].t.mutable_bots(0)->add_command("--strategy=heuristic");
  std::map<std::string, std::string> out;
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    out[c.name] = dir_.File("out-" + c.name);
    c.t.set_output_dir(out[c.name]);
    absl::StatusOr<v1::TournamentResults> results = Run(c.t);
    ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
    if (c.name == "sprt") {
      EXPECT_GT(results->skipped(), 0u);
    }
    const auto [status, text] = VerifyTournament(out[c.name], "genuine");
    EXPECT_EQ(status, 0) << text;
  }
  const std::string gauntlet = out["gauntlet"];
  const std::string txt = gauntlet + "/tournament.txt";
  const std::string json = gauntlet + "/results.json";
  const std::string txt_before = *ReadFileToString(txt);
  const std::string json_before = *ReadFileToString(json);
  v1::Tournament recorded;
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(txt_before, &recorded));
  v1::TournamentResults results;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(json_before, &results).ok());
  // tournament.txt and results.json as `t` and `r`, then verified.
  auto verify_as = [&](const v1::Tournament& t, const v1::TournamentResults& r,
                       const std::string& name) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(t, &text);
    EXPECT_TRUE(WriteFileAtomically(txt, text).ok());
    std::string written;
    EXPECT_TRUE(google::protobuf::util::MessageToJsonString(r, &written).ok());
    EXPECT_TRUE(WriteFileAtomically(json, written).ok());
    return VerifyTournament(gauntlet, name);
  };
  {
    const auto [status, text] = verify_as(recorded, results, "rewritten");
    EXPECT_EQ(status, 0) << text;
  }
  // Another format in both files: the standings' order is another.
  for (const v1::TournamentFormat format : {v1::ROUND_ROBIN, v1::SWISS}) {
    SCOPED_TRACE(v1::TournamentFormat_Name(format));
    v1::Tournament t = recorded;
    t.set_format(format);
    v1::TournamentResults r = results;
    r.set_format(format);
    const auto [status, text] =
        verify_as(t, r, v1::TournamentFormat_Name(format));
    EXPECT_EQ(status, 1) << text;
    EXPECT_THAT(text, HasSubstr(absl::StrCat(
                          "tournament.txt (", v1::TournamentFormat_Name(format),
                          ", 4 bots, 3 seats, 1 round, seed 7) is not the "
                          "tournament that made schedule.json: ")));
  }
  {
    // A bot added, one that never plays (its standing all zeros).
    v1::Tournament t = recorded;
    *t.add_bots() = t.bots(3);
    t.mutable_bots(4)->set_name("bot-5");
    v1::TournamentResults r = results;
    r.add_standings()->set_bot("bot-5");
    const auto [status, text] = verify_as(t, r, "bot-added");
    EXPECT_EQ(status, 1) << text;
    EXPECT_THAT(text, HasSubstr("tournament.txt (GAUNTLET, 5 bots, 3 seats, 1 "
                                "round, seed 7) is not the tournament that "
                                "made schedule.json: it schedules 18 matches, "
                                "schedule.json lists 9"));
  }
  {
    // Many bots at as many seats: with a schedule.json of as many entries
    // (30,000 of a few bytes), scheduling it again took 3.6 GB of bot
    // indexes. The logs pin a match's seats: other seats are refused
    // before anything is scheduled.
    v1::Tournament t = recorded;
    for (int i = t.bots_size(); i < 30000; ++i) {
      t.add_bots()->set_name(absl::StrCat("many-", i));
    }
    t.set_seats(30000);
    const auto [status, text] = verify_as(t, results, "many-seats");
    EXPECT_EQ(status, 1) << text;
    EXPECT_THAT(text, HasSubstr("is not the tournament that made "
                                "schedule.json: it seats 30000 bots a match, "
                                "schedule.json's match 0 3"));
  }
  {
    // Two bots swapped: as many matches, other seats.
    v1::Tournament t = recorded;
    t.mutable_bots()->SwapElements(1, 2);
    const auto [status, text] = verify_as(t, results, "bots-swapped");
    EXPECT_EQ(status, 1) << text;
    EXPECT_THAT(text, HasSubstr("is not the tournament that made "
                                "schedule.json: match "));
    EXPECT_THAT(text, HasSubstr(" in tournament.txt's schedule, "));
  }
  {
    // The Swiss run's tournament.txt with its first two bots swapped: its
    // first round pairs bot-2 with bot-1 in the other seat order.
    const std::string swiss = out["swiss"] + "/tournament.txt";
    const std::string before = *ReadFileToString(swiss);
    v1::Tournament t;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(before, &t));
    t.mutable_bots()->SwapElements(0, 1);
    std::string text;
    google::protobuf::TextFormat::PrintToString(t, &text);
    ASSERT_TRUE(WriteFileAtomically(swiss, text).ok());
    const auto [status, said] = VerifyTournament(out["swiss"], "swiss-swapped");
    EXPECT_EQ(status, 1) << said;
    EXPECT_THAT(said, HasSubstr("match 0 seats \"bot-2\", \"bot-1\" in "
                                "tournament.txt's schedule, \"bot-1\", "
                                "\"bot-2\" in schedule.json (the first round, "
                                "paired before any result)"));
    ASSERT_TRUE(WriteFileAtomically(swiss, before).ok());
  }
  {
    // A Swiss run of 5 bots and 3 rounds whose round 2 is not the runner's
    // pairing of round 1's results: a pairings.jsonl written before the
    // run (read as an earlier run's) rematches bot-1 and bot-2, which
    // PairSwissRound never does while another pairing is free of
    // rematches. Every round has the right shape and bye rotation, and the
    // logs, schedule.json, tournament.txt and results.json all agree: only
    // recomputing round 2 from the counted results of round 1 finds it.
    v1::Tournament t =
        Make("pyramid_scheme", 2, 5, "format: SWISS rounds: 3 concurrency: 4");
    const std::string forged = dir_.File("out-swiss-forged");
    fs::create_directories(forged);
    std::string pairings;
    const std::vector<std::pair<int, int>> pairs = {
        {1, 2}, {3, 4}, {1, 2}, {3, 5}};
    int index = 0;
    for (const auto& [a, b] : pairs) {
      for (const auto& [first, second] :
           {std::pair<int, int>{a, b}, std::pair<int, int>{b, a}}) {
        absl::StrAppend(&pairings, "{\"index\":", index++, ",\"seats\":[\"bot-",
                        first, "\",\"bot-", second, "\"]}\n");
      }
    }
    ASSERT_TRUE(WriteFileAtomically(forged + "/pairings.jsonl", pairings).ok());
    t.set_output_dir(forged);
    absl::StatusOr<v1::TournamentResults> run = Run(t);
    ASSERT_TRUE(run.ok()) << run.status() << progress_.str();
    ASSERT_EQ(run->verified(), 12u);
    ASSERT_EQ(run->matches(4).seats(0), "bot-1");
    ASSERT_EQ(run->matches(4).seats(1), "bot-2");
    const auto [status, said] = VerifyTournament(forged, "swiss-round-2");
    EXPECT_EQ(status, 1) << said;
    EXPECT_THAT(said, HasSubstr("is not the tournament that made "
                                "schedule.json: match 4 seats "));
    EXPECT_THAT(said, HasSubstr("(round 2, which the runner pairs from the "
                                "counted results of the round before it)"));
    EXPECT_THAT(said, HasSubstr(": 1 problem"));
  }
  // Without tournament.txt, results.json is the host's word alone.
  ASSERT_TRUE(WriteFileAtomically(txt, txt_before).ok());
  ASSERT_TRUE(WriteFileAtomically(json, json_before).ok());
  fs::remove(txt);
  {
    const auto [status, text] = VerifyTournament(gauntlet, "no-txt");
    EXPECT_EQ(status, 1) << text;
    EXPECT_THAT(text, HasSubstr("results.json: the directory holds no "
                                "tournament.txt, which the runner writes "
                                "before it"));
  }
  ASSERT_TRUE(WriteFileAtomically(txt, txt_before).ok());
  // A log (and its proof) under a name with a byte PrintableText escapes:
  // results.json names it as the runner would, by its own bytes, and the
  // check compares those, not their escaped form.
  {
    const int i = 0;
    const std::string file = results.matches(i).log_file();
    const std::string stem = fs::path(file).stem().string();
    const std::string odd = stem + "\x01";
    fs::rename(gauntlet + "/" + file, gauntlet + "/logs/" + odd + ".pyrlog");
    fs::rename(gauntlet + "/proofs/" + stem + ".tlog-proof",
               gauntlet + "/proofs/" + odd + ".tlog-proof");
    v1::TournamentResults r = results;
    r.mutable_matches(i)->set_log_file("logs/" + odd + ".pyrlog");
    const auto [status, text] = verify_as(recorded, r, "odd-name");
    EXPECT_EQ(status, 0) << text;
  }
}

// The seats of Swiss round 2 of 4 bots (matches 4 to 7) as PairSwissRound
// pairs it from round 1's results `round_one` (matches 0 to 3, by index),
// with the bot in seat `seat` of match `lost` losing that match instead
// (lost -1: as played).
std::vector<std::vector<std::string>> SwissRoundTwo(
    const std::map<uint32_t, v1::TournamentMatchResult>& round_one,
    const std::vector<std::string>& names, int lost = -1, int seat = 0) {
  const int n = static_cast<int>(names.size());
  std::vector<double> points(n, 0);
  std::vector<std::vector<int>> games(n, std::vector<int>(n, 0));
  for (const auto& [index, m] : round_one) {
    const int a = static_cast<int>(
        std::find(names.begin(), names.end(), m.seats(0)) - names.begin());
    const int b = static_cast<int>(
        std::find(names.begin(), names.end(), m.seats(1)) - names.begin());
    ++games[a][b];
    ++games[b][a];
    if (static_cast<int>(index) == lost) {
      points[seat == 0 ? b : a] += 1;
      continue;
    }
    points[a] += PairwisePoints(m.outcome(), 0);
    points[b] += PairwisePoints(m.outcome(), 1);
  }
  std::vector<std::vector<std::string>> seats;
  for (const ScheduledMatch& made : SwissRoundMatches(
           PairSwissRound(points, games, std::vector<bool>(n, false)), 4)) {
    seats.push_back({names[made.bots[0]], names[made.bots[1]]});
  }
  return seats;
}

// verify-tournament recomputes each Swiss round after the first from the
// counted results (a round that does not follow from them is a problem:
// TournamentTxtMustBeTheTournamentThatMadeTheSchedule's "swiss-round-2").
// The runner paired the round from the results it had then, and a resume
// may since have played a match of an earlier round again, its first log
// set aside in superseded/: that round is then said in a note, naming it,
// not a problem. A genuine such run: 4 bots, 2 rounds; the logs of a match
// M of round 1 and of a match K of round 2 swapped (each file then holds
// another match's log), and the resume with --replay_lost_logs moves both
// to superseded/ and plays both again. M's replay is made to change round
// 2's pairing: each bot's command crashes it after its first commit while
// a file names it, and the bot of M so named (chosen with PairSwissRound
// from the first run's results) is one whose loss of M pairs round 2
// otherwise: it forfeits M. K is a match that bot does not play. Without
// superseded/, the same round is a problem.
TEST_F(TournamentTest, ASwissRoundPairedBeforeAResumePlayedAMatchAgainIsANote) {
  v1::Tournament t =
      Make("pyramid_scheme", 2, 4, "format: SWISS rounds: 2 concurrency: 4");
  std::vector<std::string> names;
  for (v1::TournamentBot& bot : *t.mutable_bots()) {
    names.push_back(bot.name());
    const std::string crash = dir_.File("crash-" + bot.name());
    bot.clear_command();
    for (const std::string& arg :
         {std::string("/bin/sh"), std::string("-c"),
          absl::StrCat("if [ -e '", crash, "' ]; then exec '", Bot(),
                       "' --quiet --crash_after_commits=1; fi; exec '", Bot(),
                       "' --quiet")}) {
      bot.add_command(arg);
    }
  }
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_TRUE(first.ok()) << first.status() << progress_.str();
  ASSERT_EQ(first->verified(), 8u);
  std::map<uint32_t, v1::TournamentMatchResult> round_one;
  std::map<uint32_t, v1::TournamentMatchResult> by_index;
  for (const v1::TournamentMatchResult& m : first->matches()) {
    by_index[m.index()] = m;
    if (m.index() < 4) round_one[m.index()] = m;
  }
  std::vector<std::vector<std::string>> recorded;
  for (uint32_t index = 4; index < 8; ++index) {
    recorded.push_back({by_index[index].seats(0), by_index[index].seats(1)});
  }
  ASSERT_EQ(SwissRoundTwo(round_one, names), recorded);
  // Some loss in round 1 always pairs round 2 otherwise (every outcome of
  // round 1's 4 matches has one).
  int lost = -1, seat = 0;
  for (int index = 0; index < 4 && lost < 0; ++index) {
    for (seat = 0; seat < 2; ++seat) {
      if (SwissRoundTwo(round_one, names, index, seat) != recorded) {
        lost = index;
        break;
      }
    }
  }
  ASSERT_GE(lost, 0);
  const std::string crashing = by_index[lost].seats(seat);
  int other = 4;
  while (other < 8 && (by_index[other].seats(0) == crashing ||
                       by_index[other].seats(1) == crashing)) {
    ++other;
  }
  ASSERT_LT(other, 8);
  const std::string out = dir_.File("out");
  const std::string m_log = out + "/" + by_index[lost].log_file();
  const std::string k_log = out + "/" + by_index[other].log_file();
  fs::rename(m_log, out + "/swapping");
  fs::rename(k_log, m_log);
  fs::rename(out + "/swapping", k_log);
  std::ofstream(dir_.File("crash-" + crashing)).flush();

  progress_.str("");
  RunOptions options;
  options.progress = &progress_;
  options.replay_lost_logs = true;
  absl::StatusOr<v1::TournamentResults> second = RunTournament(t, options);
  ASSERT_TRUE(second.ok()) << second.status() << progress_.str();
  for (const int index : {lost, other}) {
    EXPECT_THAT(progress_.str(),
                HasSubstr(absl::StrCat(
                    "; moved to superseded/",
                    fs::path(by_index[index].log_file()).filename().string())));
  }
  ASSERT_EQ(second->verified(), 8u);
  for (const v1::TournamentMatchResult& m : second->matches()) {
    if (m.index() != static_cast<uint32_t>(lost)) continue;
    EXPECT_NE(m.match_id(), by_index[lost].match_id());
    ASSERT_TRUE(m.outcome().seats(seat).forfeited()) << m.DebugString();
    ASSERT_FALSE(m.outcome().seats(1 - seat).forfeited()) << m.DebugString();
  }
  const std::string round_two =
      "(round 2, which the runner pairs from the counted results of the "
      "round before it)";
  {
    const auto [status, said] = VerifyTournament(out, "replayed");
    EXPECT_EQ(status, 0) << said;
    EXPECT_THAT(said,
                HasSubstr(absl::StrCat(
                    out,
                    ": note: schedule.json's round 2 is not the pairing of "
                    "the counted results of the rounds before it: match ")));
    EXPECT_THAT(
        said, HasSubstr(absl::StrCat(
                  round_two, "; superseded/ holds a sealed log of match ", lost,
                  ", played again on a resume, and the runner may "
                  "have paired the round from the earlier result: "
                  "the host's word; rounds 2 on are not "
                  "recomputed\n")));
  }
  // Without superseded/, the same round is a problem (and so are the
  // checkpoint's two sealed logs the directory no longer holds).
  fs::rename(out + "/superseded", dir_.File("superseded"));
  {
    const auto [status, said] = VerifyTournament(out, "not-replayed");
    EXPECT_EQ(status, 1) << said;
    EXPECT_THAT(said, HasSubstr(absl::StrCat(
                          out,
                          ": tournament.txt (SWISS, 4 bots, 2 seats, 2 "
                          "rounds, seed 0) is not the tournament that made "
                          "schedule.json: match ")));
    EXPECT_THAT(said, HasSubstr(round_two + "\n"));
    EXPECT_THAT(said, Not(HasSubstr("note: schedule.json's round 2")));
  }
}

// A Swiss schedule.json that tournament.txt cannot have made, each said as
// the check of its rounds' shape says it (verify-tournament's
// SwissDifference): tournament.txt with other seats, fewer rounds, more
// bots or a bot renamed; schedule.json with a pair not in both seat orders,
// a bot in two pairs of a round, or a second bye before every bot has had
// one. Made from a genuine run of 5 bots and 2 rounds (round 1 pairs
// bot-1 with bot-2 and bot-3 with bot-4, bot-5 has the bye).
TEST_F(TournamentTest, SwissSchedulesOfAnotherShapeAreNamed) {
  v1::Tournament t =
      Make("pyramid_scheme", 2, 5, "format: SWISS rounds: 2 concurrency: 4");
  absl::StatusOr<v1::TournamentResults> run = Run(t);
  ASSERT_TRUE(run.ok()) << run.status() << progress_.str();
  ASSERT_EQ(run->verified(), 8u);
  const std::string out = dir_.File("out");
  const std::string txt = out + "/tournament.txt";
  const std::string json = out + "/schedule.json";
  const std::string txt_before = *ReadFileToString(txt);
  const std::string json_before = *ReadFileToString(json);
  v1::Tournament recorded;
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(txt_before, &recorded));
  v1::TournamentSchedule schedule;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(json_before, &schedule).ok());
  ASSERT_EQ(schedule.matches_size(), 8);
  ASSERT_EQ(schedule.matches(0).seats(0), "bot-1");
  ASSERT_EQ(schedule.matches(2).seats(0), "bot-3");
  const std::string prefix = absl::StrCat(out, ": tournament.txt (SWISS, ");
  // verify-tournament's output on tournament.txt `tt` and schedule.json
  // `s`, the run's files put back after.
  auto verify_as = [&](const v1::Tournament& tt,
                       const v1::TournamentSchedule& s,
                       const std::string& name) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(tt, &text);
    EXPECT_TRUE(WriteFileAtomically(txt, text).ok());
    std::string written;
    EXPECT_TRUE(google::protobuf::util::MessageToJsonString(s, &written).ok());
    EXPECT_TRUE(WriteFileAtomically(json, written).ok());
    std::pair<int, std::string> verdict = VerifyTournament(out, name);
    EXPECT_TRUE(WriteFileAtomically(txt, txt_before).ok());
    EXPECT_TRUE(WriteFileAtomically(json, json_before).ok());
    return verdict;
  };
  {
    const auto [status, said] = verify_as(recorded, schedule, "as-run");
    EXPECT_EQ(status, 0) << said;
  }
  {
    v1::Tournament other = recorded;
    other.set_seats(3);
    const auto [status, said] = verify_as(other, schedule, "seats");
    EXPECT_EQ(status, 1) << said;
    EXPECT_THAT(said, HasSubstr(prefix + "5 bots, 3 seats, 2 rounds, seed 0) "
                                         "is not the tournament that made "
                                         "schedule.json: Swiss pairs two seats "
                                         "per match; tournament.txt has 3 "
                                         "seats\n"));
  }
  {
    v1::Tournament other = recorded;
    other.set_rounds(1);
    const auto [status, said] = verify_as(other, schedule, "rounds");
    EXPECT_EQ(status, 1) << said;
    EXPECT_THAT(said, HasSubstr(prefix + "5 bots, 2 seats, 1 round, seed 0) "
                                         "is not the tournament that made "
                                         "schedule.json: tournament.txt's 1 "
                                         "round play at most 4 matches, "
                                         "schedule.json lists 8\n"));
  }
  {
    v1::Tournament other = recorded;
    for (const std::string name : {"bot-6", "bot-7"}) {
      *other.add_bots() = other.bots(0);
      other.mutable_bots(other.bots_size() - 1)->set_name(name);
    }
    const auto [status, said] = verify_as(other, schedule, "bots");
    EXPECT_EQ(status, 1) << said;
    EXPECT_THAT(said, HasSubstr(prefix + "7 bots, 2 seats, 2 rounds, seed 0) "
                                         "is not the tournament that made "
                                         "schedule.json: schedule.json lists 8 "
                                         "matches, not whole rounds of 6 (7 "
                                         "bots)\n"));
  }
  {
    // bot-5 had round 1's bye: renamed, it is first seated in round 2.
    v1::Tournament other = recorded;
    other.mutable_bots(4)->set_name("bot-9");
    const auto [status, said] = verify_as(other, schedule, "renamed");
    EXPECT_EQ(status, 1) << said;
    EXPECT_THAT(said,
                HasSubstr(" seats \"bot-5\", no bot of tournament.txt\n"));
  }
  {
    v1::TournamentSchedule other = schedule;
    *other.mutable_matches(5)->mutable_seats() = other.matches(4).seats();
    const auto [status, said] = verify_as(recorded, other, "one-order");
    EXPECT_EQ(status, 1) << said;
    EXPECT_THAT(
        said, HasSubstr(absl::StrCat(
                  "schedule.json: match 4 (\"", schedule.matches(4).seats(0),
                  "\", \"", schedule.matches(4).seats(1), "\") and match 5 (\"",
                  schedule.matches(4).seats(0), "\", \"",
                  schedule.matches(4).seats(1),
                  "\") are not one Swiss pair in both seat orders\n")));
  }
  {
    // Round 2's second pair made to seat a bot of its first.
    v1::TournamentSchedule other = schedule;
    const std::string twice = schedule.matches(4).seats(0);
    other.mutable_matches(6)->set_seats(0, twice);
    other.mutable_matches(7)->set_seats(1, twice);
    const auto [status, said] = verify_as(recorded, other, "twice");
    EXPECT_EQ(status, 1) << said;
    EXPECT_THAT(said, HasSubstr(absl::StrCat(
                          "schedule.json: match 6 seats \"", twice,
                          "\", who plays another pair of round 2\n")));
  }
  {
    // Round 2 paired as round 1 again, bot-5's second bye. Round 2 is not
    // recomputed (which would say so first) once match 0 has no log.
    v1::TournamentSchedule other = schedule;
    for (int i = 4; i < 8; ++i) {
      *other.mutable_matches(i)->mutable_seats() =
          schedule.matches(i - 4).seats();
    }
    for (const v1::TournamentMatchResult& m : run->matches()) {
      if (m.index() == 0) fs::rename(out + "/" + m.log_file(), dir_.File("0"));
    }
    const auto [status, said] = verify_as(recorded, other, "second-bye");
    for (const v1::TournamentMatchResult& m : run->matches()) {
      if (m.index() == 0) fs::rename(dir_.File("0"), out + "/" + m.log_file());
    }
    EXPECT_EQ(status, 1) << said;
    EXPECT_THAT(said, HasSubstr("schedule.json: round 2 gives \"bot-5\" a "
                                "second bye before every bot has had one\n"));
  }
}

// The host who holds the referee's key can play the whole tournament
// again under the same run id (OUTPUT/run_id is the runner's input too):
// the same labels, other match ids. An unsealed prefix of such a replay's
// match 0 in logs/ beside match 0's counted log was a note ("unsealed
// prefix, not counted") and the directory passed: it is a problem naming
// both match ids, since the label stood for two matches. A copy cut short
// of the counted log itself stays a note, naming its label and match id.
TEST_F(TournamentTest, AnUnsealedPrefixOfAReplayedMatchIsAProblem) {
  v1::Tournament t =
      Make("rock_paper_pyramid", 3, 3, "rounds: 1 concurrency: 1");
  t.set_signing_key_file(dir_.File("k.key"));
  ASSERT_TRUE(WriteKeyFiles(t.signing_key_file(), SigningKey::Generate()).ok());
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_TRUE(first.ok()) << first.status() << progress_.str();
  ASSERT_EQ(first->verified(), 3u);
  const fs::path again = dir_.File("again");
  fs::create_directories(again);
  fs::copy_file(dir_.File("out/run_id"), again / "run_id");
  v1::Tournament replayed = t;
  replayed.set_output_dir(again.string());
  absl::StatusOr<v1::TournamentResults> second = Run(replayed);
  ASSERT_TRUE(second.ok()) << second.status() << progress_.str();
  ASSERT_EQ(second->verified(), 3u);
  const auto log_of = [](const v1::TournamentResults& results, uint32_t index) {
    for (const v1::TournamentMatchResult& m : results.matches()) {
      if (m.index() == index) return m;
    }
    return v1::TournamentMatchResult();
  };
  const v1::TournamentMatchResult kept = log_of(*first, 0);
  const v1::TournamentMatchResult other = log_of(*second, 0);
  ASSERT_NE(kept.match_id(), other.match_id());
  const std::string run_id(absl::StripAsciiWhitespace(
      ReadFileToString(dir_.File("out/run_id")).value_or("")));
  const std::string label = absl::StrCat("t/", run_id, "/0");
  // Both runs pass, each naming its run and its leaves in its own tree.
  for (const v1::TournamentResults* results : {&*first, &*second}) {
    EXPECT_THAT(results->transparency_verdict(),
                StartsWith("3 matches, all included in checkpoint 3 "));
    EXPECT_THAT(results->transparency_verdict(),
                HasSubstr(absl::StrCat(" as leaves 0..2: tournament \"t\", "
                                       "run \"",
                                       run_id, "\", game rock_paper_pyramid")));
  }
  const auto verify = [&](std::string& out) {
    testing_util::Process check(
        {Bin("replay"), "verify-tournament", dir_.File("out")},
        dir_.File("check.out"), dir_.File("check.err"));
    const int status = check.Wait(absl::Seconds(60));
    out = check.out();
    return status;
  };
  // A copy cut short of the counted log: a note.
  const auto cut = [](const std::string& from, const std::string& to) {
    const std::string bytes = ReadFileToString(from).value_or("");
    std::ofstream(to, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  };
  cut(dir_.File("out/" + kept.log_file()), dir_.File("out/logs/extra.pyrlog"));
  std::string out;
  EXPECT_EQ(verify(out), 0) << out;
  EXPECT_THAT(out, HasSubstr(absl::StrCat(
                       ": note: logs/extra.pyrlog: unsealed prefix of match 0 "
                       "(label \"",
                       label, "\"), match id ", kept.match_id(),
                       ", not counted: a copy cut short of ", kept.log_file(),
                       ", the match's log, of the same match id\n")));
  // The replay's match 0 cut short: a problem.
  cut((again / other.log_file()).string(), dir_.File("out/logs/extra.pyrlog"));
  EXPECT_EQ(verify(out), 1) << out;
  EXPECT_THAT(
      out, HasSubstr(absl::StrCat(
               ": logs/extra.pyrlog: unsealed prefix of match 0 (label \"",
               label, "\"), match id ", other.match_id(),
               ", another match than the log of that label that counts (",
               kept.log_file(), ", match id ", kept.match_id(),
               "): the referee gave the label to two matches, so match 0 was "
               "played again")));
  EXPECT_THAT(out, HasSubstr(": 1 problem"));
}

// A file that no one, root included, may remove while this lives: made
// immutable (chattr +i), or, for a process without root's override of
// file permissions, in a directory made read-only. ok() false when
// neither can be done here (a file system without the attribute, no
// CAP_LINUX_IMMUTABLE).
class Unremovable {
 public:
  explicit Unremovable(const fs::path& file) : file_(file) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "left by an earlier run";
    if (SetImmutable(true)) {
      how_ = How::kImmutable;
    } else if (geteuid() != 0 && chmod(file.parent_path().c_str(), 0500) == 0) {
      how_ = How::kReadOnlyDirectory;
    }
  }
  ~Unremovable() {
    if (how_ == How::kImmutable) SetImmutable(false);
    if (how_ == How::kReadOnlyDirectory) {
      chmod(file_.parent_path().c_str(), 0700);
    }
  }
  Unremovable(const Unremovable&) = delete;
  Unremovable& operator=(const Unremovable&) = delete;

  bool ok() const { return how_ != How::kNot; }

 private:
  enum class How { kNot, kImmutable, kReadOnlyDirectory };

  bool SetImmutable(bool immutable) const {
    const int fd = open(file_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    int flags = 0;
    bool done = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
    if (done) {
      flags = immutable ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
      done = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
    }
    close(fd);
    return done;
  }

  const fs::path file_;
  How how_ = How::kNot;
};

// A proofs.new the run cannot empty (here a file an earlier run left in
// it that cannot be removed) stops the run, saying so, with proofs/ as it
// was: the failed removal was hidden, the proofs were written beside the
// file left, and it was published in proofs/ with them.
TEST_F(TournamentTest, ARunStopsWhenItCannotEmptyProofsNew) {
  const v1::Tournament t = Make("rock_paper_pyramid", 3, 3);
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_TRUE(first.ok()) << first.status() << progress_.str();
  // A stray entry: the proofs are made anew in proofs.new, not kept.
  std::ofstream(dir_.File("out/proofs/stray.tlog-proof")) << "stray";
  const std::string published = Listing(dir_.File("out/proofs"));
  {
    Unremovable left(dir_.File("out/proofs.new/left/left.tlog-proof"));
    if (!left.ok()) {
      GTEST_SKIP() << "cannot make a file that cannot be removed here";
    }
    absl::StatusOr<v1::TournamentResults> again = Run(t);
    ASSERT_FALSE(again.ok()) << progress_.str();
    EXPECT_EQ(again.status().code(), absl::StatusCode::kInternal)
        << again.status();
    EXPECT_THAT(
        again.status().message(),
        HasSubstr("cannot remove " + dir_.File("out/proofs.new") + ": "));
    EXPECT_FALSE(fs::exists(dir_.File("out/proofs/left")));
    EXPECT_EQ(Listing(dir_.File("out/proofs")), published);
  }
  // Once it can be removed, the next run makes proofs/ whole.
  absl::StatusOr<v1::TournamentResults> then = Run(t);
  ASSERT_TRUE(then.ok()) << then.status() << progress_.str();
  EXPECT_FALSE(fs::exists(dir_.File("out/proofs/left")));
  EXPECT_FALSE(fs::exists(dir_.File("out/proofs/stray.tlog-proof")));
  EXPECT_FALSE(fs::exists(dir_.File("out/proofs.new")));
  EXPECT_EQ(then->transparency_problems(), 0u) << then->transparency_verdict();
}

// The progress a run writes, which a test may read while the run goes on:
// `said` is set once a line holding `watched` has been written. The
// runner writes one line at a time under its own lock, so only the flag
// is shared with the thread that polls it.
class WatchedProgress : public std::stringbuf {
 public:
  explicit WatchedProgress(std::string watched)
      : watched_(std::move(watched)) {}
  std::atomic<bool> said{false};

 protected:
  int sync() override {
    if (str().find(watched_) != std::string::npos) said = true;
    return 0;
  }

 private:
  const std::string watched_;
};

// The first interruption starts no more matches and lets those in flight
// finish with their bots: each is journaled genuine, nobody forfeiting,
// and none is cut short (nothing for a resume to set aside in
// superseded/). The run ends as an interrupted one does, and the resume
// plays only the matches never started.
// A first interruption while the last matches are in flight lets them
// finish: nothing is left to play, and the tournament is complete, with its
// evidence, as if it had not been interrupted.
TEST_F(TournamentTest, AnInterruptionDuringTheLastMatchesLeavesItComplete) {
  v1::Tournament t = WithALateBot();
  t.set_concurrency(6);
  absl::StatusOr<v1::TournamentResults> results =
      Run(t, [&] { return Logs().size() >= 6 ? 1 : 0; });
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_THAT(progress_.str(),
              HasSubstr("interrupted: finishing the 6 matches in flight"));
  EXPECT_EQ(results->verified(), 6u);
  ExpectAllGenuine(*results);
  EXPECT_EQ(results->transparency_problems(), 0u)
      << results->transparency_verdict();
  EXPECT_TRUE(fs::exists(dir_.File("out/checkpoint")));
}

TEST_F(TournamentTest, AFirstInterruptionFinishesTheMatchesInFlight) {
  const v1::Tournament t = WithALateBot();
  // Once the first two matches are created, while bot-3 starts.
  absl::StatusOr<v1::TournamentResults> first =
      Run(t, [&] { return Logs().size() >= 2 ? 1 : 0; });
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), absl::StatusCode::kCancelled)
      << first.status();
  EXPECT_THAT(first.status().message(),
              HasSubstr("interrupted after 2 of 6 matches; run the same "
                        "command again to resume"));
  EXPECT_THAT(progress_.str(),
              HasSubstr("interrupted: finishing the 2 matches in flight, "
                        "starting no more (interrupt again to stop at "
                        "once)\n"));
  const std::vector<v1::TournamentMatchResult> before = Journaled();
  ASSERT_EQ(before.size(), 2u) << progress_.str();
  std::set<std::string> journaled;
  for (const v1::TournamentMatchResult& m : before) {
    EXPECT_EQ(m.verdict(), "genuine") << m.index();
    EXPECT_EQ(m.outcome().termination(), v1::TERMINATION_NORMAL) << m.index();
    for (const v1::SeatOutcome& seat : m.outcome().seats()) {
      EXPECT_FALSE(seat.forfeited()) << m.index();
    }
    journaled.insert(m.log_file());
  }
  EXPECT_EQ(Logs(), journaled) << "a match left unjournaled, or started";

  progress_.str("");
  absl::StatusOr<v1::TournamentResults> second = Run(t);
  ASSERT_TRUE(second.ok()) << second.status() << progress_.str();
  EXPECT_THAT(progress_.str(), HasSubstr("resuming: 2 of 6 matches already "
                                         "played and verified; playing the "
                                         "rest"));
  EXPECT_EQ(second->verified(), 6u);
  ExpectAllGenuine(*second);
  EXPECT_FALSE(fs::exists(dir_.File("out/superseded")));
  std::map<uint32_t, std::string> ids;
  for (const v1::TournamentMatchResult& m : Journaled()) {
    EXPECT_TRUE(ids.emplace(m.index(), m.match_id()).second)
        << "match " << m.index() << " played twice";
  }
  EXPECT_EQ(ids.size(), 6u);
  for (const v1::TournamentMatchResult& m : before) {
    EXPECT_EQ(ids[m.index()], m.match_id());
  }
}

// A second interruption, while the first one's matches in flight are
// finishing, stops at once, as one did before: those matches are
// abandoned (cut short, never journaled), and the resume sets their logs
// aside in superseded/ and plays them again.
TEST_F(TournamentTest, ASecondInterruptionStopsAtOnce) {
  const v1::Tournament t = WithALateBot();
  WatchedProgress said("interrupted: finishing the 2 matches in flight");
  std::ostream progress(&said);
  RunOptions options;
  options.progress = &progress;
  // bot-3 is still starting: the two matches cannot have finished.
  options.interruptions = [&] {
    return said.said.load() ? 2 : Logs().size() >= 2 ? 1 : 0;
  };
  absl::StatusOr<v1::TournamentResults> first = RunTournament(t, options);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), absl::StatusCode::kCancelled)
      << first.status() << said.str();
  EXPECT_THAT(first.status().message(), HasSubstr("interrupted after 0 of 6"));
  EXPECT_THAT(said.str(), HasSubstr("interrupted again: stopping at once "
                                    "(matches in flight are played again on "
                                    "resume)\n"));
  EXPECT_TRUE(Journaled().empty()) << said.str();
  const std::set<std::string> cut_short = Logs();
  EXPECT_EQ(cut_short.size(), 2u);

  absl::StatusOr<v1::TournamentResults> second = Run(t);
  ASSERT_TRUE(second.ok()) << second.status() << progress_.str();
  EXPECT_EQ(second->verified(), 6u);
  ExpectAllGenuine(*second);
  for (const std::string& log : cut_short) {
    EXPECT_THAT(progress_.str(),
                HasSubstr(absl::StrCat("resuming: ", log,
                                       " is not a kept match's log")));
    EXPECT_TRUE(fs::exists(
        dir_.File("out/superseded/" + fs::path(log).filename().string())));
  }
  std::set<uint32_t> indices;
  for (const v1::TournamentMatchResult& m : Journaled()) {
    EXPECT_TRUE(indices.insert(m.index()).second) << m.index();
  }
  EXPECT_EQ(indices.size(), 6u);
}

// A run killed after a match's log was sealed but before it was journaled
// (simulated: the journal loses its last line), with a stray log left
// beside: the resume adopts the sealed log as that match, plays nothing
// twice, moves the stray log to superseded/, and the directory checks out.
TEST_F(TournamentTest, ASealedButUnjournaledMatchIsAdoptedOnResume) {
  const v1::Tournament t = Make("rock_paper_pyramid", 3, 3);
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string journal = dir_.File("out/journal.jsonl");
  std::vector<std::string> lines =
      absl::StrSplit(*ReadFileToString(journal), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u);
  v1::TournamentMatchResult lost;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(lines.back(), &lost).ok());
  lines.pop_back();
  std::ofstream(journal, std::ios::trunc) << absl::StrJoin(lines, "\n") << "\n";
  std::ofstream(dir_.File("out/logs/stray.pyrlog")) << "not a log";

  absl::StatusOr<v1::TournamentResults> second = Run(t);
  ASSERT_TRUE(second.ok()) << second.status() << progress_.str();
  EXPECT_THAT(progress_.str(), HasSubstr("kept, not played again"));
  EXPECT_THAT(progress_.str(), HasSubstr("moved to superseded/"));
  EXPECT_TRUE(fs::exists(dir_.File("out/superseded/stray.pyrlog")));
  ExpectAllGenuine(*second);
  for (const auto& m : second->matches()) {
    if (m.index() == lost.index()) {
      EXPECT_EQ(m.match_id(), lost.match_id());
    }
  }
  EXPECT_EQ(second->transparency_problems(), 0u)
      << second->transparency_verdict();
  EXPECT_EQ(Journaled().size(), 3u);
}

// A Swiss round's pairing is recorded (OUT/pairings.jsonl) before any of
// its matches is created, so a resume knows the seats of every label an
// earlier run used: the sealed logs of a run killed between their seal and
// their journal lines (here the last 5 lines cut from the journal, over
// two rounds) are adopted, not set aside and played again under the same
// labels. They were played again when Swiss rounds were only re-paired.
TEST_F(TournamentTest, ASwissMatchSealedButUnjournaledIsAdoptedOnResume) {
  // 5 bots: 4 matches a round and a bye.
  const v1::Tournament t =
      Make("pyramid_scheme", 2, 5, "format: SWISS rounds: 3");
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_TRUE(first.ok()) << first.status() << progress_.str();
  ASSERT_EQ(first->verified(), 12u);
  const std::string pairings =
      *ReadFileToString(dir_.File("out/pairings.jsonl"));
  std::map<uint32_t, std::string> match_ids;
  for (const auto& m : first->matches()) match_ids[m.index()] = m.match_id();
  std::string kept;
  for (const v1::TournamentMatchResult& entry : Journaled()) {
    if (entry.index() >= 7) continue;
    std::string line;
    ASSERT_TRUE(google::protobuf::util::MessageToJsonString(entry, &line).ok());
    absl::StrAppend(&kept, line, "\n");
  }
  std::ofstream(dir_.File("out/journal.jsonl"), std::ios::trunc) << kept;
  ASSERT_EQ(Journaled().size(), 7u);

  progress_.str("");
  absl::StatusOr<v1::TournamentResults> second = Run(t);
  ASSERT_TRUE(second.ok()) << second.status() << progress_.str();
  for (uint32_t index = 7; index < 12; ++index) {
    EXPECT_THAT(progress_.str(),
                HasSubstr(absl::StrCat("match ", index, " (logs/")));
  }
  EXPECT_THAT(progress_.str(), Not(HasSubstr("moved to superseded/")));
  EXPECT_FALSE(fs::exists(dir_.File("out/superseded")));
  ASSERT_EQ(second->verified(), 12u);
  ExpectAllGenuine(*second);
  for (const auto& m : second->matches()) {
    EXPECT_EQ(m.match_id(), match_ids[m.index()]) << m.index();
  }
  // Each label once in the transparency log: no sealed log left over.
  EXPECT_EQ(second->transparency_problems(), 0u)
      << second->transparency_verdict();
  EXPECT_THAT(second->transparency_verdict(),
              HasSubstr("12 matches, all included in checkpoint 12 "));
  EXPECT_EQ(Journaled().size(), 12u);
  EXPECT_EQ(*ReadFileToString(dir_.File("out/pairings.jsonl")), pairings);
}

// A log set aside on a resume never replaces one an earlier resume set
// aside under the same name (it did: the earlier one was lost): it goes
// to the first free name of F.pyrlog, F.1.pyrlog, ..., said in the line.
TEST_F(TournamentTest, ASupersededLogNeverReplacesOneSetAsideBefore) {
  const v1::Tournament t = Make("rock_paper_pyramid", 3, 3);
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_TRUE(first.ok()) << first.status();
  for (const std::string bytes : {"the first stray", "the second stray"}) {
    std::ofstream(dir_.File("out/logs/stray.pyrlog")) << bytes;
    absl::StatusOr<v1::TournamentResults> again = Run(t);
    ASSERT_TRUE(again.ok()) << again.status() << progress_.str();
  }
  EXPECT_THAT(progress_.str(),
              HasSubstr("resuming: logs/stray.pyrlog is not a kept match's "
                        "log (cut short, or superseded); moved to "
                        "superseded/stray.pyrlog\n"));
  EXPECT_THAT(progress_.str(),
              HasSubstr("resuming: logs/stray.pyrlog is not a kept match's "
                        "log (cut short, or superseded); moved to "
                        "superseded/stray.1.pyrlog\n"));
  EXPECT_EQ(ReadFileToString(dir_.File("out/superseded/stray.pyrlog"))
                .value_or("missing"),
            "the first stray");
  EXPECT_EQ(ReadFileToString(dir_.File("out/superseded/stray.1.pyrlog"))
                .value_or("missing"),
            "the second stray");
  EXPECT_FALSE(fs::exists(dir_.File("out/logs/stray.pyrlog")));
}

// Why the log file `path` does not verify against the referee key in
// `key_file`, as the runner says it.
std::string WhyNotGenuine(const fs::path& key_file, const fs::path& path) {
  VerifyOptions options;
  options.pinned_key = *ParsePublicKey(key_file.string());
  const Verdict verdict = VerifyLog(*ReadFileToString(path.string()), options);
  EXPECT_NE(verdict.kind, Verdict::Kind::kGenuine) << path;
  return absl::StrCat(VerdictKindName(verdict.kind), " at record ",
                      verdict.bad_record, ": ", verdict.reason);
}

// Flips one byte in the middle of the file `path`.
void FlipAByte(const fs::path& path) {
  std::string bytes = *ReadFileToString(path.string());
  bytes[bytes.size() / 2] ^= 1;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A log the resume cannot move to superseded/ (here superseded is a
// regular file, so neither the directory nor the move can be made) stops
// the resume with an error that says so: it used to say "moved to
// superseded/" with the log left in logs/, where a match played again
// may write its log. Both moves: a stray log, and (--replay_lost_logs) a
// damaged one.
TEST_F(TournamentTest, AResumeStopsWhenALogCannotBeMovedToSuperseded) {
  const v1::Tournament t = Make("rock_paper_pyramid", 3, 3);
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_TRUE(first.ok()) << first.status();
  std::ofstream(dir_.File("out/superseded")) << "in the way";

  std::ofstream(dir_.File("out/logs/stray.pyrlog")) << "not a log";
  absl::StatusOr<v1::TournamentResults> stray = Run(t);
  ASSERT_FALSE(stray.ok()) << progress_.str();
  EXPECT_THAT(
      stray.status().message(),
      HasSubstr("resuming: cannot move " + dir_.File("out/logs/stray.pyrlog") +
                " to " + dir_.File("out/superseded") + "/: "));
  EXPECT_THAT(progress_.str(), Not(HasSubstr("moved to superseded/")));
  EXPECT_TRUE(fs::exists(dir_.File("out/logs/stray.pyrlog")));
  fs::remove(dir_.File("out/logs/stray.pyrlog"));

  const v1::TournamentMatchResult damaged = Journaled().back();
  FlipAByte(dir_.File("out/" + damaged.log_file()));
  RunOptions options;
  options.progress = &progress_;
  options.replay_lost_logs = true;
  absl::StatusOr<v1::TournamentResults> lost = RunTournament(t, options);
  ASSERT_FALSE(lost.ok()) << progress_.str();
  EXPECT_THAT(lost.status().message(),
              HasSubstr("resuming: cannot move " +
                        dir_.File("out/" + damaged.log_file()) + " to "));
  EXPECT_THAT(progress_.str(), Not(HasSubstr("moved to superseded/")));
  EXPECT_TRUE(fs::exists(dir_.File("out/" + damaged.log_file())));
}

// Every file the runner publishes is replaced whole, by a rename (a reader
// sees the old file or the new one, never one cut short by a killed run or
// a full disk): results.json, report.html and schedule.json were truncated
// and written in place. A link to each, made before a run again, keeps the
// old bytes; a proof that no longer stands is replaced so too.
TEST_F(TournamentTest, PublishedFilesAreReplacedByARename) {
  const v1::Tournament t = Make("rock_paper_pyramid", 3, 3);
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_TRUE(first.ok()) << first.status() << progress_.str();
  const std::string proof = absl::StrCat(
      "proofs/", fs::path(first->matches(0).log_file()).stem().string(),
      ".tlog-proof");
  const std::string proof_bytes = *ReadFileToString(dir_.File("out/" + proof));
  // Replaced, not changed in place: the link below must not see the fix.
  ASSERT_TRUE(fs::remove(dir_.File("out/" + proof)));
  std::ofstream(dir_.File("out/" + proof)) << "damaged";
  std::map<std::string, std::string> before;
  std::map<std::string, ino_t> inodes;
  for (const std::string& file :
       {std::string("results.json"), std::string("report.html"),
        std::string("schedule.json"), proof}) {
    const std::string path = dir_.File("out/" + file);
    before[file] = *ReadFileToString(path);
    const std::string held =
        dir_.File("held." + fs::path(file).filename().string());
    ASSERT_EQ(link(path.c_str(), held.c_str()), 0) << std::strerror(errno);
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    inodes[file] = st.st_ino;
  }

  absl::StatusOr<v1::TournamentResults> again = Run(t);
  ASSERT_TRUE(again.ok()) << again.status() << progress_.str();
  for (const auto& [file, bytes] : before) {
    const std::string path = dir_.File("out/" + file);
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_NE(st.st_ino, inodes[file]) << file << " written in place";
    EXPECT_EQ(*ReadFileToString(
                  dir_.File("held." + fs::path(file).filename().string())),
              bytes)
        << file;
  }
  EXPECT_EQ(*ReadFileToString(dir_.File("out/" + proof)), proof_bytes);
  for (const fs::directory_entry& entry :
       fs::recursive_directory_iterator(dir_.File("out"))) {
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
  }
}

// A finished match whose kept log is lost (deleted, or changed so that it
// no longer verifies) is never played again silently on a resume: its label
// would then stand twice in the referee's transparency log, as a result
// replayed until it suited someone would. The resume is refused (status 1)
// naming the match, its log and "missing" or the verifier's reason, and
// saying what to do; nothing in the directory changes. With
// --replay_lost_logs such matches are played again, each said in a line
// naming its label, and a damaged log goes to superseded/; the directory
// then holds a log for every match, but the embedded referee's checkpoint
// holds the 2 lost sealed logs too, which `replay verify-tournament` (and
// the runner, exit status 1) names.
TEST_F(TournamentTest, AResumeNeverReplaysAMatchWhoseLogIsLostSilently) {
  const std::vector<std::string> argv =
      TournamentCommand(Make("rock_paper_pyramid", 3, 3, "rounds: 2"));
  {
    testing_util::Process run(argv, dir_.File("1.out"), dir_.File("1.err"));
    ASSERT_EQ(run.Wait(absl::Seconds(120)), 0) << run.err();
  }
  const std::vector<v1::TournamentMatchResult> first = Journaled();
  ASSERT_EQ(first.size(), 6u);
  const fs::path out = dir_.File("out");
  const v1::TournamentMatchResult& deleted = first[1];
  const v1::TournamentMatchResult& damaged = first[4];
  auto named = [](const v1::TournamentMatchResult& m) {
    return absl::StrCat("match ", m.index(), " (", m.log_file(), ", match id ",
                        m.match_id(), "): ");
  };

  // (a) A log deleted.
  const std::string kept_bytes =
      *ReadFileToString((out / deleted.log_file()).string());
  fs::remove(out / deleted.log_file());
  std::map<std::string, std::string> before = Tree(out);
  {
    testing_util::Process run(argv, dir_.File("a.out"), dir_.File("a.err"));
    EXPECT_EQ(run.Wait(absl::Seconds(60)), 1) << run.err();
    EXPECT_THAT(run.err(), HasSubstr(named(deleted) + "missing."));
    EXPECT_THAT(run.err(), HasSubstr("Nothing in " + out.string() +
                                     " was changed. Restore the log (from a "
                                     "backup, or from a running referee: "
                                     "refctl get-log MATCH_ID"));
    EXPECT_THAT(run.err(), HasSubstr("run the same command again, or run it "
                                     "with --replay_lost_logs"));
    EXPECT_TRUE(Tree(out) == before) << "the directory changed";
  }
  std::ofstream(out / deleted.log_file(), std::ios::binary) << kept_bytes;

  // (b) A byte flipped in a log.
  FlipAByte(out / damaged.log_file());
  const std::string reason =
      WhyNotGenuine(out / "referee.key.pub", out / damaged.log_file());
  const std::string damaged_bytes =
      *ReadFileToString((out / damaged.log_file()).string());
  before = Tree(out);
  {
    testing_util::Process run(argv, dir_.File("b.out"), dir_.File("b.err"));
    EXPECT_EQ(run.Wait(absl::Seconds(60)), 1) << run.err();
    EXPECT_THAT(run.err(), HasSubstr(named(damaged) + reason + "."));
    EXPECT_THAT(run.err(), Not(HasSubstr(named(deleted))));
    EXPECT_TRUE(Tree(out) == before) << "the directory changed";
  }

  // (c) Both lost, played again with --replay_lost_logs.
  fs::remove(out / deleted.log_file());
  std::vector<std::string> replay = argv;
  replay.push_back("--replay_lost_logs");
  testing_util::Process run(replay, dir_.File("c.out"), dir_.File("c.err"));
  ASSERT_EQ(run.Wait(absl::Seconds(120)), 1) << run.err();
  const std::string run_id = std::string(
      absl::StripAsciiWhitespace(*ReadFileToString((out / "run_id").string())));
  for (const v1::TournamentMatchResult* m : {&deleted, &damaged}) {
    EXPECT_THAT(run.err(),
                HasSubstr(absl::StrCat(
                    "; playing it again (--replay_lost_logs): its label t/",
                    run_id, "/", m->index(),
                    " will stand twice in the referee's transparency log\n")));
  }
  EXPECT_THAT(run.err(),
              HasSubstr(absl::StrCat("resuming: match ", deleted.index(),
                                     "'s log ", deleted.log_file(),
                                     " was missing; playing it again")));
  EXPECT_THAT(run.err(), HasSubstr(absl::StrCat(
                             "resuming: match ", damaged.index(), "'s log ",
                             damaged.log_file(), " did not verify: ", reason,
                             "; playing it again")));
  EXPECT_THAT(run.err(),
              HasSubstr(absl::StrCat(
                  "resuming: ", damaged.log_file(), " failed verification (",
                  reason, "); moved to superseded/",
                  fs::path(damaged.log_file()).filename().string(), "\n")));
  EXPECT_THAT(run.err(), Not(HasSubstr("cut short")));
  EXPECT_EQ(*ReadFileToString(
                (out / "superseded" / fs::path(damaged.log_file()).filename())
                    .string()),
            damaged_bytes);
  EXPECT_THAT(run.out(), HasSubstr("6 of 6 match logs verified"));
  // Played again: a new match for each, journaled after the old ones.
  const std::vector<v1::TournamentMatchResult> after = Journaled();
  ASSERT_EQ(after.size(), 8u);
  std::set<uint32_t> replayed = {after[6].index(), after[7].index()};
  EXPECT_EQ(replayed, (std::set<uint32_t>{deleted.index(), damaged.index()}));
  for (int i : {6, 7}) {
    EXPECT_EQ(after[i].verdict(), "genuine");
    EXPECT_NE(after[i].match_id(), deleted.match_id());
    EXPECT_NE(after[i].match_id(), damaged.match_id());
  }
  // The checkpoint holds the 2 lost logs besides the directory's 6, which
  // the runner and `replay verify-tournament` name.
  const std::string problem =
      "the checkpoint holds 8 logs and the directory 6: 2 sealed logs of this "
      "tournament are not in the directory (a match played again after its "
      "log was lost, or a log removed)";
  EXPECT_THAT(run.out(), HasSubstr("1 problem\n" + problem));
  testing_util::Process check(
      {Bin("replay"), "verify-tournament", out.string()},
      dir_.File("check.out"), dir_.File("check.err"));
  EXPECT_EQ(check.Wait(absl::Seconds(60)), 1) << check.out() << check.err();
  EXPECT_THAT(check.out(), HasSubstr(": " + problem));
  EXPECT_THAT(check.out(), HasSubstr(": 1 problem"));
}

// Which referee played is read from the directory's unsigned key-file
// names: a host who drops the last match (its log, proof and schedule
// entry; results.json, not yet written by an interrupted run, and
// tournament.txt, now a problem when missing) and renames the embedded
// referee's referee.key.pub to referee.pub turned the tree-size check into
// a note, exit 0. An auditor's --referee=embedded
// checks the size whatever the names (exit 1, naming the sealed log the
// directory lacks, and referee.pub); --referee=running on a genuine
// embedded directory is exit 0 with a note that its files say embedded;
// another value is a usage error.
TEST_F(TournamentTest, TheAuditorSaysWhichRefereePlayedNotTheKeyFileNames) {
  absl::StatusOr<v1::TournamentResults> results =
      Run(Make("rock_paper_pyramid", 3, 3, "rounds: 1"));
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  ASSERT_EQ(results->matches_size(), 3);
  const fs::path out = dir_.File("out");
  auto verify = [&](const std::string& name,
                    const std::vector<std::string>& flags) {
    std::vector<std::string> argv = {Bin("replay"), "verify-tournament"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back(out.string());
    testing_util::Process check(argv, dir_.File(name + ".out"),
                                dir_.File(name + ".err"));
    const int status = check.Wait(absl::Seconds(60));
    return std::make_pair(status, check.out() + check.err());
  };
  {
    const auto [status, text] = verify("genuine", {"--referee=running"});
    EXPECT_EQ(status, 0) << text;
    EXPECT_THAT(text, HasSubstr(": note: the directory holds referee.key.pub "
                                "and no referee.pub, as the runner writes "
                                "them with the embedded referee, but "
                                "--referee=running says a running referee "
                                "played it"));
    EXPECT_THAT(text, HasSubstr("--referee=running: a running referee's tree "
                                "holds other matches too, so its size is not "
                                "checked"));
  }
  {
    const auto [status, text] = verify("embedded", {"--referee", "embedded"});
    EXPECT_EQ(status, 0) << text;
    EXPECT_THAT(text, Not(HasSubstr("note: the checkpoint holds"))) << text;
  }
  {
    const auto [status, text] = verify("bad", {"--referee=both"});
    EXPECT_EQ(status, 2) << text;
    EXPECT_THAT(text,
                HasSubstr("--referee: embedded or running, not \"both\""));
  }

  // The last match dropped, the key file renamed.
  const v1::TournamentMatchResult& last = results->matches(2);
  ASSERT_TRUE(fs::remove(out / last.log_file()));
  ASSERT_TRUE(fs::remove(
      out / "proofs" /
      absl::StrCat(fs::path(last.log_file()).stem().string(), ".tlog-proof")));
  ASSERT_TRUE(fs::remove(out / "results.json"));
  v1::TournamentSchedule schedule;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(
          *ReadFileToString((out / "schedule.json").string()), &schedule)
          .ok());
  ASSERT_EQ(schedule.matches_size(), 3);
  schedule.mutable_matches()->RemoveLast();
  std::string json;
  ASSERT_TRUE(
      google::protobuf::util::MessageToJsonString(schedule, &json).ok());
  std::ofstream(out / "schedule.json", std::ios::trunc) << json;
  fs::rename(out / "referee.key.pub", out / "referee.pub");
  {
    // tournament.txt schedules the match cut (it passed without
    // results.json: an auditor's finding).
    const auto [status, text] = verify("renamed-with-txt", {});
    EXPECT_EQ(status, 1) << text;
    EXPECT_THAT(text, HasSubstr("is not the tournament that made "
                                "schedule.json: it schedules 3 matches, "
                                "schedule.json lists 2"));
  }
  // Removed as well (it passed so, exit 0, with a note that the schedule
  // was its own word): the missing tournament.txt is the one problem, and
  // the key files' names say which referee played.
  ASSERT_TRUE(fs::remove(out / "tournament.txt"));
  {
    const auto [status, text] = verify("renamed", {});
    EXPECT_EQ(status, 1) << text;
    EXPECT_THAT(text, HasSubstr(": note: the checkpoint holds 3 logs; logs/ "
                                "holds 2 sealed logs, 2 of them proved "
                                "included in it: the directory holds "
                                "referee.pub, a running referee's"));
    EXPECT_THAT(text, HasSubstr(": the directory holds no tournament.txt, "
                                "which the runner writes before it plays"));
    EXPECT_THAT(text, HasSubstr(": 1 problem"));
  }
  {
    const auto [status, text] = verify("flagged", {"--referee=embedded"});
    EXPECT_EQ(status, 1) << text;
    EXPECT_THAT(text,
                HasSubstr(": the checkpoint holds 3 logs and the directory 2: "
                          "1 sealed log of this tournament is not in the "
                          "directory (a match played again after its log was "
                          "lost, or a log removed); the embedded referee's "
                          "tree (--referee=embedded) holds this tournament's "
                          "logs and nothing else"));
    EXPECT_THAT(text, HasSubstr(": the directory holds referee.pub, a running "
                                "referee's, but --referee=embedded says the "
                                "embedded referee played it"));
    EXPECT_THAT(text, HasSubstr(": 3 problems"));
  }
  {
    const auto [status, text] =
        verify("flagged_json", {"--referee=embedded", "--json"});
    EXPECT_EQ(status, 1) << text;
    EXPECT_THAT(text, HasSubstr("\"referee\":\"embedded\""));
    EXPECT_THAT(text, HasSubstr("\"referee_from\":\"flag\""));
  }
}

TEST_F(TournamentTest, KilledTournamentProgramResumes) {
  const std::vector<std::string> argv = TournamentCommand(
      Make("rock_paper_pyramid", 3, 4, "rounds: 3 concurrency: 2"));
  ASSERT_NO_FATAL_FAILURE(KillOnceJournaled(argv, 4));
  const std::vector<v1::TournamentMatchResult> before = Journaled();
  ASSERT_GE(before.size(), 4u);
  ASSERT_LT(before.size(), 36u);

  testing_util::Process resumed(argv, dir_.File("2.out"), dir_.File("2.err"));
  ASSERT_EQ(resumed.Wait(absl::Seconds(120)), 0) << resumed.err();
  EXPECT_THAT(resumed.err(), HasSubstr("resuming: "));
  EXPECT_THAT(resumed.out(), HasSubstr("36 of 36 match logs verified"));
  v1::TournamentResults results;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(
                  *ReadFileToString(dir_.File("out/results.json")), &results)
                  .ok());
  std::map<uint32_t, std::string> ids;
  for (const auto& m : results.matches()) ids[m.index()] = m.match_id();
  ASSERT_EQ(ids.size(), 36u);
  for (const auto& m : before) EXPECT_EQ(ids[m.index()], m.match_id());
  EXPECT_EQ(Journaled().size(), 36u);
}

// SIGKILL at moments spread over a run (from its start, while it reads its
// file and makes its directory, to the middle of play), again and again on
// the same output directory: every run after a kill starts (the directory
// is never left torn), nothing journaled is lost or played again, and the
// last run finishes the tournament.
TEST_F(TournamentTest, KilledAtMomentsSpreadOverTheRunLosesNothing) {
  const std::vector<std::string> argv = TournamentCommand(
      Make("rock_paper_pyramid", 3, 4, "rounds: 10 concurrency: 2"));
  std::map<uint32_t, std::string> journaled;  // index -> match id
  uint64_t state = 0x2545f4914f6cdd1dULL;     // A fixed seed: reproducible.
  for (int kill = 0; kill < 8; ++kill) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const int delay_ms = static_cast<int>(state % 700);
    testing_util::Process run(argv, dir_.File("run.out"), dir_.File("run.err"));
    absl::SleepFor(absl::Milliseconds(delay_ms));
    run.Signal(SIGKILL);
    const int status = run.Wait(absl::Seconds(10));
    // Killed, or already done (a late kill on a short run).
    ASSERT_TRUE(status == 128 + SIGKILL || status == 0)
        << "kill " << kill << " at " << delay_ms << " ms: " << status << " "
        << run.err();
    for (const v1::TournamentMatchResult& m : Journaled()) {
      auto [it, added] = journaled.emplace(m.index(), m.match_id());
      EXPECT_EQ(it->second, m.match_id())
          << "match " << m.index() << " played again after kill " << kill;
    }
  }
  testing_util::Process last(argv, dir_.File("last.out"),
                             dir_.File("last.err"));
  ASSERT_EQ(last.Wait(absl::Seconds(120)), 0) << last.err();
  EXPECT_THAT(last.out(), HasSubstr("120 of 120 match logs verified"));
  std::map<uint32_t, std::string> final_ids;
  for (const v1::TournamentMatchResult& m : Journaled()) {
    final_ids[m.index()] = m.match_id();
  }
  EXPECT_EQ(final_ids.size(), 120u);
  for (const auto& [index, id] : journaled) {
    EXPECT_EQ(final_ids[index], id) << "match " << index;
  }
}

// The processes whose parent is `parent` and which are not zombies.
// /proc/PID/stat, or "" once the process is gone. Read with read(2): a
// process that ends while its file is read makes the read fail with ESRCH,
// which libstdc++'s filebuf throws as an exception.
std::string ProcStat(const fs::path& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string stat(4096, '\0');
  const ssize_t n = read(fd, stat.data(), stat.size());
  close(fd);
  stat.resize(n > 0 ? n : 0);
  return stat;
}

std::vector<pid_t> LiveChildren(pid_t parent) {
  std::vector<pid_t> children;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = ProcStat(entry.path() / "stat");
    // pid (comm) state ppid ...: comm may hold spaces, so parse after ')'.
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z') children.push_back(std::stoi(name));
  }
  return children;
}

// True while `pid` exists and is not a zombie.
bool Alive(pid_t pid) {
  const std::string stat = ProcStat("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() &&
         stat[close + 2] != 'Z';
}

// A `referee` process with its data in DIR/referee, listening on a free
// loopback port; empty when it did not start within 30 s.
std::unique_ptr<testing_util::Process> StartReferee(
    const std::string& dir, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), "--data_dir=" + dir + "/referee");
  std::unique_ptr<testing_util::Process> referee =
      testing_util::StartReferee(dir + "/port", extra, dir + "/referee.out",
                                 dir + "/referee.err", absl::Seconds(30));
  EXPECT_TRUE(fs::exists(dir + "/port")) << referee->err();
  if (!fs::exists(dir + "/port")) return nullptr;
  return referee;
}

// The address, public key file and admin token file of that referee.
struct RemoteReferee {
  explicit RemoteReferee(const std::string& dir)
      : key(dir + "/referee/referee.key.pub"),
        admin_token(dir + "/referee/admin.token"),
        address(testing_util::LoopbackAddress(dir + "/port")) {}
  // The tournament fields that have a tournament play against it.
  std::string Fields() const {
    return absl::StrCat("referee: \"", address, "\" referee_key: \"", key,
                        "\" admin_token_file: \"", admin_token, "\"");
  }
  std::string key, admin_token, address;
};

// A tournament of two rounds of three reference bots of Rock, Paper,
// Pyramid! against a referee of its own.
class TwoRoundsOnARefereeTest : public TournamentTest {
 protected:
  // Starts the referee with `flags` and plays the tournament on it: all 6
  // matches verified and genuine. `results` are its results, for what else
  // a test checks; the referee serves until the test ends.
  void PlayOnAReferee(const std::vector<std::string>& flags,
                      v1::TournamentResults& results) {
    referee_ = StartReferee(dir_.path(), flags);
    ASSERT_NE(referee_, nullptr);
    absl::StatusOr<v1::TournamentResults> played =
        Run(Make("rock_paper_pyramid", 3, 3,
                 "rounds: 2 " + RemoteReferee(dir_.path()).Fields()));
    ASSERT_TRUE(played.ok()) << played.status() << progress_.str();
    results = *std::move(played);
    EXPECT_EQ(results.verified(), 6u);
    ExpectAllGenuine(results);
  }

  std::unique_ptr<testing_util::Process> referee_;
};

TEST_F(TournamentTest, BotsDieWithARunnerKilledBySigkill) {
  std::unique_ptr<testing_util::Process> referee = StartReferee(dir_.path());
  ASSERT_NE(referee, nullptr);
  const absl::Time end = absl::Now() + absl::Seconds(30);

  std::vector<std::string> argv = TournamentCommand(
      Make("rock_paper_pyramid", 3, 4, "rounds: 50 concurrency: 2"));
  const RemoteReferee remote(dir_.path());
  argv.insert(argv.end(),
              {"--referee=" + remote.address, "--referee_key=" + remote.key,
               "--admin_token_file=" + remote.admin_token});
  testing_util::Process run(argv, dir_.File("run.out"), dir_.File("run.err"));
  std::vector<pid_t> bots;
  while (bots.size() < 4 && absl::Now() < end && run.running()) {
    absl::SleepFor(absl::Milliseconds(50));
    bots = LiveChildren(run.pid());
  }
  ASSERT_EQ(bots.size(), 4u) << run.err();
  while (Journaled().empty() && absl::Now() < end && run.running()) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_TRUE(run.running()) << run.err();  // Mid-tournament, bots playing.
  run.Signal(SIGKILL);
  EXPECT_EQ(run.Wait(absl::Seconds(10)), 128 + SIGKILL);
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  for (pid_t bot : bots) {
    while (Alive(bot) && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(20));
    }
    EXPECT_FALSE(Alive(bot)) << "bot process " << bot << " outlived its runner";
  }
}

// The check of lost logs before anything changes holds while the last run's
// lock is still held by a child of it that has not reached its exec (the
// runner killed between a bot's vfork and execve): it waits for the lock
// instead of skipping the check.
TEST_F(TournamentTest, TheLostLogCheckWaitsForAnEndedRunsLock) {
  const std::vector<std::string> argv =
      TournamentCommand(Make("rock_paper_pyramid", 3, 3));
  {
    testing_util::Process run(argv, dir_.File("1.out"), dir_.File("1.err"));
    ASSERT_EQ(run.Wait(absl::Seconds(120)), 0) << run.err();
  }
  const std::vector<v1::TournamentMatchResult> first = Journaled();
  ASSERT_EQ(first.size(), 3u);
  const fs::path out = dir_.File("out");
  fs::remove(out / first[1].log_file());
  // A holder that ends at once, its child keeping the lock for 1 s.
  ForkedChild holder([&](int) {
    absl::StatusOr<DirectoryLock> lock = DirectoryLock::Acquire(out.string());
    if (!lock.ok()) _exit(1);
    if (fork() == 0) {
      usleep(1'000'000);
      _exit(0);
    }
    _exit(0);
  });
  ASSERT_TRUE(holder.ok());
  const ChildEnd end = holder.Wait();
  ASSERT_EQ(end.exit_code, 0) << end.ToString();
  testing_util::Process run(argv, dir_.File("2.out"), dir_.File("2.err"));
  EXPECT_EQ(run.Wait(absl::Seconds(60)), 1) << run.err();
  EXPECT_THAT(run.err(), HasSubstr("Nothing in " + out.string() +
                                   " was changed. Restore the log"));
}

// A journaled log replaced by another genuine log of the same referee
// (two files swapped) is not the match journaled: the resume is refused as
// for a lost log, naming both matches, and nothing changes; swapped back,
// the same command finishes.
TEST_F(TournamentTest, AResumeRefusesAJournaledLogThatIsAnotherMatchs) {
  const std::vector<std::string> argv =
      TournamentCommand(Make("rock_paper_pyramid", 3, 3));
  {
    testing_util::Process run(argv, dir_.File("1.out"), dir_.File("1.err"));
    ASSERT_EQ(run.Wait(absl::Seconds(120)), 0) << run.err();
  }
  const std::vector<v1::TournamentMatchResult> first = Journaled();
  ASSERT_EQ(first.size(), 3u);
  const fs::path out = dir_.File("out");
  const fs::path a = out / first[0].log_file();
  const fs::path b = out / first[2].log_file();
  const fs::path aside = dir_.File("aside.pyrlog");
  fs::rename(a, aside);
  fs::rename(b, a);
  fs::rename(aside, b);
  const std::map<std::string, std::string> before = Tree(out);
  {
    testing_util::Process run(argv, dir_.File("2.out"), dir_.File("2.err"));
    EXPECT_EQ(run.Wait(absl::Seconds(60)), 1) << run.err();
    for (const auto& [m, other] :
         {std::pair{first[0], first[2]}, std::pair{first[2], first[0]}}) {
      EXPECT_THAT(run.err(),
                  HasSubstr(absl::StrCat(
                      "match ", m.index(), " (", m.log_file(), ", match id ",
                      m.match_id(), "): not its log: it is the log of match ",
                      other.match_id())));
    }
    EXPECT_THAT(run.err(), Not(HasSubstr(first[1].log_file())));
    EXPECT_TRUE(Tree(out) == before) << "the directory changed";
  }
  fs::rename(a, aside);
  fs::rename(b, a);
  fs::rename(aside, b);
  testing_util::Process run(argv, dir_.File("3.out"), dir_.File("3.err"));
  EXPECT_EQ(run.Wait(absl::Seconds(60)), 0) << run.err();
}

// A bot's key_file names a file, not a key: a key regenerated at that path
// after the tournament finished loses none of its matches' logs, whose
// headers name the old key (checked when each was journaled; a resume
// compares only the match id). It used to refuse every match of that bot
// as lost, with advice (restore from a backup, --replay_lost_logs) that
// was wrong.
TEST_F(TournamentTest, ABotKeyRegeneratedAtTheSamePathLosesNoLog) {
  const std::string key_file = dir_.File("bot-1.key");
  ASSERT_TRUE(WriteKeyFiles(key_file, SigningKey::Generate()).ok());
  v1::Tournament t = Make("rock_paper_pyramid", 3, 3);
  t.mutable_bots(0)->set_key_file(key_file);
  t.mutable_bots(0)->add_command("--key_file={key_file}");
  const std::vector<std::string> argv = TournamentCommand(t);
  {
    testing_util::Process run(argv, dir_.File("1.out"), dir_.File("1.err"));
    ASSERT_EQ(run.Wait(absl::Seconds(120)), 0) << run.err();
  }
  ASSERT_EQ(Journaled().size(), 3u);
  fs::remove(key_file);
  fs::remove(key_file + ".pub");
  ASSERT_TRUE(WriteKeyFiles(key_file, SigningKey::Generate()).ok());
  testing_util::Process run(argv, dir_.File("2.out"), dir_.File("2.err"));
  EXPECT_EQ(run.Wait(absl::Seconds(60)), 0) << run.err();
  EXPECT_THAT(run.err(), Not(HasSubstr("resuming would play again")));
  EXPECT_EQ(Journaled().size(), 3u) << "a match was played again";
}

// With a running referee, a lost log (deleted, or no longer verifying) is
// fetched again from it by its match id: genuine, it is kept and said so,
// and nothing is played again.
TEST_F(TournamentTest, ALostLogIsFetchedAgainFromARunningReferee) {
  std::unique_ptr<testing_util::Process> referee = StartReferee(dir_.path());
  ASSERT_NE(referee, nullptr);
  const RemoteReferee remote(dir_.path());
  const v1::Tournament t = Make("rock_paper_pyramid", 3, 3, remote.Fields());
  ASSERT_TRUE(Run(t).ok()) << progress_.str();
  const std::vector<v1::TournamentMatchResult> first = Journaled();
  ASSERT_EQ(first.size(), 3u);
  const fs::path out = dir_.File("out");
  const std::string deleted =
      *ReadFileToString((out / first[0].log_file()).string());
  const std::string damaged =
      *ReadFileToString((out / first[2].log_file()).string());
  fs::remove(out / first[0].log_file());
  FlipAByte(out / first[2].log_file());
  const std::string reason =
      WhyNotGenuine(remote.key, out / first[2].log_file());
  // The temporary file of a fetch the interruption cut (WriteFileAtomically
  // renames it only once complete): removed, not a stray the directory's
  // check names.
  const fs::path cut =
      out / "logs" /
      "rock_paper_pyramid-00000000000000000000000000000000.pyrlog.tmp";
  std::ofstream(cut) << deleted.substr(0, 100);

  progress_.str("");
  absl::StatusOr<v1::TournamentResults> results = Run(t);
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_THAT(progress_.str(),
              HasSubstr(absl::StrCat("resuming: match ", first[0].index(),
                                     "'s log ", first[0].log_file(),
                                     " was missing; fetched it again from "
                                     "the referee\n")));
  EXPECT_THAT(
      progress_.str(),
      HasSubstr(absl::StrCat("resuming: match ", first[2].index(), "'s log ",
                             first[2].log_file(), " did not verify: ", reason,
                             "; fetched it again from the referee\n")));
  EXPECT_THAT(progress_.str(), HasSubstr("resuming: 3 of 3 matches already "
                                         "played and verified; nothing left"));
  EXPECT_EQ(*ReadFileToString((out / first[0].log_file()).string()), deleted);
  EXPECT_EQ(*ReadFileToString((out / first[2].log_file()).string()), damaged);
  EXPECT_EQ(Journaled().size(), 3u) << "a match was played again";
  EXPECT_EQ(results->verified(), 3u);
  EXPECT_FALSE(fs::exists(cut));
  EXPECT_THAT(progress_.str(), HasSubstr(" (a write the interruption cut) "
                                         "removed"));
  EXPECT_EQ(results->transparency_problems(), 0u)
      << results->transparency_verdict();
}

// The matches in flight when a tournament on a running referee is killed
// go on there without their bots (which die with the runner), forfeit at
// their deadlines and are sealed, entered in the referee's transparency
// log under their labels. The resume does not create them again (each
// match's request_id is the same in every run): it takes each one's
// result, waiting for those still running, and says so in a line per
// match. One whose line in created.jsonl was lost (the kill came between
// the referee's answer and that line) is found among the referee's
// matches. Every label then stands in exactly one sealed log of the
// referee's.
TEST_F(TournamentTest, AResumeTakesTheResultsOfMatchesLeftOnARunningReferee) {
  std::unique_ptr<testing_util::Process> referee = StartReferee(dir_.path());
  ASSERT_NE(referee, nullptr);
  const RemoteReferee remote(dir_.path());
  const v1::Tournament t =
      Make("rock_paper_pyramid", 3, 4,
           "rounds: 6 concurrency: 8 clocks { commit_timeout_ms: 1000 "
           "reveal_timeout_ms: 1000 seed_timeout_ms: 2000 } " +
               remote.Fields());
  KillOnceJournaled(TournamentCommand(t), 8);
  std::set<uint32_t> journaled;
  for (const auto& m : Journaled()) journaled.insert(m.index());
  // The matches created but not journaled; every other one loses its line.
  const std::string created = dir_.File("out/created.jsonl");
  std::vector<std::string> lines;
  if (absl::StatusOr<std::string> text = ReadFileToString(created); text.ok()) {
    lines = absl::StrSplit(*text, '\n', absl::SkipEmpty());
  }
  std::map<uint32_t, std::string> left;  // Index, match id.
  std::vector<std::string> kept;
  for (const std::string& line : lines) {
    v1::TournamentMatchResult entry;
    // (A last line cut short by the kill.)
    if (!google::protobuf::util::JsonStringToMessage(line, &entry).ok()) break;
    if (!journaled.contains(entry.index())) {
      left.emplace(entry.index(), entry.match_id());
      if (left.size() % 2 == 0) continue;
    }
    kept.push_back(line + "\n");
  }
  if (!lines.empty()) std::ofstream(created) << absl::StrJoin(kept, "");

  absl::StatusOr<v1::TournamentResults> results = Run(t);
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_EQ(results->verified(), 72u);
  ExpectAllGenuine(*results);
  EXPECT_EQ(results->transparency_problems(), 0u)
      << results->transparency_verdict();
  // Each match left on the referee counts as it ended there, said in a
  // line (or adopted from its log, when it was fetched before the kill).
  EXPECT_FALSE(left.empty()) << "no match was in flight at the kill";
  std::map<uint32_t, std::string> ids;
  for (const auto& m : results->matches()) ids[m.index()] = m.match_id();
  for (const auto& [index, match_id] : left) {
    EXPECT_EQ(ids[index], match_id) << "match " << index << " played again";
    EXPECT_THAT(progress_.str(),
                HasSubstr(absl::StrCat("resuming: match ", index, " (")));
  }
  EXPECT_THAT(progress_.str(), HasSubstr("was created before the interruption "
                                         "and ended without the runner; its "
                                         "result stands"));
  EXPECT_THAT(progress_.str(), HasSubstr("(forfeited)"));
  // Every label in exactly one sealed log of the referee's, once every
  // match it holds has ended (a match played again would leave the first
  // one running until its deadlines).
  VerifyOptions options;
  options.pinned_key = *ParsePublicKey(remote.key);
  std::map<std::string, int> sealed;
  size_t running = 0;
  const absl::Time end = absl::Now() + absl::Seconds(20);
  do {
    if (running > 0) absl::SleepFor(absl::Milliseconds(100));
    sealed.clear();
    running = 0;
    for (const auto& entry :
         fs::directory_iterator(dir_.File("referee/logs"))) {
      if (entry.path().extension() != ".pyrlog") continue;
      const Verdict verdict =
          VerifyLog(*ReadFileToString(entry.path().string()), options);
      if (verdict.kind == Verdict::Kind::kGenuine) {
        ++sealed[verdict.header.label()];
      } else {
        ++running;
      }
    }
  } while (running > 0 && absl::Now() < end);
  EXPECT_EQ(running, 0u) << "matches still running on the referee";
  EXPECT_EQ(sealed.size(), 72u);
  for (const auto& [label, count] : sealed) {
    EXPECT_EQ(count, 1) << label << " stands in " << count << " sealed logs";
  }
}

// A referee at its --max_live_matches refuses more for now: the runner
// waits for a place instead of failing the match, and that wait is not an
// outage's retry with backoff (which slept up to 5 s between tries, so a
// tournament at 8 times the referee's limit ran 5 times slower): each
// match waiting is created as one of the tournament's matches ends.
TEST_F(TournamentTest, WaitsForAPlaceOnAFullReferee) {
  std::unique_ptr<testing_util::Process> referee =
      StartReferee(dir_.path(), {"--max_live_matches=1"});
  ASSERT_NE(referee, nullptr);
  absl::StatusOr<v1::TournamentResults> results = Run(
      Make("rock_paper_pyramid", 3, 3,
           "rounds: 2 concurrency: 6 " + RemoteReferee(dir_.path()).Fields()));
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_EQ(results->matches_size(), 6);
  ExpectAllGenuine(*results);
  EXPECT_THAT(progress_.str(), Not(HasSubstr("retrying in")));
}

// The tournament's own matches holding every place of a full referee are
// waited for however long they play: only places other clients hold make
// the wait give up after --referee_retry_s. Here the first match stays in
// flight 3 s (its bot-3 starts late) on a referee that takes 1 at a time,
// with a --referee_retry_s of 1 s: the second match used to give up after
// 1 s ("not played: ... is full, and none of this tournament's matches
// has ended or been created for 1s"), and so did every later match
// refused before the first ended.
TEST_F(TournamentTest, OwnMatchesLongerThanTheRetryTimeAreWaitedFor) {
  std::unique_ptr<testing_util::Process> referee =
      StartReferee(dir_.path(), {"--max_live_matches=1"});
  ASSERT_NE(referee, nullptr);
  const RemoteReferee remote(dir_.path());
  v1::Tournament t = WithALateBot();
  t.set_referee(remote.address);
  t.set_referee_key(remote.key);
  t.set_admin_token_file(remote.admin_token);
  RunOptions options;
  options.progress = &progress_;
  options.referee_retry = absl::Seconds(1);
  absl::StatusOr<v1::TournamentResults> results = RunTournament(t, options);
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_EQ(results->matches_size(), 6);
  EXPECT_EQ(results->verified(), 6u) << progress_.str();
  ExpectAllGenuine(*results);
  EXPECT_THAT(progress_.str(), Not(HasSubstr("not played")));
  EXPECT_THAT(progress_.str(), HasSubstr(" is full ("));
}

// A place on a full referee that another client's match holds: the wait
// for it gives up after --referee_retry_s in which none of the
// tournament's matches ended or was created, each match then "not played"
// as after an outage's retries (exit status 1, a resume plays them). It
// used to back off and try again forever at concurrency 1 (0/3 matches),
// and at 2 gave up only in the thread that waited for its own matches:
// now every match waiting gives up then, and a later one refused fails at
// once, at any concurrency. An interruption ends such a wait, said as one
// for a place on a full referee (not one "which does not answer").
TEST_F(TournamentTest, AWaitForAPlaceAnotherClientHoldsGivesUpAsDocumented) {
  std::unique_ptr<testing_util::Process> referee =
      StartReferee(dir_.path(), {"--max_live_matches=1"});
  ASSERT_NE(referee, nullptr);
  const RemoteReferee remote(dir_.path());
  fs::create_directories(dir_.File("tok"));
  testing_util::Process holder(
      {Bin("refctl"), "--referee=" + remote.address,
       "--admin_token_file=" + remote.admin_token, "create-match", "--seats=3",
       "--commit_timeout_ms=600000", "--reveal_timeout_ms=600000",
       "--seed_timeout_ms=600000", "--token_dir=" + dir_.File("tok")},
      dir_.File("holder.out"), dir_.File("holder.err"));
  ASSERT_EQ(holder.Wait(absl::Seconds(30)), 0) << holder.err();
  std::vector<std::string> argv =
      TournamentCommand(Make("rock_paper_pyramid", 3, 3));
  argv.insert(argv.end(),
              {"--referee=" + remote.address, "--referee_key=" + remote.key,
               "--admin_token_file=" + remote.admin_token});
  const std::string gave_up = absl::StrCat(
      "not played: creating a match: the referee at ", remote.address,
      " is full, and none of this tournament's matches has ended or been "
      "created for 3s (--referee_retry_s): the referee's limit of live "
      "matches is reached (--max_live_matches=1, 1 live)");
  for (const int concurrency : {1, 2}) {
    const std::string out = dir_.File(absl::StrCat("out-", concurrency));
    std::vector<std::string> command = argv;
    command.insert(command.end(), {"--referee_retry_s=3",
                                   absl::StrCat("--concurrency=", concurrency),
                                   "--output_dir=" + out});
    const absl::Time start = absl::Now();
    testing_util::Process run(command, out + ".out", out + ".err");
    ASSERT_EQ(run.Wait(absl::Seconds(90)), 1)
        << "concurrency " << concurrency << ": " << run.err();
    EXPECT_GE(absl::Now() - start, absl::Seconds(3));
    absl::StatusOr<std::vector<v1::TournamentMatchResult>> journaled =
        MatchJournal::Read(out + "/journal.jsonl");
    ASSERT_TRUE(journaled.ok()) << journaled.status();
    ASSERT_EQ(journaled->size(), 3u) << run.err();
    for (const v1::TournamentMatchResult& m : *journaled) {
      EXPECT_THAT(m.verdict(), HasSubstr(gave_up))
          << "concurrency " << concurrency;
    }
    EXPECT_THAT(run.err(),
                HasSubstr(absl::StrCat("tournament: the referee at ",
                                       remote.address, " is full (")));
  }

  // The same wait, interrupted.
  std::vector<std::string> command = argv;
  command.insert(command.end(), {"--referee_retry_s=300", "--concurrency=2",
                                 "--output_dir=" + dir_.File("out-i")});
  testing_util::Process run(command, dir_.File("i.out"), dir_.File("i.err"));
  const absl::Time end = absl::Now() + absl::Seconds(60);
  while (run.running() && absl::Now() < end &&
         run.err().find(" is full (") == std::string::npos) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_TRUE(run.running()) << run.err();
  run.Signal(SIGTERM);
  EXPECT_EQ(run.Wait(absl::Seconds(60)), 130) << run.err();
  EXPECT_THAT(run.err(),
              HasSubstr(absl::StrCat(
                  "interrupted: not waiting for a place on the referee at ",
                  remote.address,
                  ", which is full (its --max_live_matches): a match that "
                  "waits for one is not created, and the resume plays it\n")));
  EXPECT_THAT(run.err(), Not(HasSubstr("which does not answer")));
}

// A referee that goes away mid-match (SIGKILL, not back within
// --referee_retry_s): the match in flight is "not finished", the rest "not
// played". The run's last line counts each reason apart, as each match's
// own line says it (it used to count the cut-off match as "not verified
// (the match broke, or its log did not verify)"), and the progress line
// counts as done only the matches played to an end (it used to say 3/3
// matches done, with nothing played).
TEST_F(TournamentTest, AMatchCutOffByAnOutageIsCountedAsNotFinished) {
  std::unique_ptr<testing_util::Process> referee = StartReferee(dir_.path());
  ASSERT_NE(referee, nullptr);
  const RemoteReferee remote(dir_.path());
  // bot-3 never connects: the first match waits on its seat (60 s).
  v1::Tournament t = Make("rock_paper_pyramid", 3, 3,
                          "concurrency: 1 clocks { commit_timeout_ms: 60000 "
                          "reveal_timeout_ms: 60000 seed_timeout_ms: 60000 }");
  t.mutable_bots(2)->clear_command();
  for (const char* arg : {"/bin/sh", "-c", "exec sleep 600", "sh"}) {
    t.mutable_bots(2)->add_command(arg);
  }
  std::vector<std::string> argv = TournamentCommand(t);
  argv.insert(
      argv.end(),
      {"--referee=" + remote.address, "--referee_key=" + remote.key,
       "--admin_token_file=" + remote.admin_token, "--referee_retry_s=1"});
  testing_util::Process run(argv, dir_.File("run.out"), dir_.File("run.err"));
  const std::string created = dir_.File("out/created.jsonl");
  const absl::Time end = absl::Now() + absl::Seconds(60);
  while (run.running() && absl::Now() < end &&
         ReadFileToString(created).value_or("").empty()) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_TRUE(run.running()) << run.err();
  referee->Signal(SIGKILL);
  referee->Wait(absl::Seconds(10));
  EXPECT_EQ(run.Wait(absl::Seconds(120)), 1) << run.err();
  const std::string err = run.err();
  EXPECT_THAT(err, HasSubstr(") not counted: not finished: "));
  EXPECT_THAT(err, HasSubstr("0 of 3 matches verified, 1 not finished (not "
                             "watched to their end: the referee could not be "
                             "reached, or went silent), 2 not played"));
  EXPECT_THAT(err, Not(HasSubstr("the match broke")));
  // The last progress line: nothing was played to an end.
  const size_t last = err.rfind("/3 matches  ");
  ASSERT_NE(last, std::string::npos) << err;
  const size_t line = err.rfind('\n', last);
  EXPECT_EQ(err.substr(line == std::string::npos ? 0 : line + 1,
                       last + 12 - (line == std::string::npos ? 0 : line + 1)),
            "0/3 matches  ")
      << err;
  EXPECT_THAT(err, HasSubstr("0/3 matches  0.0 matches/s"));
}

// A referee started with --public_watch=false answers Watch, GetLog and the
// transparency log's calls only to holders of a token it issued: every
// call of the runner carries its admin token.
TEST_F(TwoRoundsOnARefereeTest, PlaysOnARefereeThatAnswersTokenHoldersOnly) {
  v1::TournamentResults results;
  ASSERT_NO_FATAL_FAILURE(PlayOnAReferee({"--public_watch=false"}, results));
  EXPECT_EQ(results.transparency_problems(), 0u)
      << results.transparency_verdict();
}

// A referee that takes no spectators (--max_watchers=0 and
// --max_watchers_per_match=0) still serves the runner's Watch streams,
// which carry the admin token: every match is played and verified. Before,
// the runner's own Watch was refused, every match of the schedule was
// created within seconds and left "not finished", its seats to forfeit.
TEST_F(TwoRoundsOnARefereeTest, PlaysOnARefereeThatTakesNoSpectators) {
  v1::TournamentResults results;
  ASSERT_NO_FATAL_FAILURE(PlayOnAReferee(
      {"--max_watchers=0", "--max_watchers_per_match=0"}, results));
}

// A running referee whose key is not the pinned one stops the tournament
// before a match is played (or the output directory is made), naming both
// keys; the same command with the right key then plays it.
TEST_F(TournamentTest, AWrongRefereeKeyStopsTheTournamentAtOnce) {
  std::unique_ptr<testing_util::Process> referee = StartReferee(dir_.path());
  ASSERT_NE(referee, nullptr);
  const RemoteReferee remote(dir_.path());
  const std::string actual =
      std::string(absl::StripAsciiWhitespace(*ReadFileToString(remote.key)));
  const std::string pinned = ToHex(SigningKey::Generate().public_key());
  v1::Tournament t =
      Make("rock_paper_pyramid", 3, 3, "rounds: 2 " + remote.Fields());
  t.set_referee_key(pinned);
  absl::StatusOr<v1::TournamentResults> refused = Run(t);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(),
              HasSubstr(absl::StrCat("signs with key ", actual)));
  EXPECT_THAT(refused.status().message(),
              HasSubstr(absl::StrCat("not the pinned referee_key ", pinned)));
  EXPECT_FALSE(fs::exists(dir_.File("out"))) << "made before the key check";

  t.set_referee_key(remote.key);
  absl::StatusOr<v1::TournamentResults> results = Run(t);
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_EQ(results->verified(), 6u);
  ExpectAllGenuine(*results);
}

// A running referee that does not know the admin token stops the
// tournament before the output directory is made, naming the token's file
// (the token used to fail at the first bot's registration, "unknown
// token", leaving a directory behind). Without admin_token_file, the
// token is $PYRAMID_ADMIN_TOKEN's, as refctl and the referee take it.
TEST_F(TournamentTest, AWrongAdminTokenIsFoundBeforeAnythingIsMade) {
  std::unique_ptr<testing_util::Process> referee = StartReferee(dir_.path());
  ASSERT_NE(referee, nullptr);
  const RemoteReferee remote(dir_.path());
  const std::string bad = dir_.File("bad.token");
  std::ofstream(bad) << "not-the-admin-token\n";
  std::vector<std::string> argv = TournamentCommand(
      Make("rock_paper_pyramid", 3, 3, "clocks { commit_timeout_ms: 5000 }"));
  argv.insert(argv.end(),
              {"--referee=" + remote.address, "--referee_key=" + remote.key});
  std::vector<std::string> wrong = argv;
  wrong.push_back("--admin_token_file=" + bad);
  testing_util::Process refused(wrong, dir_.File("refused.out"),
                                dir_.File("refused.err"));
  EXPECT_EQ(refused.Wait(absl::Seconds(30)), 1) << refused.err();
  EXPECT_THAT(refused.err(),
              HasSubstr(absl::StrCat("tournament: admin_token_file ", bad,
                                     ": the referee at ", remote.address,
                                     " does not know this admin token")));
  EXPECT_FALSE(fs::exists(dir_.File("out"))) << "made before the token check";

  // The environment's token, wrong and then right.
  std::vector<std::string> from_env = {"/usr/bin/env",
                                       "PYRAMID_ADMIN_TOKEN=not-the-token"};
  from_env.insert(from_env.end(), argv.begin(), argv.end());
  testing_util::Process env_refused(from_env, dir_.File("env-refused.out"),
                                    dir_.File("env-refused.err"));
  EXPECT_EQ(env_refused.Wait(absl::Seconds(30)), 1) << env_refused.err();
  EXPECT_THAT(env_refused.err(),
              HasSubstr("tournament: $PYRAMID_ADMIN_TOKEN: the referee at " +
                        remote.address + " does not know this admin token"));
  EXPECT_FALSE(fs::exists(dir_.File("out")));
  from_env[1] =
      "PYRAMID_ADMIN_TOKEN=" + std::string(absl::StripAsciiWhitespace(
                                   *ReadFileToString(remote.admin_token)));
  testing_util::Process played(from_env, dir_.File("played.out"),
                               dir_.File("played.err"));
  EXPECT_EQ(played.Wait(absl::Seconds(60)), 0) << played.err();
  EXPECT_THAT(played.out(), HasSubstr("3 of 3 match logs verified"));
}

// A referee that serves no transparency log checkpoint
// (tests/no_tlog_referee.cc) gives the runner no key to check before it
// plays: the header of the first log it fetches does instead. A header
// naming another key than the pinned one stops the tournament there,
// naming both keys and that log, instead of playing the whole schedule
// into logs none of which would verify.
TEST_F(TournamentTest, AWrongRefereeKeyIsFoundOnTheFirstLogWithoutACheckpoint) {
  const std::string dir = dir_.File("no-tlog");
  testing_util::Process referee(
      {(fs::read_symlink("/proc/self/exe").parent_path() / "no_tlog_referee")
           .string(),
       dir},
      dir_.File("no-tlog.out"), dir_.File("no-tlog.err"));
  ASSERT_TRUE(referee.WaitForFile(dir + "/address", absl::Seconds(30)))
      << referee.err();
  auto trimmed = [](const std::string& path) {
    return std::string(absl::StripAsciiWhitespace(*ReadFileToString(path)));
  };
  const std::string actual = trimmed(dir + "/referee.key.pub");
  const std::string pinned = ToHex(SigningKey::Generate().public_key());
  v1::Tournament t =
      Make("rock_paper_pyramid", 3, 3, "rounds: 8 concurrency: 1");
  t.set_referee(trimmed(dir + "/address"));
  t.set_referee_key(pinned);
  t.set_admin_token_file(dir + "/admin.token");
  absl::StatusOr<v1::TournamentResults> refused = Run(t);
  ASSERT_FALSE(refused.ok()) << "the whole schedule was played";
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition)
      << refused.status();
  const std::string message(refused.status().message());
  EXPECT_THAT(message, HasSubstr(absl::StrCat("signs with key ", actual,
                                              " (the header of logs/")));
  EXPECT_THAT(message,
              HasSubstr(absl::StrCat("not the pinned referee_key ", pinned)));
  // Stopped at the first log: the referee played the first match (and at
  // most the one started meanwhile), not the 24 scheduled.
  int played = 0;
  for (const auto& entry : fs::directory_iterator(dir + "/logs")) {
    played += entry.path().extension() == ".pyrlog";
  }
  EXPECT_GE(played, 1);
  EXPECT_LE(played, 2);
}

// A running referee that cannot be reached: the runner says so in one line
// per wait to retry (--referee_retry_s), and SIGTERM or SIGINT ends it at
// once with status 130 (an interruption), long before the retry window
// ends, even in its first check (the admin token's), before it has made
// the output directory.
TEST_F(TournamentTest, AnInterruptionEndsTheWaitForAnUnreachableReferee) {
  std::ofstream(dir_.File("admin.token")) << "some-token\n";
  std::vector<std::string> argv =
      TournamentCommand(Make("rock_paper_pyramid", 3, 3));
  const absl::Duration window = absl::Seconds(120);
  argv.insert(
      argv.end(),
      {"--referee=127.0.0.1:1", "--referee_key=" + std::string(64, 'a'),
       "--admin_token_file=" + dir_.File("admin.token"),
       absl::StrCat("--referee_retry_s=", absl::ToInt64Seconds(window))});
  for (int sig : {SIGTERM, SIGINT}) {
    const absl::Time start = absl::Now();
    testing_util::Process run(argv, dir_.File("run.out"), dir_.File("run.err"));
    // Two waits said: 100 ms, then 200 ms (one line each).
    while (run.running() && absl::Now() < start + absl::Seconds(60) &&
           run.err().find("retrying in 200ms") == std::string::npos) {
      absl::SleepFor(absl::Milliseconds(20));
    }
    ASSERT_TRUE(run.running()) << run.err();
    run.Signal(sig);
    EXPECT_EQ(run.Wait(absl::Seconds(60)), 130) << sig << ": " << run.err();
    EXPECT_LT(absl::Now() - start, window / 2) << "ran out its retry window";
    const std::string err = run.err();
    EXPECT_THAT(
        err, HasSubstr("tournament: the referee at 127.0.0.1:1 did not answer "
                       "(UNAVAILABLE: "));
    EXPECT_THAT(err, HasSubstr("); retrying in 100ms (--referee_retry_s)\n"));
    std::vector<std::string> waits;
    for (absl::string_view line : absl::StrSplit(err, '\n')) {
      if (absl::StrContains(line, "retrying in")) {
        waits.push_back(std::string(line.substr(line.rfind("retrying in"))));
      }
    }
    ASSERT_GE(waits.size(), 2u) << err;
    EXPECT_EQ(waits[0], "retrying in 100ms (--referee_retry_s)");
    EXPECT_EQ(waits[1], "retrying in 200ms (--referee_retry_s)");
    EXPECT_THAT(err, HasSubstr("tournament: checking the admin token: "
                               "interrupted\n"));
    EXPECT_FALSE(fs::exists(dir_.File("out")));
  }
}

// The `tournament` program raises its own soft open-file limit to the hard
// one (its accept guard), but a bot starts with the soft limit the program
// was started with, and the hard one: a bot gets no more descriptors than
// its host gave the runner.
TEST_F(TournamentTest, ABotStartsWithTheOpenFileLimitTheProgramStartedWith) {
  rlimit limit;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  const rlim_t hard = std::min<rlim_t>(limit.rlim_max, 8192);
  ASSERT_GT(hard, 512u) << "a hard open-file limit too small to raise from";
  v1::Tournament t = Make("rock_paper_pyramid", 3, 3, "rounds: 1");
  t.mutable_bots(0)->clear_command();
  for (const std::string& arg :
       {std::string("/bin/sh"), std::string("-c"),
        absl::StrCat("echo \"limits $(ulimit -Sn) $(ulimit -Hn)\"; exec '",
                     Bot(), "' --quiet --referee='{referee}'",
                     " --token_file='{token_file}'")}) {
    t.mutable_bots(0)->add_command(arg);
  }
  std::vector<std::string> argv = TournamentCommand(t);
  argv.insert(argv.begin(),
              {"/usr/bin/prlimit", absl::StrCat("--nofile=512:", hard)});
  testing_util::Process run(argv, dir_.File("run.out"), dir_.File("run.err"));
  ASSERT_EQ(run.Wait(absl::Seconds(120)), 0) << run.out() << run.err();
  EXPECT_THAT(*ReadFileToString(dir_.File("out/bots/bot-1.log")),
              HasSubstr(absl::StrCat("limits 512 ", hard, "\n")));
}

// The `tournament` program refuses a mistake in its command line with
// status 2, saying what it is, before it makes anything on disk: neither
// the output directory nor the embedded referee's key beside it.
// A mistake found after the file parsed names the file and the place of the
// field at fault, as a syntax error does: "FILE: line L column C: seats:
// ..."; a field the file leaves out has no place.
TEST_F(TournamentTest, AMistakeInTheTournamentFileNamesTheFile) {
  v1::Tournament twins = Make("pyramid_scheme", 2, 2);
  twins.mutable_bots(1)->set_name("bot-1");
  v1::Tournament gameless = Make("pyramid_scheme", 2, 2);
  gameless.clear_game();
  const std::string file = dir_.File("t.txt");
  const std::pair<v1::Tournament, std::string> cases[] = {
      {Make("rock_paper_pyramid", 4, 4),
       ": line 5 column 1: seats: rock_paper_pyramid takes 3 seats, not 4\n"},
      {twins, ": line 12 column 3: bots: two bots are named bot-1\n"},
      {Make("pyramid_scheme", 3, 3, "format: SWISS"),
       ": line 21 column 1: format: Swiss pairs two seats per match\n"},
      {gameless, ": game: required (one of "},
  };
  for (const auto& [t, message] : cases) {
    testing_util::Process run(TournamentCommand(t), dir_.File("run.out"),
                              dir_.File("run.err"));
    EXPECT_EQ(run.Wait(absl::Seconds(30)), 2) << message;
    EXPECT_THAT(run.err(), HasSubstr("tournament: " + file + message));
    EXPECT_FALSE(fs::exists(dir_.File("out"))) << message;
  }
}

TEST_F(TournamentTest, BadFlagValuesAreRefused) {
  const std::string file = dir_.File("t.txt");
  std::string text;
  google::protobuf::TextFormat::PrintToString(Make("pyramid_scheme", 2, 2),
                                              &text);
  std::ofstream(file) << text;
  std::ofstream(dir_.File("junk.key")) << "not a key\n";
  const std::string remote = "--referee=127.0.0.1:1";
  const std::string some_key = "--referee_key=" + std::string(64, 'a');
  const struct {
    std::vector<std::string> flags;
    std::string message;
  } cases[] = {
      {{"--concurrency=-1"}, "--concurrency must be at least 1, not -1"},
      {{"--concurrency=0"}, "--concurrency must be at least 1, not 0"},
      {{"--rounds=-2"}, "--rounds must be at least 1, not -2"},
      {{"--seed=-3"}, "--seed must be at least 0, not -3"},
      {{"--referee_retry_s=-1"},
       "--referee_retry_s must be at least 0, not -1"},
      {{"--sprt=10,0"}, "tournament: sprt: elo1 (0) must exceed elo0 (10)\n"},
      {{"--sprt=10"},
       "tournament: --sprt is ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA"},
      {{"--format=knockout"},
       "tournament: --format is round_robin, gauntlet or swiss"},
      {{"surplus"}, "usage: tournament TOURNAMENT_FILE [flags]"},
      {{remote},
       "tournament: a remote referee needs referee_key to verify the logs"},
      {{remote, "--referee_key=" + dir_.File("missing.pub")},
       "tournament: referee_key is 64 hex digits or a file of them: cannot "
       "read " +
           dir_.File("missing.pub")},
      {{remote, some_key},
       "tournament: a remote referee needs admin_token_file"},
      {{remote, some_key, "--admin_token_file=" + dir_.File("missing.token")},
       "tournament: admin_token_file: cannot open " +
           dir_.File("missing.token") + ": No such file or directory"},
      {{some_key},
       "tournament: referee_key pins a running referee's key, and no "
       "referee is set"},
      {{"--admin_token_file=" + dir_.File("admin.token")},
       "tournament: admin_token_file is a running referee's, and no referee "
       "is set"},
      {{remote, some_key, "--admin_token_file=" + dir_.File("admin.token"),
        "--signing_key_file=" + dir_.File("referee.key")},
       "tournament: signing_key_file is the embedded referee's key, and "
       "referee names a running one"},
      {{"--signing_key_file=" + dir_.File("junk.key")},
       "tournament: signing_key_file: " + dir_.File("junk.key") +
           ": expected 64 hex digits"},
      {{"--signing_key_file=" + dir_.File("no-dir/referee.key")},
       "tournament: signing_key_file: cannot create " +
           dir_.File("no-dir/referee.key") + ": " + dir_.File("no-dir") +
           " is not a directory"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv = {Bin("tournament"), file};
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    const std::string flags = absl::StrJoin(c.flags, " ");
    testing_util::Process run(argv, dir_.File("run.out"), dir_.File("run.err"));
    EXPECT_EQ(run.Wait(absl::Seconds(30)), 2) << flags << ": " << run.err();
    EXPECT_THAT(run.err(), HasSubstr(c.message)) << flags;
    EXPECT_FALSE(fs::exists(dir_.File("out"))) << flags;
    EXPECT_FALSE(fs::exists(dir_.File("out.referee.key"))) << flags;
    EXPECT_FALSE(fs::exists(dir_.File("no-dir"))) << flags;
    for (const char* made : {"out", "out.referee.key", "no-dir"}) {
      fs::remove_all(dir_.File(made));  // For the next case.
    }
  }
}

// A bad tournament file, or one the runner cannot act on (a bot command
// that cannot run, a bot key_file that cannot be read), is refused by the
// `tournament` program with status 2, saying why, before it makes
// anything on disk.
TEST_F(TournamentTest, BadTournamentFilesAreRefusedBeforeAnythingIsMade) {
  v1::Tournament unrunnable = Make("pyramid_scheme", 2, 2);
  unrunnable.mutable_bots(1)->set_command(0, dir_.File("no-such-bot"));
  v1::Tournament keyless = Make("pyramid_scheme", 2, 2);
  keyless.mutable_bots(0)->set_key_file(dir_.File("missing.key"));
  auto text_of = [](const v1::Tournament& t) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(t, &text);
    return text;
  };
  const std::string file = dir_.File("t.txt");
  const struct {
    std::string text;  // Of the tournament file; empty: no file at all.
    std::string message;
  } cases[] = {
      {"bots {", "tournament: " + file + ": not a Tournament in text format: "},
      {text_of(Make("no_such_game", 2, 2)),
       "tournament: " + file +
           ": line 3 column 3: game: unknown game \"no_such_game\""},
      {text_of(Make("rock_paper_pyramid", 4, 4)),
       "tournament: " + file +
           ": line 5 column 1: seats: rock_paper_pyramid takes 3 seats, not 4"},
      {text_of(unrunnable), "tournament: bot bot-2: cannot run " +
                                dir_.File("no-such-bot") +
                                ": No such file or directory"},
      {text_of(keyless), "tournament: bot bot-1: key_file: cannot read " +
                             dir_.File("missing.key")},
      {"", "tournament: cannot open " + file + ": No such file or directory"},
  };
  for (const auto& c : cases) {
    fs::remove(file);
    if (!c.text.empty()) std::ofstream(file) << c.text;
    testing_util::Process run(
        {Bin("tournament"), file, "--output_dir=" + dir_.File("out")},
        dir_.File("run.out"), dir_.File("run.err"));
    EXPECT_EQ(run.Wait(absl::Seconds(30)), 2) << c.message << ": " << run.err();
    EXPECT_THAT(run.err(), HasSubstr(c.message));
    EXPECT_FALSE(fs::exists(dir_.File("out"))) << c.message;
    EXPECT_FALSE(fs::exists(dir_.File("out.referee.key"))) << c.message;
    for (const char* made : {"out", "out.referee.key"}) {
      fs::remove_all(dir_.File(made));  // For the next case.
    }
  }
}

TEST_F(TournamentTest, ABotThatExitsAtOnceIsRestartedWithBackoff) {
  // Long deadlines: the tournament waits on the dead bot the whole time.
  v1::Tournament t = Make("rock_paper_pyramid", 3, 3,
                          "clocks { commit_timeout_ms: 60000 "
                          "reveal_timeout_ms: 60000 }");
  t.mutable_bots(2)->clear_command();
  t.mutable_bots(2)->add_command("/bin/false");
  testing_util::Process run(TournamentCommand(t), dir_.File("run.out"),
                            dir_.File("run.err"));
  absl::SleepFor(absl::Seconds(10));
  run.Signal(SIGKILL);
  run.Wait(absl::Seconds(10));
  // Each exit is one line; the backoff (250 ms, doubling) allows the first
  // start and at most 5 restarts in 10 s, where there used to be dozens.
  const std::string out = run.out() + run.err();
  int exits = 0;
  for (size_t at = 0;
       (at = out.find("bot bot-3 ended", at)) != std::string::npos; ++at) {
    ++exits;
  }
  EXPECT_GE(exits, 3) << out;
  EXPECT_LE(exits, 6) << out;
  EXPECT_THAT(out, HasSubstr("restarting in"));
  EXPECT_EQ(out.find("giving up"), std::string::npos);
}

// A bot whose program can never start (it refuses its flags, exit status
// 2, every time) is restarted and forfeits every match, as the logs show.
// The tournament still finishes, but a bot that never played is a broken
// entry, not a weak one: the program warns, naming it, exits 1, and the
// standings and the report show its restarts and say so.
TEST_F(TournamentTest, ABotThatNeverPlaysIsNamedAndFailsTheRun) {
  v1::Tournament t = Make("rock_paper_pyramid", 3, 3,
                          "clocks { commit_timeout_ms: 500 "
                          "reveal_timeout_ms: 500 seed_timeout_ms: 1500 }");
  t.mutable_bots(2)->add_command("--no_such_flag");
  testing_util::Process run(TournamentCommand(t), dir_.File("run.out"),
                            dir_.File("run.err"));
  EXPECT_EQ(run.Wait(absl::Seconds(60)), 1) << run.out() << run.err();
  EXPECT_THAT(run.err(), HasSubstr("bot bot-3 ended (exit status 2)"));
  EXPECT_THAT(run.err(),
              HasSubstr("tournament: warning: bot bot-3 never played: its "
                        "seat committed no move in any of its 3 matches"));
  EXPECT_THAT(run.err(), HasSubstr("its output: " + dir_.File("out") +
                                   "/bots/bot-3.log\n"));
  EXPECT_THAT(run.err(), Not(HasSubstr("bot bot-1 never played")));
  EXPECT_THAT(run.err(), Not(HasSubstr("bot bot-2 never played")));
  EXPECT_THAT(run.out(), HasSubstr(" restarts "));
  v1::TournamentResults results;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(
                  *ReadFileToString(dir_.File("out/results.json")), &results)
                  .ok());
  EXPECT_EQ(results.verified(), 3u);
  uint32_t restarts = 0;
  for (const v1::TournamentStanding& s : results.standings()) {
    if (s.bot() == "bot-3") {
      restarts = s.restarts();
      EXPECT_EQ(s.forfeits(), 3u);
    }
  }
  EXPECT_GE(restarts, 1u);
  // The standings line shows them: "... 3 forfeits, N restarts ...".
  EXPECT_THAT(run.out(), testing::ContainsRegex(absl::StrCat(
                             "bot-3 +3 +0.00 +0.0% +0 +3 +", restarts, " ")));
  const std::string html = *ReadFileToString(dir_.File("out/report.html"));
  EXPECT_THAT(html, HasSubstr("<th>Restarts</th>"));
  EXPECT_THAT(html, HasSubstr("<h2>Warnings</h2>"));
  EXPECT_THAT(html, HasSubstr("bot bot-3 never played"));
  EXPECT_THAT(html, Not(HasSubstr("bot bot-1 never played")));
  // Run again, it plays nothing and says the same: the logs are the
  // evidence. It starts no bot (bot-3 would have failed again, and said so
  // in its output), and its results and report are the same bytes, the
  // restarts of the run that played included.
  const std::string bot_output =
      *ReadFileToString(dir_.File("out/bots/bot-3.log"));
  const std::string json = *ReadFileToString(dir_.File("out/results.json"));
  testing_util::Process again(TournamentCommand(t), dir_.File("again.out"),
                              dir_.File("again.err"));
  EXPECT_EQ(again.Wait(absl::Seconds(60)), 1) << again.out() << again.err();
  EXPECT_THAT(again.err(), HasSubstr("bot bot-3 never played"));
  EXPECT_THAT(again.err(), HasSubstr("nothing left to play"));
  EXPECT_THAT(again.err(), Not(HasSubstr("ended")));
  EXPECT_EQ(*ReadFileToString(dir_.File("out/bots/bot-3.log")), bot_output);
  EXPECT_EQ(*ReadFileToString(dir_.File("out/results.json")), json);
  EXPECT_EQ(*ReadFileToString(dir_.File("out/report.html")), html);
}

// How many times `text` holds `part`.
int Occurrences(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = 0; (at = text.find(part, at)) != std::string::npos; ++at) {
    ++n;
  }
  return n;
}

// A bot's ends and restarts survive the runner's SIGKILL: each is
// journaled in OUTPUT/bots.jsonl as it happens, and the resumed run's
// standings (results.json, report.html) count those of both runs, each end
// with how it ended; the bot's own log says each end the runner saw. The
// report used to count the resumed run's restarts only, and the crash was
// recorded nowhere in the output directory.
TEST_F(TournamentTest, ABotsEndsAndRestartsAddUpOverAResume) {
  v1::Tournament t = Make("rock_paper_pyramid", 3, 3,
                          "rounds: 2 clocks { commit_timeout_ms: 500 "
                          "reveal_timeout_ms: 500 seed_timeout_ms: 1500 }");
  t.mutable_bots(2)->add_command("--no_such_flag");  // Exit status 2.
  const std::vector<std::string> argv = TournamentCommand(t);
  const std::string ended = "bot bot-3 ended (exit status 2)";
  std::string first_err;
  {
    testing_util::Process run(argv, dir_.File("1.out"), dir_.File("1.err"));
    const absl::Time end = absl::Now() + absl::Seconds(60);
    while (Occurrences(run.err(), ended) < 2 && absl::Now() < end &&
           run.running()) {
      absl::SleepFor(absl::Milliseconds(20));
    }
    ASSERT_TRUE(run.running()) << run.err();
    run.Signal(SIGKILL);
    EXPECT_EQ(run.Wait(absl::Seconds(10)), 128 + SIGKILL);
    first_err = run.err();
  }
  // Seen twice: the first end, its restart and the second end are
  // journaled (each before it is said).
  ASSERT_GE(Occurrences(first_err, ended), 2) << first_err;
  testing_util::Process again(argv, dir_.File("2.out"), dir_.File("2.err"));
  EXPECT_EQ(again.Wait(absl::Seconds(120)), 1) << again.err();
  const std::string second_err = again.err();
  const int restarted_now = Occurrences(second_err, ended + "; restarting in") -
                            Occurrences(second_err, "bot bot-3: not restarted");
  v1::TournamentResults results;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(
                  *ReadFileToString(dir_.File("out/results.json")), &results)
                  .ok());
  const v1::TournamentStanding* bot3 = nullptr;
  for (const v1::TournamentStanding& s : results.standings()) {
    if (s.bot() == "bot-3") bot3 = &s;
    if (s.bot() != "bot-3") {
      EXPECT_EQ(s.restarts(), 0u) << s.bot();
      EXPECT_TRUE(s.ends().empty()) << s.bot();
    }
  }
  ASSERT_NE(bot3, nullptr);
  // The first run's restart (at least one) and the second's.
  EXPECT_GE(bot3->restarts(), static_cast<uint32_t>(restarted_now + 1))
      << first_err << second_err;
  EXPECT_GE(bot3->ends_size(),
            Occurrences(first_err, ended) + Occurrences(second_err, ended));
  for (const std::string& how : bot3->ends()) EXPECT_EQ(how, "exit status 2");
  const std::string html = *ReadFileToString(dir_.File("out/report.html"));
  EXPECT_THAT(html, HasSubstr(absl::StrCat(
                        "<td>", bot3->restarts(),
                        "<br><small class=\"ends\">ended: exit status 2, ")));
  const std::string log = *ReadFileToString(dir_.File("out/bots/bot-3.log"));
  EXPECT_GE(Occurrences(log, "tournament: " + ended + "; restarting in "),
            Occurrences(first_err, ended + "; restarting in"))
      << log;
  // bots.jsonl holds them, as results.json says.
  EXPECT_TRUE(fs::exists(dir_.File("out/bots.jsonl")));
}

// A match whose bots' runner was SIGKILLed mid-match is finished by the
// running referee without them: their seats forfeit at their deadlines,
// and the resume takes that result. It counts as any forfeit does, but is
// marked: unhosted_forfeit in the journal (so every later resume keeps it)
// and results.json, a mark in report.html's match list and a warning
// naming the bots whose forfeits it holds, and the run's last summary line.
// Such forfeits were counted as the bots' with nothing telling them apart.
TEST_F(TournamentTest, ForfeitsOfAMatchLeftOnARunningRefereeAreMarked) {
  std::unique_ptr<testing_util::Process> referee = StartReferee(dir_.path());
  ASSERT_NE(referee, nullptr);
  v1::Tournament t = Make("rock_paper_pyramid", 3, 3,
                          "concurrency: 2 clocks { commit_timeout_ms: 1000 "
                          "reveal_timeout_ms: 1000 seed_timeout_ms: 1500 } " +
                              RemoteReferee(dir_.path()).Fields());
  // Each bot's program sleeps until the file `fast` is there: the first
  // run's matches are created and none of their seats can move before the
  // kill.
  const std::string fast = dir_.File("fast");
  for (v1::TournamentBot& bot : *t.mutable_bots()) {
    bot.clear_command();
    for (const std::string& arg :
         {std::string("/bin/sh"), std::string("-c"),
          absl::StrCat("while [ ! -e '", fast,
                       "' ]; do sleep 0.1; done; exec '", Bot(),
                       "' --quiet --referee='{referee}'",
                       " --token_file='{token_file}'")}) {
      bot.add_command(arg);
    }
  }
  const std::vector<std::string> argv = TournamentCommand(t);
  // Both matches in flight (concurrency 2) created and in created.jsonl:
  // none can end before the seed deadline, so no third is created.
  const std::string created = dir_.File("out/created.jsonl");
  const auto created_lines = [&] {
    absl::StatusOr<std::string> text = ReadFileToString(created);
    return text.ok() ? std::count(text->begin(), text->end(), '\n') : 0;
  };
  {
    testing_util::Process run(argv, dir_.File("1.out"), dir_.File("1.err"));
    const absl::Time end = absl::Now() + absl::Seconds(30);
    while (created_lines() < 2 && absl::Now() < end && run.running()) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    ASSERT_TRUE(run.running()) << run.err();
    run.Signal(SIGKILL);
    ASSERT_EQ(run.Wait(absl::Seconds(10)), 128 + SIGKILL) << run.err();
  }
  ASSERT_TRUE(Journaled().empty());
  std::set<uint32_t> left;  // The matches created, none of them played.
  const std::vector<std::string> lines =
      absl::StrSplit(*ReadFileToString(created), '\n', absl::SkipEmpty());
  for (const std::string& line : lines) {
    v1::TournamentMatchResult entry;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(line, &entry).ok());
    left.insert(entry.index());
  }
  ASSERT_EQ(left.size(), 2u);
  std::ofstream(fast) << "";

  testing_util::Process again(argv, dir_.File("2.out"), dir_.File("2.err"));
  EXPECT_EQ(again.Wait(absl::Seconds(120)), 0) << again.err();
  const auto check = [&](const std::string& out) {
    v1::TournamentResults results;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(
                    *ReadFileToString(dir_.File("out/results.json")), &results)
                    .ok());
    ASSERT_EQ(results.verified(), 3u);
    std::map<std::string, int> forfeits;
    std::vector<std::string> indices;
    for (const v1::TournamentMatchResult& m : results.matches()) {
      EXPECT_EQ(m.unhosted_forfeit(), left.contains(m.index())) << m.index();
      if (!m.unhosted_forfeit()) continue;
      indices.push_back(absl::StrCat(m.index()));
      // No seat moved: each forfeited, and counts as a forfeit.
      for (int seat = 0; seat < m.seats_size(); ++seat) {
        EXPECT_TRUE(m.outcome().seats(seat).forfeited()) << m.index();
        ++forfeits[m.seats(seat)];
      }
    }
    for (const v1::TournamentStanding& s : results.standings()) {
      EXPECT_GE(s.forfeits(), static_cast<uint32_t>(forfeits[s.bot()]));
    }
    std::vector<std::string> bots;
    for (const auto& [bot, n] : forfeits) {
      bots.push_back(absl::StrCat(bot, " ", n));
    }
    const bool one = left.size() == 1;
    const std::string lead = absl::StrCat(
        left.size(), one ? " match's" : " matches'",
        " forfeits came while the runner was not hosting ", one ? "it" : "them",
        " (adopted from the referee): ", absl::StrJoin(bots, ", "));
    // The summary's last line.
    std::vector<std::string> lines =
        absl::StrSplit(out, '\n', absl::SkipEmpty());
    ASSERT_FALSE(lines.empty());
    EXPECT_THAT(lines.back(),
                StartsWith(absl::StrCat(lead, " (", one ? "match " : "matches ",
                                        absl::StrJoin(indices, ", "), ")")))
        << out;
    // The report's warning (its apostrophe escaped) and a mark per match.
    const std::string html = *ReadFileToString(dir_.File("out/report.html"));
    const std::string warning =
        absl::StrCat("<p class=\"bad\" id=\"unhosted-forfeits\">", left.size(),
                     one ? " match&#39;s" : " matches&#39;",
                     lead.substr(lead.find(" forfeits came")));
    EXPECT_TRUE(absl::StrContains(html, warning)) << warning;
    EXPECT_EQ(Occurrences(html, "<div class=\"bad unhosted\">"),
              static_cast<int>(left.size()));
  };
  check(again.out());
  // Journaled: a run of the finished tournament keeps the mark.
  testing_util::Process third(argv, dir_.File("3.out"), dir_.File("3.err"));
  EXPECT_EQ(third.Wait(absl::Seconds(60)), 0) << third.err();
  check(third.out());
}

// A bot that answers only the seed decision (its seed contribution) and
// then forfeits every move never played: BotsThatNeverPlayed names it (its
// seed commits counted as playing, and no warning came). A seat that
// committed its seed contribution and was never asked for a move (the
// match ended first) did all it was asked: it played. Made here from a
// real run's logs by leaving records out (BotsThatNeverPlayed reads the
// records of logs the runner verified, without verifying them again).
TEST_F(TournamentTest, ASeedContributionAloneIsNotPlaying) {
  absl::StatusOr<v1::TournamentResults> results =
      Run(Make("rock_paper_pyramid", 3, 3));
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  ASSERT_EQ(results->verified(), 3u);
  const std::string out = dir_.File("out");
  EXPECT_THAT(BotsThatNeverPlayed(*results, out), testing::IsEmpty());
  std::map<std::string, std::string> original;
  for (const v1::TournamentMatchResult& m : results->matches()) {
    original[m.log_file()] = *ReadFileToString(out + "/" + m.log_file());
  }
  // Rewrites each log without the records `drop` names (given bot-3's
  // seat in its match).
  const auto rewrite =
      [&](const std::function<bool(const v1::LogRecord&, uint32_t)>& drop) {
        for (const v1::TournamentMatchResult& m : results->matches()) {
          uint32_t seat = 0;
          while (m.seats(seat) != "bot-3") ++seat;
          const std::string& bytes = original[m.log_file()];
          const SplitLogResult split = SplitLog(bytes);
          ASSERT_FALSE(split.records.empty());
          std::string kept = bytes.substr(0, split.records[0].offset);
          for (const RawRecord& raw : split.records) {
            v1::LogRecord record;
            ASSERT_TRUE(record.ParseFromArray(
                raw.bytes.data(), static_cast<int>(raw.bytes.size())));
            if (drop(record, seat)) continue;
            const size_t end =
                raw.bytes.data() + raw.bytes.size() - bytes.data();
            kept += bytes.substr(raw.offset, end - raw.offset);
          }
          std::ofstream(out + "/" + m.log_file(), std::ios::trunc) << kept;
        }
      };
  const auto move_of = [](const v1::LogRecord& record, uint32_t seat) {
    return record.has_commit() && record.commit().seat() == seat &&
           record.commit().decision_id() != 0;
  };

  // Only its seed contribution committed, every move asked for.
  rewrite(move_of);
  EXPECT_THAT(BotsThatNeverPlayed(*results, out),
              testing::ElementsAre("bot-3"));

  // Only its seed contribution committed, no move ever asked for.
  rewrite([&](const v1::LogRecord& record, uint32_t seat) {
    return move_of(record, seat) ||
           (record.has_decision_opened() &&
            record.decision_opened().decision_id() != 0);
  });
  EXPECT_THAT(BotsThatNeverPlayed(*results, out), testing::IsEmpty());
}

// Another tournament's output directory is the command's mistake
// (INVALID_ARGUMENT: the program's status 2), refused before anything in it
// changes.
TEST_F(TournamentTest, ResumeRefusesAnotherTournament) {
  ASSERT_TRUE(Run(Make("rock_paper_pyramid", 3, 3)).ok());
  const std::map<std::string, std::string> before = Tree(dir_.File("out"));
  absl::StatusOr<v1::TournamentResults> other =
      Run(Make("rock_paper_pyramid", 3, 3, "rounds: 2"));
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Tree(dir_.File("out")) == before);
  EXPECT_THAT(other.status().message(), HasSubstr("another tournament"));
  // It says what differs, field by field.
  EXPECT_THAT(other.status().message(),
              HasSubstr("/out/tournament.txt): rounds: 1 in the directory, 2 "
                        "now; choose another output_dir"));
  v1::Tournament renamed = Make("rock_paper_pyramid", 3, 3, "seed: 9");
  renamed.set_name("u");
  renamed.mutable_bots(2)->add_command("--strategy=heuristic");
  other = Run(renamed);
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(),
              HasSubstr("name: \"t\" in the directory, \"u\" now; bots: "));
  EXPECT_THAT(other.status().message(),
              HasSubstr("; seed: 0 in the directory, 9 now"));
  EXPECT_THAT(other.status().message(), Not(HasSubstr("rounds")));
  // A finished tournament run again plays nothing and reports the same.
  progress_.str("");
  absl::StatusOr<v1::TournamentResults> again =
      Run(Make("rock_paper_pyramid", 3, 3, "concurrency: 4"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->verified(), 3u);
  EXPECT_EQ(Journaled().size(), 3u);
  EXPECT_THAT(progress_.str(),
              HasSubstr("resuming: 3 of 3 matches already played and "
                        "verified; nothing left to play"));
  EXPECT_THAT(progress_.str(), Not(HasSubstr("playing the rest")));
}

// The checkpoint a directory published is only ever replaced by one that
// extends it: a referee whose transparency log no longer does (rewritten:
// here the published checkpoint is one of another tree of the same size,
// signed with the referee's key) is refused, and the directory's evidence
// is left as it was.
TEST_F(TournamentTest, ACheckpointThatDoesNotExtendThePublishedOneIsRefused) {
  const v1::Tournament t = Make("rock_paper_pyramid", 3, 3);
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_TRUE(first.ok()) << first.status() << progress_.str();
  const fs::path checkpoint = dir_.File("out/checkpoint");
  const std::string published = *ReadFileToString(checkpoint.string());
  // The same size, another root, the referee's signature.
  const std::string forked = ForgedCheckpoint(
      published, std::vector<std::string>(absl::StrSplit(published, '\n'))[1],
      "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      dir_.File("out.referee.key"));
  ASSERT_FALSE(forked.empty());
  std::ofstream(checkpoint, std::ios::trunc) << forked;
  const std::string proofs = Listing(dir_.File("out/proofs"));

  absl::StatusOr<v1::TournamentResults> again = Run(t);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(again.status().message(),
              HasSubstr("does not extend the one this directory published"));
  EXPECT_EQ(*ReadFileToString(checkpoint.string()), forked);
  EXPECT_EQ(Listing(dir_.File("out/proofs")), proofs);
  EXPECT_FALSE(fs::exists(dir_.File("out/proofs.new")));
}

// A published checkpoint of 0 logs (a first run whose disk filled up
// publishes one) is extended by every tree: the next run publishes over it
// without asking the referee for a proof, which it would refuse (0 < OLD);
// every rerun failed with exit status 2. One of 0 logs whose root is not
// the empty tree's is still refused.
TEST_F(TournamentTest, APublishedCheckpointOfNoLogsIsExtendedByAnyTree) {
  const v1::Tournament t = Make("rock_paper_pyramid", 3, 3);
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_TRUE(first.ok()) << first.status() << progress_.str();
  const fs::path checkpoint = dir_.File("out/checkpoint");
  const std::string published = *ReadFileToString(checkpoint.string());
  const auto empty = [&](const std::string& root) {
    return ForgedCheckpoint(published, "0", root, dir_.File("out.referee.key"));
  };

  const std::string wrong_root =
      empty("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
  std::ofstream(checkpoint, std::ios::trunc) << wrong_root;
  absl::StatusOr<v1::TournamentResults> refused = Run(t);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kDataLoss)
      << refused.status();
  EXPECT_EQ(*ReadFileToString(checkpoint.string()), wrong_root);

  // SHA-256 of nothing: the root of the empty tree.
  std::ofstream(checkpoint, std::ios::trunc)
      << empty("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
  absl::StatusOr<v1::TournamentResults> again = Run(t);
  ASSERT_TRUE(again.ok()) << again.status() << progress_.str();
  EXPECT_EQ(again->transparency_problems(), 0u)
      << again->transparency_verdict();
  EXPECT_EQ(*ReadFileToString(checkpoint.string()), published);
}

// A run whose results cannot all be written (a full disk; here a
// directory where schedule.json goes) ends with the write's error and what
// became of its matches, and says that a rerun resumes; it did say only
// "cannot write .../schedule.json". The rerun publishes everything.
TEST_F(TournamentTest, ARunThatCannotWriteItsResultsSaysWhatItPlayed) {
  const v1::Tournament t = Make("rock_paper_pyramid", 3, 3);
  fs::create_directories(dir_.File("out/schedule.json/in-the-way"));
  absl::StatusOr<v1::TournamentResults> first = Run(t);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(first.status().message(), HasSubstr("schedule.json"));
  EXPECT_THAT(first.status().message(),
              HasSubstr("; 3 of 3 matches verified; the results are not all "
                        "written: run the same command again to resume from " +
                        dir_.File("out")));
  fs::remove_all(dir_.File("out/schedule.json"));
  absl::StatusOr<v1::TournamentResults> again = Run(t);
  ASSERT_TRUE(again.ok()) << again.status() << progress_.str();
  EXPECT_EQ(again->verified(), 3u);
  EXPECT_EQ(again->transparency_problems(), 0u)
      << again->transparency_verdict();
}

// Two runs on one output directory at once would both play and write its
// journal: the second refuses, naming the first.
TEST_F(TournamentTest, ASecondRunOnTheSameDirectoryIsRefused) {
  fs::create_directories(dir_.File("out"));
  absl::StatusOr<DirectoryLock> first =
      DirectoryLock::Acquire(dir_.File("out"));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<v1::TournamentResults> second =
      Run(Make("rock_paper_pyramid", 3, 3));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(),
              HasSubstr(absl::StrCat("/out is in use by another process (pid ",
                                     getpid(), ")")));
  EXPECT_FALSE(fs::exists(dir_.File("out/journal.jsonl")));
}

TEST_F(TournamentTest, SprtStopsAsSoonAsItDecides) {
  // The heuristic bot wins about 98% of two-seat Pyramid Scheme matches
  // against the random one (docs/bot-strategies.md), some +650 Elo. Tested
  // at elo0 = 0 against elo1 = 100, the SPRT takes H1 with the heuristic
  // bot first and H0 with it second, each after a few dozen matches at
  // most, long before the 400 allowed. (A wrong decision is far rarer than
  // beta = alpha = 0.05 at a true difference this large.)
  for (const bool heuristic_first : {true, false}) {
    SCOPED_TRACE(heuristic_first ? "heuristic first" : "random first");
    v1::Tournament t = Make("pyramid_scheme", 2, 2,
                            "rounds: 200 concurrency: 2 sprt { elo0: 0 "
                            "elo1: 100 }");
    t.set_output_dir(absl::StrCat(dir_.path(), "/out-", heuristic_first));
    t.mutable_bots(heuristic_first ? 0 : 1)
        ->add_command("--strategy=heuristic");
    absl::StatusOr<v1::TournamentResults> results = Run(t);
    ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
    const v1::SprtOutcome& sprt = results->sprt();
    EXPECT_EQ(sprt.decision(), heuristic_first ? "H1" : "H0");
    // Decided at a bound; a match in flight then may have moved the ratio.
    if (heuristic_first) {
      EXPECT_GT(sprt.llr(), 0.5 * sprt.upper_bound());
      EXPECT_GT(sprt.elo(), 100);
    } else {
      EXPECT_LT(sprt.llr(), 0.5 * sprt.lower_bound());
      EXPECT_LT(sprt.elo(), -100);
    }
    EXPECT_EQ(results->scheduled(), 400u);
    EXPECT_GT(results->skipped(), 300u);
    EXPECT_EQ(results->verified() + results->skipped(), 400u);
    EXPECT_EQ(sprt.wins() + sprt.draws() + sprt.losses(), results->verified());
    for (const v1::TournamentMatchResult& m : results->matches()) {
      EXPECT_EQ(m.verdict(), "genuine") << m.index();
    }
  }
}

// A match started before the SPRT decided and never finished (the run was
// killed with it in flight; simulated: its journal line is gone and its
// log set aside in superseded/) is played by the resume, as one in flight
// at the decision finishes and counts: the matches skipped are only those
// never started, after the last one played.
TEST_F(TournamentTest, AResumeFinishesAMatchStartedBeforeTheSprtDecided) {
  v1::Tournament t = Make("pyramid_scheme", 2, 2,
                          "rounds: 200 concurrency: 2 sprt { elo0: 0 "
                          "elo1: 100 }");
  t.mutable_bots(0)->add_command("--strategy=heuristic");
  // The resume decides again from the results it has (the SPRT's counts
  // are order-free), so the match made unfinished must be one whose result
  // the others still decide without, below the last one played. When the
  // match that finished after the decision is a loss or a draw, taking
  // away a win leaves the test undecided and the resume rightly plays on:
  // such a first run (a few in a hundred) is played again.
  const auto count_without =
      [&](const std::vector<v1::TournamentMatchResult>& played,
          size_t dropped) {
        int wins = 0, draws = 0, losses = 0;
        for (size_t i = 0; i < played.size(); ++i) {
          if (i == dropped) continue;
          const v1::TournamentMatchResult& m = played[i];
          const int first_seat = m.seats(0) == "bot-1" ? 0 : 1;
          const uint32_t mine = m.outcome().seats(first_seat).rank();
          const uint32_t theirs = m.outcome().seats(1 - first_seat).rank();
          ++(mine < theirs ? wins : mine == theirs ? draws : losses);
        }
        return EvaluateSprt(t.sprt(), wins, draws, losses).decision();
      };
  absl::StatusOr<v1::TournamentResults> first;
  std::string out;
  std::vector<std::string> lines;
  std::optional<v1::TournamentMatchResult> unfinished;
  for (int attempt = 0; attempt < 10 && !unfinished; ++attempt) {
    out = absl::StrCat(dir_.path(), "/out-", attempt);
    t.set_output_dir(out);
    first = Run(t);
    ASSERT_TRUE(first.ok()) << first.status() << progress_.str();
    ASSERT_EQ(first->sprt().decision(), "H1");
    lines = absl::StrSplit(*ReadFileToString(out + "/journal.jsonl"), '\n',
                           absl::SkipEmpty());
    ASSERT_GE(lines.size(), 4u);
    std::vector<v1::TournamentMatchResult> played(lines.size());
    uint32_t last_played = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      ASSERT_TRUE(
          google::protobuf::util::JsonStringToMessage(lines[i], &played[i])
              .ok())
          << lines[i];
      last_played = std::max(last_played, played[i].index());
    }
    for (size_t i = 0; i < played.size(); ++i) {
      if (played[i].index() == last_played) continue;
      if (count_without(played, i) != "H1") continue;
      unfinished = played[i];
      lines.erase(lines.begin() + i);
      break;
    }
  }
  ASSERT_TRUE(unfinished.has_value()) << "10 first runs without one";
  std::ofstream(out + "/journal.jsonl", std::ios::trunc)
      << absl::StrJoin(lines, "\n") << "\n";
  fs::create_directories(out + "/superseded");
  const fs::path log = out + "/" + unfinished->log_file();
  fs::rename(log, out + "/superseded/" + log.filename().string());

  progress_.str("");
  absl::StatusOr<v1::TournamentResults> second = Run(t);
  ASSERT_TRUE(second.ok()) << second.status() << progress_.str();
  EXPECT_THAT(progress_.str(),
              HasSubstr("the SPRT has decided: finishing the 1 match started "
                        "before it"));
  EXPECT_EQ(second->verified(), first->verified());
  EXPECT_EQ(second->skipped(), first->skipped());
  bool replayed = false;
  for (const v1::TournamentMatchResult& m : second->matches()) {
    if (m.index() != unfinished->index()) continue;
    replayed = true;
    EXPECT_EQ(m.verdict(), "genuine");
    EXPECT_NE(m.match_id(), unfinished->match_id());
  }
  EXPECT_TRUE(replayed);
  EXPECT_EQ(second->transparency_problems(), 0u)
      << second->transparency_verdict();
}

// A Swiss tournament is bounded as a scheduled one is, before anything is
// made: 2^31 rounds of 2 bots once wrapped the runner's count of matches to
// 0, and the runner, starting no bot, played a match of bots never started
// (SIGSEGV).
TEST_F(TournamentTest, ASwissTournamentOfTooManyMatchesIsRefused) {
  absl::StatusOr<v1::TournamentResults> results =
      Run(Make("pyramid_scheme", 2, 2, "format: SWISS rounds: 2147483648"));
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(results.status().message(),
            "the schedule would hold more than 10000000 matches (2 bots, 2 "
            "seats, 2147483648 rounds)");
  EXPECT_FALSE(fs::exists(dir_.File("out")));
}

TEST_F(TournamentTest, SwissPairsEachRoundFromTheResults) {
  // 5 bots: 2 pairings a round, each played in both seat orders, and a bye.
  absl::StatusOr<v1::TournamentResults> results =
      Run(Make("pyramid_scheme", 2, 5, "format: SWISS rounds: 3"));
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_EQ(results->scheduled(), 12u);
  EXPECT_EQ(results->verified(), 12u);
  ExpectAllGenuine(*results);
  std::map<std::set<std::string>, int> pairs;
  std::vector<std::set<std::string>> playing(3);
  for (const auto& m : results->matches()) {
    ++pairs[{m.seats(0), m.seats(1)}];
    playing[m.index() / 4].insert({m.seats(0), m.seats(1)});
  }
  // Nobody meets anyone twice in 3 rounds of 5, each pair in both orders.
  for (const auto& [pair, n] : pairs) EXPECT_EQ(n, 2);
  std::set<std::string> byes;
  for (const auto& round : playing) {
    ASSERT_EQ(round.size(), 4u);
    for (int i = 1; i <= 5; ++i) {
      const std::string bot = absl::StrCat("bot-", i);
      if (!round.contains(bot)) {
        EXPECT_TRUE(byes.insert(bot).second) << bot;
      }
    }
  }
  EXPECT_EQ(byes.size(), 3u);
  // Three bots had a bye and played 4 matches, two played 6: the standings
  // rank by points per match, so that a bye costs nothing.
  for (int i = 1; i < results->standings_size(); ++i) {
    const v1::TournamentStanding& above = results->standings(i - 1);
    const v1::TournamentStanding& below = results->standings(i);
    EXPECT_GE(above.points() / above.matches(),
              below.points() / below.matches())
        << above.bot() << " above " << below.bot();
  }
}

TEST_F(TournamentTest, TwoHundredFiftySixMatchesInFlightWithoutTimeouts) {
  // 6 bots, 3 seats: 60 matches a round; 5 rounds with 256 in flight.
  absl::StatusOr<v1::TournamentResults> results =
      Run(Make("rock_paper_pyramid", 3, 6, "rounds: 5 concurrency: 256"));
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_EQ(results->verified(), 300u);
  for (const auto& m : results->matches()) {
    EXPECT_EQ(m.outcome().termination(), v1::TERMINATION_NORMAL) << m.index();
  }
  for (const auto& s : results->standings()) EXPECT_EQ(s.forfeits(), 0u);
}

TEST_F(TournamentTest, CrashingBotIsRestartedAndForfeitsItsInterruptedMatches) {
  // bot-2 exits abruptly after its 6th acknowledged commit, every time it
  // is started, leaving that commitment unrevealed.
  v1::Tournament t = Make("rock_paper_pyramid", 3, 4,
                          "concurrency: 4 clocks { commit_timeout_ms: 1500 "
                          "reveal_timeout_ms: 1500 }");
  t.mutable_bots(1)->add_command("--crash_after_commits=6");
  absl::StatusOr<v1::TournamentResults> results = Run(t);
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_EQ(results->verified(), 12u);
  ExpectAllGenuine(*results);
  EXPECT_THAT(progress_.str(),
              HasSubstr("bot bot-2 ended (exit status 3); restarting"));
  int interrupted = 0;
  for (const v1::TournamentMatchResult& m : results->matches()) {
    for (int seat = 0; seat < m.seats_size(); ++seat) {
      if (!m.outcome().seats(seat).forfeited()) continue;
      // Only the crashing bot forfeits, and the log says so.
      EXPECT_EQ(m.seats(seat), "bot-2") << m.index();
      EXPECT_EQ(m.outcome().termination(), v1::TERMINATION_FORFEIT);
      ++interrupted;
    }
  }
  EXPECT_GE(interrupted, 1);
  // Every restart said is one counted: one said after the last match, which
  // the end of the tournament cancels, is said to be cancelled.
  auto lines = [&](const std::string& line) {
    const std::string said = progress_.str();
    uint32_t n = 0;
    for (size_t at = said.find(line); at != std::string::npos;
         at = said.find(line, at + 1)) {
      ++n;
    }
    return n;
  };
  const uint32_t restarts_said =
      lines("bot bot-2 ended (exit status 3); restarting in") -
      lines("bot bot-2: not restarted, the tournament is over");
  for (const v1::TournamentStanding& s : results->standings()) {
    if (s.bot() == "bot-2") {
      EXPECT_EQ(s.restarts(), restarts_said) << progress_.str();
      EXPECT_GE(s.restarts(), 1u);
      EXPECT_EQ(s.forfeits(), static_cast<uint32_t>(interrupted));
    } else {
      EXPECT_EQ(s.restarts(), 0u) << s.bot();
      EXPECT_EQ(s.forfeits(), 0u) << s.bot();
    }
  }
}

// A restart still pending when the run is interrupted is said not to
// happen because of the interruption, not because the tournament is over
// (it is only paused: a resume starts the bot again).
TEST_F(TournamentTest, ARestartPendingAtAnInterruptionIsSaidToBeInterrupted) {
  v1::Tournament t = Make("rock_paper_pyramid", 3, 3, "concurrency: 1");
  t.mutable_bots(2)->clear_command();
  for (const char* arg : {"/bin/sh", "-c", "exit 1"}) {
    t.mutable_bots(2)->add_command(arg);
  }
  // It exits at once each time: 250 ms, 500 ms, 1 s, then 2 s, far longer
  // than the interruption takes.
  WatchedProgress said("bot bot-3 ended (exit status 1); restarting in 2s");
  std::ostream progress(&said);
  RunOptions options;
  options.progress = &progress;
  options.interruptions = [&] { return said.said.load() ? 2 : 0; };
  absl::StatusOr<v1::TournamentResults> results = RunTournament(t, options);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kCancelled)
      << results.status() << said.str();
  EXPECT_THAT(said.str(), HasSubstr("bot bot-3: not restarted, the "
                                    "tournament was interrupted"));
  EXPECT_THAT(said.str(), Not(HasSubstr("the tournament is over")));
}

// A bot whose program takes longer to start than a commit deadline (here
// 3 s against 1.5 s) still plays its first matches: their seed decision
// waits for it (the runner's MatchClocks), and nobody forfeits.
TEST_F(TournamentTest, ABotSlowerToStartThanTheCommitDeadlineForfeitsNothing) {
  v1::Tournament t = Make("rock_paper_pyramid", 3, 3,
                          "concurrency: 3 clocks { commit_timeout_ms: 1500 "
                          "reveal_timeout_ms: 1500 }");
  t.mutable_bots(2)->clear_command();
  for (const std::string& arg :
       {std::string("/bin/sh"), std::string("-c"),
        absl::StrCat("sleep 3; exec '", Bot(),
                     "' --quiet --referee='{referee}'",
                     " --token_file='{token_file}'")}) {
    t.mutable_bots(2)->add_command(arg);
  }
  absl::StatusOr<v1::TournamentResults> results = Run(t);
  ASSERT_TRUE(results.ok()) << results.status() << progress_.str();
  EXPECT_EQ(results->verified(), 3u);
  ExpectAllGenuine(*results);
  for (const v1::TournamentMatchResult& m : results->matches()) {
    EXPECT_EQ(m.outcome().termination(), v1::TERMINATION_NORMAL) << m.index();
  }
  for (const v1::TournamentStanding& s : results->standings()) {
    EXPECT_EQ(s.forfeits(), 0u) << s.bot();
  }
  // The results (and the report) say what clocks the matches had.
  EXPECT_EQ(results->clocks().commit_timeout_ms(), 1500u);
  EXPECT_EQ(results->clocks().seed_timeout_ms(), 30000u);
  EXPECT_EQ(results->forfeit_policy(), v1::FORFEIT_POLICY_FORFEIT);
}

TEST_F(TournamentTest, BadTournamentsAreRefused) {
  const std::vector<std::pair<v1::Tournament, std::string>> cases = {
      {Make("no_such_game", 2, 2), "no_such_game"},
      {Make("rock_paper_pyramid", 4, 4), "seats"},
      {Make("rock_paper_pyramid", 3, 2), "3"},
      {Make("pyramid_scheme", 3, 3, "format: SWISS"), "Swiss"},
      {Make("pyramid_scheme", 2, 3, "sprt { elo0: 0 elo1: 10 }"), "SPRT"},
      {Make("pyramid_scheme", 2, 2, "sprt { elo0: 10 elo1: 0 }"), "elo1"},
      {Make("pyramid_scheme", 2, 2,
            "clocks { reveal_timeout_ms: 1000 time_bank_ms: 5000 }"),
       "clocks.time_bank_ms"},
      {Make("pyramid_scheme", 2, 2, "clocks { commit_timeout_ms: 4294967295 }"),
       "clocks.commit_timeout_ms"},
  };
  for (const auto& [t, message] : cases) {
    absl::StatusOr<v1::TournamentResults> results = Run(t);
    ASSERT_FALSE(results.ok()) << t.DebugString();
    EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument)
        << results.status();
    EXPECT_THAT(results.status().message(), HasSubstr(message));
    EXPECT_FALSE(fs::exists(dir_.File("out"))) << message;
    fs::remove_all(dir_.File("out"));  // For the next case.
  }
  v1::Tournament twins = Make("pyramid_scheme", 2, 2);
  twins.mutable_bots(1)->set_name("bot-1");
  EXPECT_EQ(Run(twins).status().code(), absl::StatusCode::kInvalidArgument);
  // A bot command that cannot run stops the tournament before it records
  // anything (the exec would fail in the child, status 127, restarted
  // again and again): a path, a name looked up on PATH, a directory.
  for (const std::string& command :
       {dir_.File("no-such-bot"), std::string("no-such-bot-on-path"),
        dir_.path()}) {
    v1::Tournament unrunnable = Make("pyramid_scheme", 2, 2);
    unrunnable.mutable_bots(1)->set_command(0, command);
    absl::StatusOr<v1::TournamentResults> results = Run(unrunnable);
    ASSERT_FALSE(results.ok()) << command;
    EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(
        results.status().message(),
        HasSubstr(absl::StrCat("bot bot-2: cannot run ", command, ": ")));
    EXPECT_FALSE(fs::exists(dir_.File("out"))) << command;
    fs::remove_all(dir_.File("out"));  // For the next case.
  }
}

}  // namespace
}  // namespace pyramid
