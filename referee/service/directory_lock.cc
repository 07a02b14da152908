#include "referee/service/directory_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace pyramid {
namespace {

// How many times Acquire opens DIR/lock again when the file it locked was
// removed or replaced meanwhile (each time another process did so between
// an open and a flock: never more than a few in practice).
constexpr int kMaxAttempts = 100;

// How long Acquire waits for a lock whose recorded holder has ended: a
// child it started between fork and exec still holds the lock's open file
// (O_CLOEXEC closes it only at the exec), for moments.
constexpr absl::Duration kDeadHolderWait = absl::Seconds(5);

// The pid the holder wrote into the lock file, or "" when unreadable.
std::string HolderOf(int fd) {
  char buffer[32] = {};
  const ssize_t n = pread(fd, buffer, sizeof(buffer) - 1, 0);
  if (n <= 0) return "";
  return std::string(absl::StripAsciiWhitespace(buffer));
}

// Whether `holder` (HolderOf's) names a process that no longer exists.
bool HolderEnded(const std::string& holder) {
  int pid = 0;
  if (!absl::SimpleAtoi(holder, &pid) || pid <= 0) return false;
  return kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace

absl::StatusOr<DirectoryLock> DirectoryLock::Acquire(
    const std::string& dir, const std::function<void()>& after_open) {
  const std::string path = dir + "/lock";
  const absl::Time give_up = absl::Now() + kDeadHolderWait;
  for (int attempt = 0;; ++attempt) {
    if (attempt == kMaxAttempts) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot lock ", path, ": it was removed or replaced ",
                       kMaxAttempts, " times while being locked"));
    }
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
    }
    if (after_open) after_open();
    bool holder_ended = false;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      const std::string holder = HolderOf(fd);
      close(fd);
      if (error == EWOULDBLOCK && HolderEnded(holder) &&
          absl::Now() < give_up) {
        // A holder that ended, killed perhaps, while a child it had just
        // forked was yet to exec: the child lets go at its exec or exit.
        holder_ended = true;
        break;
      }
      if (error == EWOULDBLOCK) {
        return absl::FailedPreconditionError(absl::StrCat(
            dir, " is in use by another process",
            holder.empty() ? ""
            : HolderEnded(holder)
                ? absl::StrCat(" (pid ", holder,
                               ", which has ended: a process it started "
                               "holds the lock)")
                : absl::StrCat(" (pid ", holder, ")")));
      }
      return absl::FailedPreconditionError(
          absl::StrCat("cannot lock ", path, ": ", std::strerror(error)));
    }
    if (holder_ended) {
      absl::SleepFor(absl::Milliseconds(10));
      --attempt;  // Not a file removed or replaced.
      continue;
    }
    // The file locked must still be the one `path` names: its holder may
    // have removed it (or another process replaced it) between the open and
    // the flock, and a lock on a file no longer named locks out no one.
    struct stat locked, named;
    if (fstat(fd, &locked) != 0) {
      const int error = errno;
      close(fd);
      return absl::FailedPreconditionError(
          absl::StrCat("cannot stat ", path, ": ", std::strerror(error)));
    }
    if (stat(path.c_str(), &named) != 0) {
      const int error = errno;
      close(fd);
      if (error == ENOENT) continue;  // Removed: create it again.
      return absl::FailedPreconditionError(
          absl::StrCat("cannot stat ", path, ": ", std::strerror(error)));
    }
    if (locked.st_dev != named.st_dev || locked.st_ino != named.st_ino) {
      close(fd);
      continue;  // Replaced: lock the new one.
    }
    // Only the holder writes: the pid of this process, for the message a
    // refused Acquire prints (the lock holds without it).
    const std::string pid = absl::StrCat(getpid(), "\n");
    const bool written =
        ftruncate(fd, 0) == 0 && pwrite(fd, pid.data(), pid.size(), 0) ==
                                     static_cast<ssize_t>(pid.size());
    static_cast<void>(written);
    return DirectoryLock(fd);
  }
}

DirectoryLock& DirectoryLock::operator=(DirectoryLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) close(fd_);  // Releases the flock.
}

}  // namespace pyramid
