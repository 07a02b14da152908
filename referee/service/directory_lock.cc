#include "referee/service/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace pyramid {
namespace {

// How many times Acquire opens DIR/lock again when the file it locked was
// removed or replaced meanwhile (each time another process did so between
// an open and a flock: never more than a few in practice).
constexpr int kMaxAttempts = 100;

// The pid the holder wrote into the lock file, or "" when unreadable.
std::string HolderOf(int fd) {
  char buffer[32] = {};
  const ssize_t n = pread(fd, buffer, sizeof(buffer) - 1, 0);
  if (n <= 0) return "";
  return std::string(absl::StripAsciiWhitespace(buffer));
}

}  // namespace

absl::StatusOr<DirectoryLock> DirectoryLock::Acquire(
    const std::string& dir, const std::function<void()>& after_open) {
  const std::string path = dir + "/lock";
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
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      const std::string holder = HolderOf(fd);
      close(fd);
      if (error == EWOULDBLOCK) {
        return absl::FailedPreconditionError(absl::StrCat(
            dir, " is in use by another process",
            holder.empty() ? "" : absl::StrCat(" (pid ", holder, ")")));
      }
      return absl::FailedPreconditionError(
          absl::StrCat("cannot lock ", path, ": ", std::strerror(error)));
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
