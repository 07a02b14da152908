#include "referee/service/directory_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/forked_child.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The contents of the file at `path` ("" when unreadable).
std::string Contents(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A pid that has ended here: a child's, reaped.
pid_t EndedPid() {
  ForkedChild child([](int) {});
  child.Wait();
  return child.pid();
}

class DirectoryLockTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(dir_.ok()); }

  // Forks a holder that takes the lock, forks a child that shares its open
  // file and outlives it by `child_lifetime` (as one not yet at its exec
  // would), and ends. Returns the holder once it has ended, having taken
  // the lock, unreaped (a zombie) unless `reap`; nullptr on failure.
  std::unique_ptr<ForkedChild> EndHolderLeavingTheLockWithItsChild(
      absl::Duration child_lifetime, bool reap) {
    auto holder = std::make_unique<ForkedChild>([&](int) {
      absl::StatusOr<DirectoryLock> lock = DirectoryLock::Acquire(dir_.path());
      if (!lock.ok()) _exit(1);
      if (fork() == 0) {
        absl::SleepFor(child_lifetime);
        _exit(0);
      }
      _exit(0);  // Ends, leaving the lock with its child.
    });
    const ChildEnd end = reap ? holder->Wait() : holder->WaitLeavingAZombie();
    if (end.exit_code != 0) return nullptr;
    return holder;
  }

  TempDir dir_{"lock"};
};

// One holder at a time. The refusal names the holder, and, since a holder
// running here may be one stopping (a referee's SIGTERM takes seconds),
// says how to wait for it to exit.
TEST_F(DirectoryLockTest, OneHolderAtATimeNamedWithHowToWaitForIt) {
  std::optional<absl::StatusOr<DirectoryLock>> first =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_TRUE(first->ok()) << first->status();
  const absl::StatusOr<DirectoryLock> second =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(
      second.status().message(),
      absl::StrCat(dir_.path(), " is in use by another process (pid ", getpid(),
                   "); if it is stopping (SIGTERM), wait for it to "
                   "exit: `while kill -0 ",
                   getpid(), " 2>/dev/null; do sleep 0.2; done`"));
  first.reset();  // Released: the next one takes it.
  EXPECT_TRUE(DirectoryLock::Acquire(dir_.path()).ok());
}

TEST_F(DirectoryLockTest, AMissingDirectoryIsAnError) {
  const absl::StatusOr<DirectoryLock> lock =
      DirectoryLock::Acquire(dir_.File("missing"));
  ASSERT_FALSE(lock.ok());
  EXPECT_THAT(lock.status().message(), HasSubstr("cannot open"));
}

// A holder killed with SIGKILL leaves no stale lock: the restart takes it.
TEST_F(DirectoryLockTest, AHolderKilledBySigkillReleasesIt) {
  // Killed and reaped on every way out of the test, a failed assertion's
  // too (forked_child.h).
  ForkedChild child([&](int report) {
    absl::StatusOr<DirectoryLock> lock = DirectoryLock::Acquire(dir_.path());
    const char byte = lock.ok() ? '1' : '0';
    if (write(report, &byte, 1) != 1) _exit(1);
    while (true) pause();  // Holds the lock until killed.
  });
  ASSERT_TRUE(child.ok());
  ASSERT_EQ(child.Read(1), "1") << "the child could not take the lock";
  const absl::StatusOr<DirectoryLock> refused =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(),
              HasSubstr(absl::StrCat("(pid ", child.pid(), ")")));
  ASSERT_TRUE(child.Kill(SIGKILL));
  const ChildEnd end = child.Wait();
  ASSERT_EQ(end.signal, SIGKILL) << end.ToString();
  const absl::StatusOr<DirectoryLock> taken =
      DirectoryLock::Acquire(dir_.path());
  EXPECT_TRUE(taken.ok()) << taken.status();
}

// A holder that ends while a child it forked has not yet exec'd (killed
// between the tournament runner's vfork and a bot's execve) leaves the lock
// with the child for moments: the restart waits for it instead of refusing.
TEST_F(DirectoryLockTest, AHolderEndedWhileItsChildHoldsTheLockIsWaitedFor) {
  ASSERT_NE(EndHolderLeavingTheLockWithItsChild(absl::Milliseconds(300),
                                                /*reap=*/true),
            nullptr);
  const absl::StatusOr<DirectoryLock> taken =
      DirectoryLock::Acquire(dir_.path());
  EXPECT_TRUE(taken.ok()) << taken.status();
}

// Killed but not yet reaped by its parent (or still exiting), the holder is
// a zombie, which kill(pid, 0) still finds: it has ended all the same.
TEST_F(DirectoryLockTest, AZombieHolderIsWaitedFor) {
  // Reaped when the test ends.
  const std::unique_ptr<ForkedChild> zombie =
      EndHolderLeavingTheLockWithItsChild(absl::Milliseconds(500),
                                          /*reap=*/false);
  ASSERT_NE(zombie, nullptr);
  const absl::StatusOr<DirectoryLock> taken =
      DirectoryLock::Acquire(dir_.path());
  EXPECT_TRUE(taken.ok()) << taken.status();
}

// A pid recorded in another pid namespace (a container sharing the
// directory), on another boot or host, or by a holder that recorded no
// namespace, means nothing here: a healthy holder there may hold the lock.
// It is refused at once, not waited for as ended, and not called ended.
TEST_F(DirectoryLockTest, AHolderFromElsewhereIsRefusedAtOnce) {
  // This process's own record, as a holder writes it.
  std::optional<absl::StatusOr<DirectoryLock>> own =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_TRUE(own->ok()) << own->status();
  own.reset();
  const std::string record = Contents(dir_.File("lock"));
  const std::vector<std::string> lines = absl::StrSplit(record, '\n');
  ASSERT_GE(lines.size(), 2u) << record;
  const std::vector<std::string> identity = absl::StrSplit(lines[1], " pidns ");
  ASSERT_EQ(identity.size(), 2u) << lines[1];
  ASSERT_THAT(identity[0], ::testing::StartsWith("boot "));

  const pid_t ended = EndedPid();
  for (const std::string& elsewhere :
       {absl::StrCat(identity[0], " pidns 0:0\n"),
        absl::StrCat("boot 00000000-0000-0000-0000-000000000000 pidns ",
                     identity[1], "\n"),
        std::string()}) {
    SCOPED_TRACE(elsewhere.empty() ? "no second line" : elsewhere);
    const int fd = open(dir_.File("lock").c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    absl::Cleanup close_fd = [fd] { close(fd); };
    const std::string text = absl::StrCat(ended, "\n", elsewhere);
    ASSERT_EQ(ftruncate(fd, 0), 0);
    ASSERT_EQ(pwrite(fd, text.data(), text.size(), 0),
              static_cast<ssize_t>(text.size()));
    ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
    const absl::Time start = absl::Now();
    const absl::StatusOr<DirectoryLock> refused =
        DirectoryLock::Acquire(dir_.path());
    // Waited for, it would be refused after 5 s.
    EXPECT_LT(absl::Now() - start, absl::Seconds(2));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(
        refused.status().message(),
        HasSubstr(absl::StrCat(
            dir_.path(), " is in use by another process (pid ", ended, ")")));
  }
}

// CheckLostLogs's lock: shared with other readers, against writers.
TEST_F(DirectoryLockTest, SharedHoldersShareItAgainstExclusiveOnes) {
  std::optional<absl::StatusOr<DirectoryLock>> exclusive =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_TRUE(exclusive->ok()) << exclusive->status();
  const absl::StatusOr<DirectoryLock> refused =
      DirectoryLock::AcquireShared(dir_.path());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(
      refused.status().message(),
      HasSubstr(absl::StrCat(dir_.path(), " is in use by another process (pid ",
                             getpid(), ")")));
  exclusive.reset();

  const std::string before = Contents(dir_.File("lock"));
  ASSERT_FALSE(before.empty());
  std::optional<absl::StatusOr<DirectoryLock>> first =
      DirectoryLock::AcquireShared(dir_.path());
  ASSERT_TRUE(first->ok()) << first->status();
  const absl::StatusOr<DirectoryLock> second =
      DirectoryLock::AcquireShared(dir_.path());
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(Contents(dir_.File("lock")), before)
      << "a shared holder wrote the lock file";
  const absl::StatusOr<DirectoryLock> writer =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(writer.status().message(),
              HasSubstr(absl::StrCat(dir_.path(),
                                     " is in use by another process (held "
                                     "shared: a process reads it)")));
}

// A shared holder records nothing: the pid in the file is the last
// exclusive holder's, ended. An exclusive lock refused by the shared holder
// is refused at once, not waited for as the child of that ended holder.
TEST_F(DirectoryLockTest, AnExclusiveLockRefusedByASharedOneDoesNotWait) {
  ASSERT_NE(EndHolderLeavingTheLockWithItsChild(absl::ZeroDuration(),
                                                /*reap=*/true),
            nullptr);
  // The child lets go soon after its parent ends.
  absl::StatusOr<DirectoryLock> reader =
      DirectoryLock::AcquireShared(dir_.path());
  ASSERT_TRUE(reader.ok()) << reader.status();
  const absl::Time start = absl::Now();
  const absl::StatusOr<DirectoryLock> writer =
      DirectoryLock::Acquire(dir_.path());
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  ASSERT_FALSE(writer.ok());
  EXPECT_THAT(writer.status().message(), HasSubstr("held shared"));
  EXPECT_THAT(writer.status().message(), Not(HasSubstr("has ended")));
}

// The runner checking lost logs after a SIGKILL waits, as a restart does.
TEST_F(DirectoryLockTest, ASharedLockWaitsForAnEndedHoldersChild) {
  ASSERT_NE(EndHolderLeavingTheLockWithItsChild(absl::Milliseconds(300),
                                                /*reap=*/true),
            nullptr);
  const absl::StatusOr<DirectoryLock> taken =
      DirectoryLock::AcquireShared(dir_.path());
  EXPECT_TRUE(taken.ok()) << taken.status();
}

TEST_F(DirectoryLockTest, ASharedLockNeedsALockFile) {
  const absl::StatusOr<DirectoryLock> lock =
      DirectoryLock::AcquireShared(dir_.path());
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(access(dir_.File("lock").c_str(), F_OK), -1)
      << "a shared lock created the lock file";
}

// A holder may remove the lock file before it lets go (a referee that fails
// to start removes the one it created): the next Acquire takes a fresh file,
// and that one is held against the others.
TEST_F(DirectoryLockTest, AHolderThatRemovesTheFileLeavesOneHolderAtATime) {
  std::optional<absl::StatusOr<DirectoryLock>> first =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_TRUE(first->ok()) << first->status();
  ASSERT_EQ(unlink(dir_.File("lock").c_str()), 0);
  first.reset();
  const absl::StatusOr<DirectoryLock> second =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_TRUE(second.ok()) << second.status();
  const absl::StatusOr<DirectoryLock> third =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_FALSE(third.ok());
  EXPECT_THAT(third.status().message(), HasSubstr("is in use"));
}

// The race: an Acquire opens the lock file just before its holder removes
// it and lets go, and locks it just after. That lock, on a file no longer
// named, must not be reported as held: the Acquire locks the file created
// again instead, so that a later Acquire (which would create and lock a
// fresh one) is refused.
TEST_F(DirectoryLockTest, ALockTakenOnARemovedFileIsNotHeld) {
  std::optional<absl::StatusOr<DirectoryLock>> first =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_TRUE(first->ok()) << first->status();
  int opens = 0;
  const absl::StatusOr<DirectoryLock> second =
      DirectoryLock::Acquire(dir_.path(), [&] {
        if (++opens > 1) return;
        // Between this Acquire's open and its flock, the holder removes the
        // file and lets go.
        ASSERT_EQ(unlink(dir_.File("lock").c_str()), 0);
        first.reset();
      });
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(opens, 2);  // Opened again after locking the removed file.
  const absl::StatusOr<DirectoryLock> third =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_FALSE(third.ok()) << "two holders of one directory";
  EXPECT_THAT(third.status().message(), HasSubstr("is in use"));
}

// A file replaced (not only removed) between the open and the flock is
// likewise let go; a file replaced at every attempt ends in an error, not
// in a lock on a file no longer named.
TEST_F(DirectoryLockTest, AFileReplacedAtEveryAttemptIsAnError) {
  const std::string path = dir_.File("lock");
  int opens = 0;
  const absl::StatusOr<DirectoryLock> lock =
      DirectoryLock::Acquire(dir_.path(), [&] {
        ++opens;
        ASSERT_EQ(unlink(path.c_str()), 0);
        const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        ASSERT_GE(fd, 0);
        close(fd);
      });
  ASSERT_FALSE(lock.ok());
  EXPECT_THAT(lock.status().message(), HasSubstr("removed or replaced"));
  EXPECT_GT(opens, 1);
  // Left alone, the file is locked.
  EXPECT_TRUE(DirectoryLock::Acquire(dir_.path()).ok());
}

}  // namespace
}  // namespace pyramid
