#include "referee/core/log_journal.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/core/log_journal_format.h"
#include "referee/core/log_sink.h"
#include "tests/forked_child.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// Byte `at` of test log `log`: any log's contents can be checked without
// being kept.
void Crash() {
  raise(SIGKILL);
  _exit(98);
}

char ByteOf(int log, uint64_t at) {
  return static_cast<char>(
      (at * 131 + static_cast<uint64_t>(log) * 7 + (at >> 9)) & 0xff);
}

std::string BytesOf(int log, uint64_t from, uint64_t to) {
  std::string bytes;
  for (uint64_t at = from; at < to; ++at) bytes.push_back(ByteOf(log, at));
  return bytes;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void Spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::vector<std::string> JournalFiles(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& item : fs::directory_iterator(dir)) {
    names.push_back(item.path().filename().string());
  }
  return names;
}

// Waits (bounded) for the retirer to have deleted `files` files.
void WaitForRetired(const LogJournal& journal, int files) {
  for (int i = 0; i < 500 && journal.stats().retired < files; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

class LogJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    journal_dir_ = dir_.File("journal");
    fs::create_directory(dir_.File("logs"));
  }
  std::string Log(int i) const {
    return absl::StrCat(dir_.path(), "/logs/", i, ".log");
  }
  // The journal in journal_dir_ for the logs of DIR/logs (Log).
  absl::StatusOr<std::unique_ptr<LogJournal>> OpenJournal(
      LogJournal::Options options = {}) const {
    options.log_dir = dir_.File("logs");
    return LogJournal::Open(journal_dir_, std::move(options));
  }

  // Runs `body` in a child process, which must end by calling Crash()
  // while it holds its journal: a crashed referee retires and closes
  // nothing.
  void InCrashingChild(const std::function<void()>& body) {
    ForkedChild child([&](int) {
      body();
      _exit(99);  // It did not crash.
    });
    ASSERT_TRUE(child.ok());
    const ChildEnd end = child.Wait();
    ASSERT_EQ(end.signal, SIGKILL) << end.ToString();
  }

  TempDir dir_{"journal"};
  std::string journal_dir_;
};

TEST_F(LogJournalTest, EntriesParseUpToATornOrDamagedOne) {
  std::string file(kJournalMagic);
  std::vector<size_t> ends;
  for (int i = 0; i < 3; ++i) {
    file += EncodeJournalEntry(100 * i, Log(i), BytesOf(i, 0, 50 + i));
    ends.push_back(file.size());
  }
  ParsedJournal all = ParseJournal(file);
  ASSERT_THAT(all.entries, SizeIs(3));
  EXPECT_EQ(all.stopped, "");
  EXPECT_EQ(all.entries[2].offset, 200u);
  EXPECT_EQ(all.entries[2].path, Log(2));
  EXPECT_EQ(all.entries[2].bytes, BytesOf(2, 0, 52));
  // Cut anywhere: the entries wholly before the cut, and a torn one named.
  for (size_t cut = kJournalMagic.size(); cut < file.size(); ++cut) {
    const ParsedJournal parsed = ParseJournal(file.substr(0, cut));
    const size_t whole = static_cast<size_t>(
        std::upper_bound(ends.begin(), ends.end(), cut) - ends.begin());
    ASSERT_THAT(parsed.entries, SizeIs(whole)) << cut;
    const bool at_boundary =
        cut == kJournalMagic.size() || (whole > 0 && ends[whole - 1] == cut);
    EXPECT_EQ(parsed.stopped.empty(), at_boundary) << cut;
  }
  // Any byte of the second entry changed: reading stops there.
  for (size_t at = ends[0]; at < ends[1]; ++at) {
    std::string damaged = file;
    damaged[at] ^= 0x20;
    const ParsedJournal parsed = ParseJournal(damaged);
    EXPECT_THAT(parsed.entries, SizeIs(1)) << at;
    EXPECT_EQ(parsed.stopped_at, ends[0]) << at;
    EXPECT_THAT(parsed.stopped, HasSubstr("entry")) << at;
  }
  // The zeros written ahead of the entries end them cleanly; anything but
  // zeros after the entries is named.
  EXPECT_EQ(ParseJournal(file + std::string(5000, '\0')).stopped, "");
  EXPECT_THAT(ParseJournal(file + std::string(5000, '\0')).entries, SizeIs(3));
  const ParsedJournal garbage =
      ParseJournal(file + std::string(4, '\0') + "junk");
  EXPECT_THAT(garbage.entries, SizeIs(3));
  EXPECT_EQ(garbage.stopped_at, file.size());
  EXPECT_THAT(garbage.stopped, HasSubstr("entry"));
  // A file cut while being created holds a prefix of the magic: empty.
  EXPECT_EQ(ParseJournal(kJournalMagic.substr(0, 5)).stopped, "");
  EXPECT_EQ(ParseJournal("something else entirely").stopped,
            "not a journal file");
}

TEST_F(LogJournalTest, CommitsThatArriveDuringASyncShareTheNextOne) {
  constexpr int kThreads = 16;
  std::atomic<int> writes = 0;
  LogJournal::Options options;
  LogJournal* journal_for_hook = nullptr;
  // The first group's leader waits, before writing, until every other
  // thread has queued its commit: they must all go in the second group.
  options.before_write = [&] {
    if (writes.fetch_add(1) != 0) return;
    while (journal_for_hook->stats().commits < kThreads) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  absl::StatusOr<std::unique_ptr<LogJournal>> journal = OpenJournal(options);
  ASSERT_TRUE(journal.ok()) << journal.status();
  journal_for_hook = journal->get();
  std::vector<std::thread> threads;
  std::atomic<int> failures = 0;
  threads.emplace_back([&] {
    if (!(*journal)->Commit(Log(0), 0, "first").ok()) ++failures;
  });
  while (writes.load() == 0) std::this_thread::yield();
  for (int i = 1; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      if (!(*journal)->Commit(Log(i), 0, BytesOf(i, 0, 10)).ok()) ++failures;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  const LogJournal::Stats stats = (*journal)->stats();
  EXPECT_EQ(stats.commits, uint64_t{kThreads});
  EXPECT_EQ(stats.syncs, 2u);
  EXPECT_EQ(stats.largest_group, uint64_t{kThreads - 1});
}

TEST_F(LogJournalTest, OpenRepairsTheLogsFromWhatACrashedProcessCommitted) {
  for (int i = 0; i < 3; ++i) Spit(Log(i), BytesOf(i, 0, 3000));
  InCrashingChild([&] {
    auto journal = OpenJournal();
    if (!journal.ok()) _exit(1);
    for (int i = 0; i < 3; ++i) {
      if (!(*journal)->Commit(Log(i), 0, BytesOf(i, 0, 1000)).ok() ||
          !(*journal)->Commit(Log(i), 1000, BytesOf(i, 1000, 2500)).ok()) {
        _exit(1);
      }
    }
    Crash();
  });
  // A power loss: the logs lose what was never synced in them.
  fs::resize_file(Log(0), 10);  // Cut short.
  fs::remove(Log(1));           // Never reached the disk.
  std::string holed = Slurp(Log(2));
  std::fill(holed.begin() + 500, holed.begin() + 1500, '\0');  // Lost pages.
  Spit(Log(2), holed);

  absl::StatusOr<std::unique_ptr<LogJournal>> journal = OpenJournal();
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ((*journal)->recovery().files, 1);
  EXPECT_EQ((*journal)->recovery().entries, 6u);
  EXPECT_EQ((*journal)->recovery().logs_repaired, 3);
  EXPECT_THAT((*journal)->recovery().notes, SizeIs(0));
  EXPECT_TRUE(Slurp(Log(0)) == BytesOf(0, 0, 2500));
  EXPECT_TRUE(Slurp(Log(1)) == BytesOf(1, 0, 2500));
  // What followed the committed bytes is left as it was.
  EXPECT_TRUE(Slurp(Log(2)) == BytesOf(2, 0, 3000));
  // The crashed process's file is gone; the new journal makes its own for
  // its first commit.
  EXPECT_THAT(JournalFiles(journal_dir_), SizeIs(0));
  ASSERT_TRUE((*journal)->Commit(Log(0), 2500, BytesOf(0, 2500, 2600)).ok());
  EXPECT_THAT(JournalFiles(journal_dir_),
              ::testing::ElementsAre("0000000000000002.journal"));
  journal->reset();
  // Closed cleanly, it leaves nothing to replay.
  EXPECT_THAT(JournalFiles(journal_dir_), SizeIs(0));
  journal = OpenJournal();
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ((*journal)->recovery().files, 0);
}

// After a crash of the process (no power loss) every log holds what the
// journal does, but only in the page cache: the journal was its durable
// copy. Open must sync the logs before it deletes the journal.
TEST_F(LogJournalTest, OpenSyncsTheLogsItFindsWholeBeforeDeletingTheJournal) {
  for (int i = 0; i < 2; ++i) Spit(Log(i), BytesOf(i, 0, 2000));
  InCrashingChild([&] {
    auto journal = OpenJournal();
    if (!journal.ok()) _exit(1);
    for (int i = 0; i < 2; ++i) {
      if (!(*journal)->Commit(Log(i), 0, BytesOf(i, 0, 2000)).ok()) _exit(1);
    }
    Crash();
  });
  const absl::StatusOr<std::unique_ptr<LogJournal>> journal = OpenJournal();
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ((*journal)->recovery().entries, 2u);
  EXPECT_EQ((*journal)->recovery().logs_repaired, 0);
  // Both logs are in one directory: its file system was synced once.
  EXPECT_EQ((*journal)->recovery().log_directories_synced, 1);
  EXPECT_THAT(JournalFiles(journal_dir_), SizeIs(0));
}

// A broken match's log is marked read-only (mode 0444, MarkLogBroken), and
// the journal may still hold its last checkpoints' bytes. Open reads before
// it writes: a log that holds them is left as it is (a referee not running
// as root could not open it for writing), and one that lost them is
// repaired and marked read-only again.
TEST_F(LogJournalTest, AReadOnlyLogIsRepairedAndStaysReadOnly) {
  fs::create_directory(journal_dir_);
  std::string file(kJournalMagic);
  for (int i = 0; i < 2; ++i) {
    file += EncodeJournalEntry(0, Log(i), BytesOf(i, 0, 1000));
  }
  Spit(journal_dir_ + "/0000000000000001.journal", file);
  Spit(Log(0), BytesOf(0, 0, 1000));  // Whole.
  Spit(Log(1), BytesOf(1, 0, 1000));
  fs::resize_file(Log(1), 300);  // Lost its last pages.
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(MarkLogBroken(Log(i)).ok());
  // Whether the whole log is opened for writing (root could: the test
  // runs as root in CI, so the open itself is watched).
  const int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(inotify_add_watch(watch, Log(0).c_str(), IN_CLOSE_WRITE), 0);

  const absl::StatusOr<std::unique_ptr<LogJournal>> journal = OpenJournal();
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ((*journal)->recovery().logs_repaired, 1);
  alignas(inotify_event) char events[4096];
  EXPECT_LT(read(watch, events, sizeof(events)), 0)
      << "the whole log was opened for writing";
  close(watch);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(Slurp(Log(i)) == BytesOf(i, 0, 1000)) << i;
    EXPECT_TRUE(LogIsMarkedBroken(Log(i))) << i;
    EXPECT_EQ(fs::status(Log(i)).permissions(), fs::perms::owner_read |
                                                    fs::perms::group_read |
                                                    fs::perms::others_read)
        << i;
  }
}

// Two syncs of one log run on two threads of a pool, so the later bytes can
// reach the journal first, even in an earlier file. Open applies each log's
// entries in the order of their offsets.
TEST_F(LogJournalTest, OpenAppliesALogsEntriesInTheOrderOfTheirOffsets) {
  fs::create_directory(journal_dir_);
  auto journal_file = [&](const std::string& name,
                          const std::vector<uint64_t>& starts) {
    std::string file(kJournalMagic);
    for (uint64_t from : starts) {
      file += EncodeJournalEntry(from, Log(0), BytesOf(0, from, from + 500));
    }
    Spit(journal_dir_ + "/" + name, file);
  };
  journal_file("0000000000000001.journal", {500, 1500});
  journal_file("0000000000000002.journal", {0, 1000});
  // A power loss lost the whole log, which the journal holds from byte 0.
  const absl::StatusOr<std::unique_ptr<LogJournal>> journal = OpenJournal();
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ((*journal)->recovery().files, 2);
  EXPECT_EQ((*journal)->recovery().entries, 4u);
  EXPECT_EQ((*journal)->recovery().logs_repaired, 1);
  EXPECT_TRUE(Slurp(Log(0)) == BytesOf(0, 0, 2000));
  EXPECT_THAT(JournalFiles(journal_dir_), SizeIs(0));
}

TEST_F(LogJournalTest, ALostLogThatCannotBeRebuiltIsNamed) {
  Spit(Log(0), BytesOf(0, 0, 300));
  InCrashingChild([&] {
    auto journal = OpenJournal();
    if (!journal.ok() ||
        !(*journal)->Commit(Log(0), 100, BytesOf(0, 100, 300)).ok()) {
      _exit(1);
    }
    Crash();
  });
  fs::remove(Log(0));  // Its first 100 bytes are nowhere.
  const absl::StatusOr<std::unique_ptr<LogJournal>> journal = OpenJournal();
  ASSERT_FALSE(journal.ok());
  EXPECT_EQ(journal.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(journal.status().message(),
              HasSubstr("bytes 100 to 300 of the log " + Log(0)));
  EXPECT_THAT(journal.status().message(),
              HasSubstr("remove " + journal_dir_ + " to start without"));
  // The journal is kept for when the log is found.
  EXPECT_THAT(JournalFiles(journal_dir_), SizeIs(1));
  // Found cut short of the journal's first byte: writing the entry would
  // leave a hole.
  Spit(Log(0), BytesOf(0, 0, 50));
  const absl::StatusOr<std::unique_ptr<LogJournal>> short_log = OpenJournal();
  ASSERT_FALSE(short_log.ok());
  EXPECT_THAT(short_log.status().message(),
              HasSubstr("the log " + Log(0) +
                        " ends at byte 50, before the bytes the journal "
                        "holds for it from byte 100 on"));
  // Found whole: repaired.
  Spit(Log(0), BytesOf(0, 0, 100));
  const absl::StatusOr<std::unique_ptr<LogJournal>> repaired = OpenJournal();
  ASSERT_TRUE(repaired.ok()) << repaired.status();
  EXPECT_TRUE(Slurp(Log(0)) == BytesOf(0, 0, 300));
}

// An entry names its log by its file name, resolved against the log
// directory of the process that replays it: a data directory moved after a
// crash (to a bigger disk) repairs its own logs, where entries naming the
// old path found nothing and stopped the referee.
TEST_F(LogJournalTest, ADataDirectoryMovedAfterACrashRepairsItsOwnLogs) {
  const std::string old_dir = dir_.File("data");
  const std::string new_dir = dir_.File("moved");
  fs::create_directories(old_dir + "/logs");
  const auto log = [](const std::string& data_dir, int i) {
    return absl::StrCat(data_dir, "/logs/", i, ".log");
  };
  for (int i = 0; i < 2; ++i) Spit(log(old_dir, i), BytesOf(i, 0, 2000));
  InCrashingChild([&] {
    LogJournal::Options options;
    options.log_dir = old_dir + "/logs";
    auto journal = LogJournal::Open(old_dir + "/journal", options);
    if (!journal.ok()) _exit(1);
    for (int i = 0; i < 2; ++i) {
      if (!(*journal)->Commit(log(old_dir, i), 0, BytesOf(i, 0, 2000)).ok()) {
        _exit(1);
      }
    }
    Crash();
  });
  // The entries name the logs' file names, not where they were.
  const std::vector<std::string> files = JournalFiles(old_dir + "/journal");
  ASSERT_THAT(files, SizeIs(1));
  const std::string file = Slurp(old_dir + "/journal/" + files[0]);
  const ParsedJournal parsed = ParseJournal(file);
  ASSERT_THAT(parsed.entries, SizeIs(2));
  EXPECT_EQ(parsed.entries[0].path, "0.log");
  EXPECT_EQ(parsed.entries[1].path, "1.log");

  fs::rename(old_dir, new_dir);
  fs::resize_file(log(new_dir, 0), 300);  // And lost pages on the way.
  LogJournal::Options options;
  options.log_dir = new_dir + "/logs";
  const absl::StatusOr<std::unique_ptr<LogJournal>> journal =
      LogJournal::Open(new_dir + "/journal", options);
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ((*journal)->recovery().entries, 2u);
  EXPECT_EQ((*journal)->recovery().logs_repaired, 1);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(Slurp(log(new_dir, i)) == BytesOf(i, 0, 2000)) << i;
  }
  EXPECT_FALSE(fs::exists(old_dir));  // Nothing was made at the old place.
}

// A journal an older referee wrote names each log's path as that referee
// was given it. Read now, only the file name counts, resolved against the
// current log directory (Options::log_dir): a copy of a data directory
// repairs its own logs and leaves the original's (the paths' directory) as
// they are; no entry opens a file outside the log directory.
TEST_F(LogJournalTest, AnOlderJournalsPathsAreTheirFileNamesInTheLogDirectory) {
  const std::string original = dir_.File("original-logs");
  const std::string log_dir = dir_.File("copy-logs");
  fs::create_directories(original);
  fs::create_directories(log_dir);
  fs::create_directory(journal_dir_);
  std::string file(kJournalMagic);
  for (int i = 0; i < 2; ++i) {
    file += EncodeJournalEntry(0, absl::StrCat(original, "/", i, ".log"),
                               BytesOf(i, 0, 1000));
  }
  // Relative to the old working directory.
  file += EncodeJournalEntry(1000, "referee-data/logs/0.log",
                             BytesOf(0, 1000, 1500));
  Spit(journal_dir_ + "/0000000000000001.journal", file);
  // The original's logs went on after the copy was made.
  for (int i = 0; i < 2; ++i) {
    Spit(absl::StrCat(original, "/", i, ".log"), std::string(1700, 'o'));
    Spit(absl::StrCat(log_dir, "/", i, ".log"), BytesOf(i, 0, 200));
  }
  LogJournal::Options options;
  options.log_dir = log_dir;
  const absl::StatusOr<std::unique_ptr<LogJournal>> journal =
      LogJournal::Open(journal_dir_, options);
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ((*journal)->recovery().entries, 3u);
  EXPECT_EQ((*journal)->recovery().logs_repaired, 2);
  EXPECT_TRUE(Slurp(log_dir + "/0.log") == BytesOf(0, 0, 1500));
  EXPECT_TRUE(Slurp(log_dir + "/1.log") == BytesOf(1, 0, 1000));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(Slurp(absl::StrCat(original, "/", i, ".log")),
              std::string(1700, 'o'))
        << i;
  }
  EXPECT_FALSE(fs::exists(dir_.File("logs/0.log")));  // Not the default's.
}

// Which file an entry's bytes go to: its file name alone in the log
// directory, whatever directory an older entry named.
TEST(JournalLogPathTest, AnEntrysFileNameIsInTheLogDirectory) {
  EXPECT_EQ(JournalLogPath("a.pyrlog", "/now/logs"), "/now/logs/a.pyrlog");
  EXPECT_EQ(JournalLogPath("/old/logs/a.pyrlog", "/now/logs"),
            "/now/logs/a.pyrlog");
  EXPECT_EQ(JournalLogPath("../../etc/a.pyrlog", "/now/logs"),
            "/now/logs/a.pyrlog");
  EXPECT_EQ(JournalLogPath("a.pyrlog", "logs"), "logs/a.pyrlog");
  for (const char* none : {"", "..", ".", "/d/logs/", "/d/logs/.."}) {
    EXPECT_EQ(JournalLogPath(none, "/now/logs"), "") << none;
  }
}

// A journal has one log directory, which its caller must give: entries
// name their logs' files in it.
TEST_F(LogJournalTest, OpenRefusesAJournalWithoutALogDirectory) {
  const absl::StatusOr<std::unique_ptr<LogJournal>> journal =
      LogJournal::Open(journal_dir_, LogJournal::Options());
  ASSERT_FALSE(journal.ok());
  EXPECT_EQ(journal.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(journal.status().message(), HasSubstr("no log directory"));
}

// An entry whose name is no file's ("..", a path ending in '/') would
// name a directory: the journal is refused, named, and kept.
TEST_F(LogJournalTest, AnEntryNamingNoLogFileIsRefused) {
  for (const std::string name : {"..", "/srv/logs/", "logs/."}) {
    fs::create_directory(journal_dir_);
    Spit(journal_dir_ + "/0000000000000001.journal",
         absl::StrCat(std::string(kJournalMagic),
                      EncodeJournalEntry(0, name, BytesOf(0, 0, 10))));
    const absl::StatusOr<std::unique_ptr<LogJournal>> journal = OpenJournal();
    ASSERT_FALSE(journal.ok()) << name;
    EXPECT_EQ(journal.status().code(), absl::StatusCode::kDataLoss) << name;
    EXPECT_THAT(journal.status().message(), HasSubstr("names no log file"))
        << name;
    EXPECT_THAT(JournalFiles(journal_dir_), SizeIs(1)) << name;
    fs::remove_all(journal_dir_);
  }
}

TEST_F(LogJournalTest, FullFilesAreReplacedAndRetired) {
  LogJournal::Options options;
  options.rotate_bytes = 4096;
  absl::StatusOr<std::unique_ptr<LogJournal>> journal = OpenJournal(options);
  ASSERT_TRUE(journal.ok()) << journal.status();
  uint64_t size = 0;
  for (int round = 0; round < 40; ++round) {
    std::ofstream(Log(0), std::ios::binary | std::ios::app)
        << BytesOf(0, size, size + 1000);
    ASSERT_TRUE(
        (*journal)->Commit(Log(0), size, BytesOf(0, size, size + 1000)).ok());
    size += 1000;
  }
  // A file is full once it holds 4096 bytes or more.
  const size_t entry =
      EncodeJournalEntry(0, Log(0), BytesOf(0, 0, 1000)).size();
  int per_file = 0;
  for (size_t held = kJournalMagic.size(); held < 4096; held += entry) {
    ++per_file;
  }
  const int full_files = 40 / per_file;
  // Retired by another thread: wait for it (bounded).
  WaitForRetired(**journal, full_files);
  EXPECT_EQ((*journal)->stats().retired, full_files);
  EXPECT_THAT(JournalFiles(journal_dir_), SizeIs(1));
  EXPECT_TRUE(Slurp(Log(0)) == BytesOf(0, 0, size));
}

// An idle referee keeps no second copy of its logs' bytes: the file no
// commit came to for retire_after_idle is retired as a full one is, and
// the next commit starts a new one.
TEST_F(LogJournalTest, AFileNoCommitCameToForAWhileIsRetired) {
  LogJournal::Options options;
  options.retire_after_idle = absl::Milliseconds(50);
  absl::StatusOr<std::unique_ptr<LogJournal>> journal = OpenJournal(options);
  ASSERT_TRUE(journal.ok()) << journal.status();
  Spit(Log(0), BytesOf(0, 0, 1000));
  ASSERT_TRUE((*journal)->Commit(Log(0), 0, BytesOf(0, 0, 1000)).ok());
  WaitForRetired(**journal, 1);
  EXPECT_EQ((*journal)->stats().retired, 1);
  EXPECT_THAT(JournalFiles(journal_dir_), SizeIs(0));
  std::ofstream(Log(0), std::ios::binary | std::ios::app)
      << BytesOf(0, 1000, 2000);
  ASSERT_TRUE((*journal)->Commit(Log(0), 1000, BytesOf(0, 1000, 2000)).ok());
  EXPECT_THAT(JournalFiles(journal_dir_),
              ::testing::ElementsAre("0000000000000002.journal"));
  WaitForRetired(**journal, 2);
  EXPECT_EQ((*journal)->stats().retired, 2);
  EXPECT_THAT(JournalFiles(journal_dir_), SizeIs(0));
  EXPECT_TRUE(Slurp(Log(0)) == BytesOf(0, 0, 2000));
}

// On a full disk the lobby asks the journal to let go of its file: one
// that holds at least what its replacement takes is retired at once; a
// smaller one stays (a request must free space, not swap one mebibyte for
// another) until commits stop.
TEST_F(LogJournalTest, AFileIsRetiredWhenAskedIfItHoldsMoreThanANewOne) {
  LogJournal::Options options;
  options.retire_after_idle = absl::InfiniteDuration();
  absl::StatusOr<std::unique_ptr<LogJournal>> journal = OpenJournal(options);
  ASSERT_TRUE(journal.ok()) << journal.status();
  uint64_t size = 0;
  auto append = [&](uint64_t n) {
    std::ofstream(Log(0), std::ios::binary | std::ios::app)
        << BytesOf(0, size, size + n);
    ASSERT_TRUE(
        (*journal)->Commit(Log(0), size, BytesOf(0, size, size + n)).ok());
    size += n;
  };
  append(1000);
  (*journal)->RetireCurrentFile();
  // The writer weighs a request before the commits it wakes with: once
  // this one is durable the request was turned down (or the commit would
  // have started file 2).
  append(1000);
  EXPECT_THAT(JournalFiles(journal_dir_),
              ::testing::ElementsAre("0000000000000001.journal"));
  append(LogJournal::kZeroAhead);
  (*journal)->RetireCurrentFile();
  WaitForRetired(**journal, 1);
  EXPECT_EQ((*journal)->stats().retired, 1);
  EXPECT_THAT(JournalFiles(journal_dir_), SizeIs(0));
  EXPECT_TRUE(Slurp(Log(0)) == BytesOf(0, 0, size));
  append(1000);
  EXPECT_THAT(JournalFiles(journal_dir_),
              ::testing::ElementsAre("0000000000000002.journal"));
}

// A process appends to logs and commits from several threads, and is killed
// at a random moment; then the logs lose a random part of what they never
// synced themselves (a power loss). Reopening the journal must give every
// log back at least every byte a Commit returned OK for. Repeated, each
// round continuing the logs of the last.
TEST_F(LogJournalTest,
       SigkillAtRandomMomentsThenAPowerLossLosesNothingCommitted) {
  constexpr int kLogs = 6;
  constexpr int kRounds = 8;
  std::mt19937_64 random(testing::UnitTest::GetInstance()->random_seed());
  // What each log holds durably in itself (synced by a clean close of the
  // journal, which syncs the logs' file system before deleting its file).
  std::vector<uint64_t> durable(kLogs, 0);
  for (int i = 0; i < kLogs; ++i) Spit(Log(i), "");
  for (int round = 0; round < kRounds; ++round) {
    ForkedChild child([&](int reports) {
      auto journal = OpenJournal();
      if (!journal.ok()) _exit(1);
      std::vector<std::thread> threads;
      for (int i = 0; i < kLogs; ++i) {
        threads.emplace_back([&, i] {
          const int fd = open(Log(i).c_str(), O_WRONLY | O_APPEND);
          uint64_t size = fs::file_size(Log(i));
          std::mt19937 sizes(static_cast<unsigned>(i + 100 * round));
          while (true) {
            const uint64_t to = size + 1 + sizes() % 3000;
            const std::string bytes = BytesOf(i, size, to);
            if (write(fd, bytes.data(), bytes.size()) !=
                    static_cast<ssize_t>(bytes.size()) ||
                !(*journal)->Commit(Log(i), size, bytes).ok()) {
              _exit(1);
            }
            size = to;
            // Reported only once committed.
            char line[64];
            const int n = snprintf(line, sizeof(line), "%d %llu\n", i,
                                   static_cast<unsigned long long>(size));
            if (write(reports, line, n) != n) _exit(1);
          }
        });
      }
      for (std::thread& thread : threads) thread.join();
      _exit(0);
    });
    ASSERT_TRUE(child.ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + random() % 60));
    child.Kill(SIGKILL);
    const ChildEnd end = child.Wait();
    ASSERT_EQ(end.signal, SIGKILL) << "the writer failed: " << end.ToString();
    std::vector<uint64_t> committed = durable;
    std::istringstream reports(child.ReadToEnd());
    int log = 0;
    uint64_t size = 0;
    while (reports >> log >> size) {
      committed[log] = std::max(committed[log], size);
    }
    // The power loss: each log keeps a random length of what it did not
    // hold durably.
    for (int i = 0; i < kLogs; ++i) {
      const uint64_t written = fs::file_size(Log(i));
      ASSERT_GE(written, committed[i]);
      fs::resize_file(Log(i),
                      durable[i] + random() % (written - durable[i] + 1));
    }
    absl::StatusOr<std::unique_ptr<LogJournal>> journal = OpenJournal();
    ASSERT_TRUE(journal.ok()) << journal.status();
    for (int i = 0; i < kLogs; ++i) {
      const std::string bytes = Slurp(Log(i));
      ASSERT_GE(bytes.size(), committed[i])
          << "round " << round << " log " << i;
      ASSERT_TRUE(bytes.substr(0, committed[i]) == BytesOf(i, 0, committed[i]))
          << "round " << round << " log " << i;
      // What is left beyond the committed bytes is a prefix of what was
      // written; the next round appends after it.
      ASSERT_TRUE(bytes == BytesOf(i, 0, bytes.size()));
    }
    journal->reset();  // A clean close: the logs are synced.
    for (int i = 0; i < kLogs; ++i) durable[i] = fs::file_size(Log(i));
  }
}

}  // namespace
}  // namespace pyramid
