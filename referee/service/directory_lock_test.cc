#include "referee/service/directory_lock.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <string>

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
  ASSERT_TRUE(WIFSIGNALED(status));
  const absl::StatusOr<DirectoryLock> taken =
      DirectoryLock::Acquire(dir_.path());
  EXPECT_TRUE(taken.ok()) << taken.status();
}

}  // namespace
}  // namespace pyramid
