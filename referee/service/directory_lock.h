// One process at a time per data directory. Two referees on one DATA_DIR
// would both resume its running matches and append to the same logs, and
// both write its registry and transparency log (two tournaments on one
// directory, likewise): a second one must refuse to start instead.
//
// The lock is an flock(2) on DIR/lock, held while the DirectoryLock lives.
// The kernel releases it when the process ends in any way, SIGKILL
// included, so a restart after a crash never finds a stale lock; the file
// stays, holding the pid of the last holder for the message a refused
// process prints.
#ifndef PYRAMID_REFEREE_SERVICE_DIRECTORY_LOCK_H_
#define PYRAMID_REFEREE_SERVICE_DIRECTORY_LOCK_H_

#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace pyramid {

class DirectoryLock {
 public:
  // Locks `dir`, which must exist. FAILED_PRECONDITION, naming the holder's
  // pid, while another process (or another DirectoryLock of this process)
  // holds it; another error when DIR/lock cannot be created or locked.
  static absl::StatusOr<DirectoryLock> Acquire(const std::string& dir);

  DirectoryLock(DirectoryLock&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)) {}
  DirectoryLock& operator=(DirectoryLock&& other) noexcept;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  // Releases the lock.
  ~DirectoryLock();

 private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_DIRECTORY_LOCK_H_
