#include "referee/service/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace pyramid {
namespace {

// The pid the holder wrote into the lock file, or "" when unreadable.
std::string HolderOf(int fd) {
  char buffer[32] = {};
  const ssize_t n = pread(fd, buffer, sizeof(buffer) - 1, 0);
  if (n <= 0) return "";
  return std::string(absl::StripAsciiWhitespace(buffer));
}

}  // namespace

absl::StatusOr<DirectoryLock> DirectoryLock::Acquire(const std::string& dir) {
  const std::string path = dir + "/lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
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
  // Only the holder writes: the pid of this process, for the message above
  // (the lock holds without it).
  const std::string pid = absl::StrCat(getpid(), "\n");
  const bool written =
      ftruncate(fd, 0) == 0 &&
      pwrite(fd, pid.data(), pid.size(), 0) == static_cast<ssize_t>(pid.size());
  static_cast<void>(written);
  return DirectoryLock(fd);
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
