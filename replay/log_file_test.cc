// The files replay is given (replay/log_file.h): a log read whole, a file
// that is not one read no further than its first bytes, devices and
// directories refused at once, pipes read without waiting on a missing
// writer, and the budget the logs held at once share.
#include "replay/log_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "referee/core/log_format.h"
#include "referee/core/log_reader.h"
#include "referee/files/fifo_testing.h"
#include "tests/forked_child.h"
#include "tests/heap_bound.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

// The bytes of a log: the magic, then `body` (whatever it is: ReadLog
// judges nothing after the magic).
std::string LogOf(const std::string& body) {
  return std::string(log_format::kMagic) + body;
}

// ReadLog(path, budget)'s bytes, not waiting on a FIFO (fifo_testing.h).
absl::StatusOr<std::string> ReadNow(const std::string& path,
                                    LogBudget& budget) {
  return ReadWithoutWaiting(path, [&]() -> absl::StatusOr<std::string> {
    absl::StatusOr<LogFile> log = ReadLog(path, budget);
    if (!log.ok()) return log.status();
    return log->bytes();
  });
}

// ReadLog(path, budget)'s bytes, read by another thread (the LogFile gone
// once read).
std::future<absl::StatusOr<std::string>> ReadLater(const std::string& path,
                                                   LogBudget& budget) {
  return std::async(std::launch::async,
                    [path, &budget]() -> absl::StatusOr<std::string> {
                      absl::StatusOr<LogFile> log = ReadLog(path, budget);
                      if (!log.ok()) return log.status();
                      return log->bytes();
                    });
}

// Whether `read` is done within 5 s.
bool DoneSoon(const std::future<absl::StatusOr<std::string>>& read) {
  return read.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
}

TEST(LogFileTest, ALogIsReadWholeAndHeldAgainstTheBudgetWhileKept) {
  const TempDir tmp("log_file");
  ASSERT_TRUE(tmp.ok());
  const std::string bytes = LogOf(std::string(1000, 'x'));
  const std::string path = FileHolding(tmp, "a.pyrlog", bytes);
  LogBudget budget(1 << 20);
  {
    absl::StatusOr<LogFile> log = ReadLog(path, budget);
    ASSERT_TRUE(log.ok()) << log.status();
    EXPECT_EQ(log->bytes(), bytes);
    EXPECT_EQ(log->file_size(), bytes.size());
    EXPECT_EQ(budget.held(), bytes.size());
    const LogFile moved = *std::move(log);
    EXPECT_EQ(budget.held(), bytes.size());
    EXPECT_EQ(moved.file_size(), bytes.size());
  }
  EXPECT_EQ(budget.held(), 0u);
  // A file shorter than the magic that starts it is read as it is (the
  // verifier calls it truncated); so is an empty one.
  EXPECT_EQ(*ReadNow(FileHolding(tmp, "short", "PYR"), budget), "PYR");
  EXPECT_EQ(*ReadNow(FileHolding(tmp, "empty", ""), budget), "");
}

TEST(LogFileTest, AFileThatIsNotALogIsReadNoFurtherThanItsFirstBytes) {
  const TempDir tmp("log_file");
  ASSERT_TRUE(tmp.ok());
  // A gibibyte of zeros that takes no room: reading it whole would hold a
  // gibibyte.
  const std::string sparse = tmp.File("sparse");
  ASSERT_EQ(truncate(FileHolding(tmp, "sparse", "").c_str(), int64_t{1} << 30),
            0);
  LogBudget budget(1 << 20);
  absl::StatusOr<LogFile> log = ReadLog(sparse, budget);
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_EQ(log->bytes(), std::string(8, '\0'));
  EXPECT_EQ(budget.held(), 0u);
  // Its first bytes alone, or one that differs from the magic early.
  EXPECT_EQ(*ReadNow(FileHolding(tmp, "text", "hello, world\n"), budget),
            "hello, w");
  EXPECT_EQ(*ReadNow(FileHolding(tmp, "x", "x"), budget), "x");
}

// A genuine sealed log (a golden log, testdata/golden/README.md).
std::string GoldenLog() {
  std::ifstream in("testdata/golden/rock_paper_pyramid/classic.pyrlog",
                   std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A log followed by gigabytes (a sparse tail of zeros, which costs no disk)
// is read no further than the record after its seal: a zero byte, an empty
// record, which the verifier refuses ("record after the seal",
// VerifierTest.WhatTheReaderKeepsAfterTheSealIsJudgedAsTheWholeFile). It
// was read whole: 4 GiB held for a verdict its first bytes give.
TEST(LogFileTest, ALogFollowedByGigabytesIsReadNoFurtherThanAfterItsSeal) {
  const TempDir tmp("log_file");
  ASSERT_TRUE(tmp.ok());
  const std::string golden = GoldenLog();
  ASSERT_GT(golden.size(), log_format::kMagic.size());
  const std::string path = FileHolding(tmp, "tail.pyrlog", golden);
  ASSERT_EQ(truncate(path.c_str(), int64_t{4} << 30), 0);
  ForkedChild child([&](int) {
    if (!BoundHeapGrowth(size_t{256} << 20)) _exit(2);
    LogBudget budget(1 << 20);
    absl::StatusOr<LogFile> log = ReadLog(path, budget);
    if (!log.ok()) _exit(3);
    if (log->bytes() != golden + std::string(1, '\0')) _exit(4);
    if (log->file_size() != uint64_t{4} << 30) _exit(6);
    _exit(budget.held() == log->bytes().size() ? 0 : 5);
  });
  ASSERT_TRUE(child.ok()) << std::strerror(errno);
  const ChildEnd end = child.Wait();
  EXPECT_EQ(end.exit_code, 0)
      << end.ToString() << " (" << ForkedChild::kThrew << " or "
      << kHeapBoundExceeded
      << ": out of memory; 2: no bound; 3: not read; 4: other bytes; 5: "
         "other bytes held; 6: another file size)";
}

// Whether `read` (a ReadNow) holds `want`; on a difference, their sizes
// (not the bytes, a log's whole).
::testing::AssertionResult Holds(const absl::StatusOr<std::string>& read,
                                 const std::string& want) {
  if (!read.ok()) return ::testing::AssertionFailure() << read.status();
  if (*read == want) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "read " << read->size() << " bytes, not the " << want.size()
         << " expected";
}

// What is kept after the seal is what the splitter frames there: the next
// record whole, or a length prefix it refuses; a tail shorter than a record
// is the file's end and read whole, as is a log without a seal.
TEST(LogFileTest, AfterTheSealTheNextRecordOrBadPrefixIsKept) {
  const TempDir tmp("log_file");
  ASSERT_TRUE(tmp.ok());
  const std::string golden = GoldenLog();
  ASSERT_GT(golden.size(), log_format::kMagic.size());
  LogBudget budget(1 << 20);
  const std::string record =
      "\x03"
      "abc";
  const std::string junk(3 << 20, 'j');
  EXPECT_TRUE(
      Holds(ReadNow(FileHolding(tmp, "a", golden + record + junk), budget),
            golden + record));
  {
    // Its size known though the rest is not read.
    absl::StatusOr<LogFile> log = ReadLog(tmp.File("a"), budget);
    ASSERT_TRUE(log.ok()) << log.status();
    EXPECT_EQ(log->file_size(), golden.size() + record.size() + junk.size());
  }
  const std::string too_long = "\x80\x80\x80\x80";
  EXPECT_TRUE(
      Holds(ReadNow(FileHolding(tmp, "b", golden + too_long + junk), budget),
            golden + too_long));
  const std::string over_limit = "\x80\x80\x80\x10";  // 32 MiB.
  EXPECT_TRUE(
      Holds(ReadNow(FileHolding(tmp, "c", golden + over_limit + junk), budget),
            golden + over_limit));
  const std::string short_tail = golden +
                                 "\x05"
                                 "ab";
  EXPECT_TRUE(
      Holds(ReadNow(FileHolding(tmp, "d", short_tail), budget), short_tail));
  // Without its seal (its last record) the log is read to its end.
  const std::string unsealed =
      golden.substr(0, SplitLog(golden).records.back().offset) + record + junk;
  EXPECT_TRUE(
      Holds(ReadNow(FileHolding(tmp, "e", unsealed), budget), unsealed));
  EXPECT_EQ(budget.held(), 0u);
}

// A pipe that goes on after the seal (its writer never stops) is read no
// further than the record after the seal.
TEST(LogFileTest, APipeThatGoesOnAfterTheSealIsCutThere) {
  const std::string golden = GoldenLog();
  ASSERT_GT(golden.size(), log_format::kMagic.size());
  LogBudget budget(1 << 20);
  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  std::thread writer([&] {
    // A write once the reader has gone fails (EPIPE) instead of raising
    // SIGPIPE, which is blocked in this thread.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
    std::string bytes = golden;
    while (write(ends[1], bytes.data(), bytes.size()) > 0) {
      bytes.assign(1 << 16, '\0');
    }
    close(ends[1]);
  });
  {
    // How far it went on is not known.
    absl::StatusOr<LogFile> log =
        ReadLog(absl::StrCat("/dev/fd/", ends[0]), budget);
    ASSERT_TRUE(log.ok()) << log.status();
    EXPECT_TRUE(log->bytes() == golden + std::string(1, '\0'))
        << log->bytes().size();
    EXPECT_EQ(log->file_size(), 0u);
  }
  close(ends[0]);
  writer.join();
  EXPECT_EQ(budget.held(), 0u);
}

TEST(LogFileTest, DevicesDirectoriesAndMissingFilesAreRefusedAtOnce) {
  const TempDir tmp("log_file");
  ASSERT_TRUE(tmp.ok());
  LogBudget budget(1 << 20);
  absl::StatusOr<std::string> read = ReadNow("/dev/zero", budget);
  EXPECT_TRUE(absl::IsFailedPrecondition(read.status())) << read.status();
  EXPECT_EQ(read.status().message(),
            "cannot read /dev/zero: it is not a regular file (a character "
            "device)");
  read = ReadNow(tmp.path(), budget);
  EXPECT_TRUE(absl::IsFailedPrecondition(read.status())) << read.status();
  EXPECT_EQ(read.status().message(),
            absl::StrCat("cannot read ", tmp.path(), ": it is a directory"));
  read = ReadNow(tmp.File("missing"), budget);
  EXPECT_TRUE(absl::IsNotFound(read.status())) << read.status();
  EXPECT_EQ(read.status().message(),
            absl::StrCat("cannot open ", tmp.File("missing"),
                         ": No such file or directory"));
  EXPECT_EQ(budget.held(), 0u);
}

TEST(LogFileTest, APipeIsReadToItsEndUnlessItIsNotALog) {
  const TempDir tmp("log_file");
  ASSERT_TRUE(tmp.ok());
  LogBudget budget(1 << 20);
  // A log through a pipe: read whole, the magic included.
  const std::string bytes = LogOf(std::string(100000, 'y'));
  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  std::thread writer([&] {
    EXPECT_EQ(write(ends[1], bytes.data(), bytes.size()),
              static_cast<ssize_t>(bytes.size()));
    close(ends[1]);
  });
  const std::string name = absl::StrCat("/dev/fd/", ends[0]);
  EXPECT_EQ(*ReadNow(name, budget), bytes);
  writer.join();
  close(ends[0]);

  // A pipe that is not a log and never ends (its writer keeps it open):
  // refused at its first bytes, without waiting for more.
  ASSERT_EQ(pipe(ends), 0);
  ASSERT_EQ(write(ends[1], "NOTALOG!", 8), 8);
  absl::StatusOr<std::string> read =
      ReadNow(absl::StrCat("/dev/fd/", ends[0]), budget);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "NOTALOG!");
  close(ends[1]);
  close(ends[0]);

  // A FIFO with no writer is refused at once; one whose writer wrote a
  // few bytes of the magic and went is read as them.
  const std::string fifo = tmp.File("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  read = ReadNow(fifo, budget);
  EXPECT_TRUE(absl::IsFailedPrecondition(read.status())) << read.status();
  EXPECT_EQ(read.status().message(),
            absl::StrCat("cannot read ", fifo,
                         ": a FIFO or pipe with no writer and nothing in it"));
  {
    const FilledFifo filled(fifo, "PYRL");
    ASSERT_TRUE(filled.ok());
    EXPECT_EQ(*ReadNow(fifo, budget), "PYRL");
  }
  {
    const FilledFifo filled(fifo, LogOf("z"));
    ASSERT_TRUE(filled.ok());
    EXPECT_EQ(*ReadNow(fifo, budget), LogOf("z"));
  }
  EXPECT_EQ(budget.held(), 0u);
}

TEST(LogFileTest, ALogLargerThanTheBudgetIsReadAlone) {
  const TempDir tmp("log_file");
  ASSERT_TRUE(tmp.ok());
  const std::string small = FileHolding(tmp, "small", LogOf("s"));
  const std::string large =
      FileHolding(tmp, "large", LogOf(std::string(100, 'l')));
  LogBudget budget(50);
  absl::StatusOr<LogFile> held = ReadLog(small, budget);
  ASSERT_TRUE(held.ok()) << held.status();
  std::atomic<bool> read{false};
  std::thread reader([&] {
    absl::StatusOr<LogFile> log = ReadLog(large, budget);
    EXPECT_TRUE(log.ok()) << log.status();
    read = true;
    EXPECT_EQ(budget.held(), 108u);  // Alone.
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(read);  // Waits for the small one to go.
  *held = LogFile("", 0, nullptr, 0);
  reader.join();
  EXPECT_TRUE(read);
  EXPECT_EQ(budget.held(), 0u);
}

// A pipe's bytes count as they come: one whose writer is silent, before
// its first byte or after its magic, keeps no log behind it waiting.
TEST(LogFileTest, ASilentPipeKeepsNoLogBehindItWaiting) {
  const TempDir tmp("log_file");
  ASSERT_TRUE(tmp.ok());
  const std::string behind = LogOf("read while the pipe is silent");
  const std::string path = FileHolding(tmp, "b.pyrlog", behind);
  const std::string fifo = tmp.File("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Its writer holds it open and writes nothing yet.
  const int writer = open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(writer, 0);
  LogBudget budget(1 << 20);
  std::future<absl::StatusOr<std::string>> piped = ReadLater(fifo, budget);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // It asks.
  std::future<absl::StatusOr<std::string>> read = ReadLater(path, budget);
  EXPECT_TRUE(DoneSoon(read));

  // Its magic and a few bytes came (and were read), then nothing.
  const std::string first = LogOf("first part, ");
  ASSERT_EQ(write(writer, first.data(), first.size()),
            static_cast<ssize_t>(first.size()));
  int unread = 1;
  for (int i = 0; i < 500 && unread > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(ioctl(writer, FIONREAD, &unread), 0);
  }
  EXPECT_EQ(unread, 0);
  std::future<absl::StatusOr<std::string>> again = ReadLater(path, budget);
  EXPECT_TRUE(DoneSoon(again));
  EXPECT_GT(budget.held(), 0u);  // What came, and a part more.
  EXPECT_LT(budget.held(), budget.bytes());

  ASSERT_EQ(write(writer, "the rest", 8), 8);
  close(writer);
  EXPECT_EQ(piped.get().value_or("?"), first + "the rest");
  EXPECT_EQ(read.get().value_or("?"), behind);
  EXPECT_EQ(again.get().value_or("?"), behind);
  EXPECT_EQ(budget.held(), 0u);
}

// A file's first bytes are judged before its size counts: one that is not
// a log does not wait for room it will never use.
TEST(LogFileTest, ALargeFileThatIsNotALogDoesNotWaitForRoom) {
  const TempDir tmp("log_file");
  ASSERT_TRUE(tmp.ok());
  const std::string sparse = FileHolding(tmp, "sparse", "");
  ASSERT_EQ(truncate(sparse.c_str(), int64_t{1} << 30), 0);
  LogBudget budget(1 << 20);
  budget.Take(budget.bytes());  // Another read's.
  std::future<absl::StatusOr<std::string>> read = ReadLater(sparse, budget);
  const bool judged = DoneSoon(read);
  budget.Give(budget.bytes());
  EXPECT_TRUE(judged);
  EXPECT_EQ(read.get().value_or("?"), std::string(8, '\0'));
  EXPECT_EQ(budget.held(), 0u);
}

// A pipe larger than the budget grows past it only when it is read alone;
// pipes are read one at a time, so two such do not wait on each other.
TEST(LogFileTest, APipeLargerThanTheBudgetIsReadAlone) {
  const TempDir tmp("log_file");
  ASSERT_TRUE(tmp.ok());
  LogBudget budget(64);  // Read in parts of 4 bytes.
  absl::StatusOr<LogFile> held =
      ReadLog(FileHolding(tmp, "small", LogOf("s")), budget);
  ASSERT_TRUE(held.ok()) << held.status();
  const std::string p = tmp.File("p"), q = tmp.File("q");
  ASSERT_EQ(mkfifo(p.c_str(), 0600), 0);
  ASSERT_EQ(mkfifo(q.c_str(), 0600), 0);
  const FilledFifo filled_p(p, LogOf(std::string(100, 'p')));
  const FilledFifo filled_q(q, LogOf(std::string(100, 'q')));
  ASSERT_TRUE(filled_p.ok() && filled_q.ok());
  std::atomic<int> read{0};
  auto reader = [&](const std::string& path, char c) {
    absl::StatusOr<LogFile> log = ReadLog(path, budget);
    ASSERT_TRUE(log.ok()) << log.status();
    EXPECT_EQ(log->bytes(), LogOf(std::string(100, c)));
    EXPECT_EQ(budget.held(), 108u);  // Alone.
    ++read;
  };
  std::thread read_p(reader, p, 'p');
  std::thread read_q(reader, q, 'q');
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(read, 0);  // Waits for the small one to go.
  *held = LogFile("", 0, nullptr, 0);
  read_p.join();
  read_q.join();
  EXPECT_EQ(read, 2);
  EXPECT_EQ(budget.held(), 0u);
}

// The thread that runs `take` (a Take or Grow of `budget`), once it waits
// in it (at most 10 s after its start: a loaded machine may start it
// late): once the budget counts one waiter more than before it started.
// No other thread starts or stops waiting meanwhile (the test's thread
// does not call the budget while it waits here).
std::thread WaitingIn(const LogBudget& budget, std::function<void()> take) {
  const size_t before = budget.waiters();
  std::thread thread(std::move(take));
  auto waiting = [&] { return budget.waiters() > before; };
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!waiting() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(waiting()) << "does not wait in the budget";
  return thread;
}

TEST(LogFileTest, AStreamGrowsAheadOfTheLine) {
  LogBudget budget(10);
  budget.Take(6);  // Another log's.
  budget.BeginStream();
  budget.Take(2);     // The stream's first part.
  budget.Grow(2, 2);  // Fits: at once.
  std::atomic<int> done{0};
  std::thread stream = WaitingIn(budget, [&] {
    budget.Grow(4, 4);  // Does not fit: waits.
    done += 1;          // One atomic step: the two may end at once.
  });
  std::thread take = WaitingIn(budget, [&] {
    budget.Take(1);  // Would fit, but waits for the stream.
    done += 2;
  });
  EXPECT_EQ(done, 0);
  budget.Give(6);
  stream.join();
  take.join();
  EXPECT_EQ(done, 3);
  EXPECT_EQ(budget.held(), 9u);
  budget.Give(1);
  budget.Grow(8, 20);  // Past the budget: nothing else is held.
  EXPECT_EQ(budget.held(), 28u);
  budget.EndStream();
  budget.Give(28);
  budget.BeginStream();  // The next stream.
  budget.EndStream();
  EXPECT_EQ(budget.held(), 0u);
}

TEST(LogFileTest, TheBudgetServesInTurnAndHoldsWhatFits) {
  LogBudget budget(10);
  budget.Take(6);
  budget.Take(4);  // Fits.
  std::atomic<int> taken{0};
  // In turn: the large one asks first (waits in Take), then the small one.
  std::thread large = WaitingIn(budget, [&] {
    budget.Take(20);  // More than the budget: when nothing else is held.
    taken = 1;
    budget.Give(20);
  });
  std::thread small = WaitingIn(budget, [&] {
    budget.Take(1);  // Fits once the large one went, its turn after it.
    taken += 2;
    budget.Give(1);
  });
  EXPECT_EQ(taken, 0);
  budget.Give(6);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(taken, 0);  // 4 still held: the large one waits, and so the small.
  budget.Give(4);
  large.join();
  small.join();
  EXPECT_EQ(taken, 3);
  EXPECT_EQ(budget.held(), 0u);
}

TEST(LogFileTest, ASmallFileIsBoundedAndNeverADevice) {
  const TempDir tmp("log_file");
  ASSERT_TRUE(tmp.ok());
  EXPECT_EQ(*ReadSmallFile(FileHolding(tmp, "proof", "proof text\n")),
            "proof text\n");
  const std::string sparse = FileHolding(tmp, "sparse", "");
  ASSERT_EQ(truncate(sparse.c_str(), int64_t{1} << 30), 0);
  absl::StatusOr<std::string> read = ReadSmallFile(sparse);
  EXPECT_TRUE(absl::IsResourceExhausted(read.status())) << read.status();
  EXPECT_EQ(read.status().message(),
            absl::StrCat("cannot read ", sparse,
                         ": it is 1073741824 bytes, more than 1048576 (not "
                         "read)"));
  read = ReadSmallFile("/dev/zero");
  EXPECT_TRUE(absl::IsFailedPrecondition(read.status())) << read.status();
}

}  // namespace
}  // namespace pyramid
