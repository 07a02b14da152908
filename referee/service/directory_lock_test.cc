#include "referee/service/directory_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

using ::testing::HasSubstr;

class DirectoryLockTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(dir_.ok()); }
  TempDir dir_{"lock"};
};

TEST_F(DirectoryLockTest, OneHolderAtATimeNamedToTheOthers) {
  std::optional<absl::StatusOr<DirectoryLock>> first =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_TRUE(first->ok()) << first->status();
  const absl::StatusOr<DirectoryLock> second =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(
      second.status().message(),
      HasSubstr(absl::StrCat(dir_.path(), " is in use by another process (pid ",
                             getpid(), ")")));
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
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    absl::StatusOr<DirectoryLock> lock = DirectoryLock::Acquire(dir_.path());
    const char byte = lock.ok() ? '1' : '0';
    if (write(ready[1], &byte, 1) != 1) _exit(1);
    while (true) pause();  // Holds the lock until killed.
  }
  // Killed and reaped on every way out of the test, a failed assertion's
  // too: a child left in pause() would hold the test's output open.
  bool reaped = false;
  absl::Cleanup kill_child = [child, &reaped] {
    if (reaped) return;
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
  };
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  ASSERT_EQ(byte, '1') << "the child could not take the lock";
  const absl::StatusOr<DirectoryLock> refused =
      DirectoryLock::Acquire(dir_.path());
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(),
              HasSubstr(absl::StrCat("(pid ", child, ")")));
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  reaped = true;
  ASSERT_TRUE(WIFSIGNALED(status));
  const absl::StatusOr<DirectoryLock> taken =
      DirectoryLock::Acquire(dir_.path());
  EXPECT_TRUE(taken.ok()) << taken.status();
}

// A holder that ends while a child it forked has not yet exec'd (killed
// between the tournament runner's vfork and a bot's execve) leaves the lock
// with the child for moments: the restart waits for it instead of refusing.
TEST_F(DirectoryLockTest, AHolderEndedWhileItsChildHoldsTheLockIsWaitedFor) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t holder = fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {
    close(ready[0]);
    absl::StatusOr<DirectoryLock> lock = DirectoryLock::Acquire(dir_.path());
    if (!lock.ok()) _exit(1);
    // The child shares the lock's open file and outlives its parent by
    // 300 ms, as one not yet at its exec would.
    if (fork() == 0) {
      usleep(300'000);
      _exit(0);
    }
    const char byte = '1';
    if (write(ready[1], &byte, 1) != 1) _exit(1);
    _exit(0);  // Ends, leaving the lock with its child.
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  int status = 0;
  ASSERT_EQ(waitpid(holder, &status, 0), holder);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const absl::StatusOr<DirectoryLock> taken =
      DirectoryLock::Acquire(dir_.path());
  EXPECT_TRUE(taken.ok()) << taken.status();
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
