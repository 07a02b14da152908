// One process at a time per data directory. Two referees on one DATA_DIR
// would both resume its running matches and append to the same logs, and
// both write its registry and transparency log (two tournaments on one
// directory, likewise): a second one must refuse to start instead.
//
// The lock is an flock(2) on DIR/lock, held while the DirectoryLock lives.
// The kernel releases it when the process ends in any way, SIGKILL
// included, and every child the process forked has exec'd or ended (a
// child between fork and exec shares the lock's open file until O_CLOEXEC
// closes it: the tournament runner starts bots so). A restart after a crash
// therefore never finds a stale lock: Acquire waits up to 5 seconds for a
// lock whose recorded holder has ended. The file stays (unless its holder
// removes it), holding the pid of the last holder for the message a
// refused process prints.
#ifndef PYRAMID_REFEREE_SERVICE_DIRECTORY_LOCK_H_
#define PYRAMID_REFEREE_SERVICE_DIRECTORY_LOCK_H_

#include <functional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace pyramid {

class DirectoryLock {
 public:
  // Locks `dir`, which must exist. FAILED_PRECONDITION, naming the holder's
  // pid, while another process (or another DirectoryLock of this process)
  // holds it, after waiting up to 5 seconds when that pid has ended (a
  // child of it still holds the lock: "pid N, which has ended: a process
  // it started holds the lock"); another error when DIR/lock cannot be
  // created or locked.
  //
  // The lock taken is on the file DIR/lock names once it is held: a holder
  // may remove DIR/lock before it lets go (a referee that fails to start
  // removes the lock file it created), and a lock taken on the removed file
  // would let a later process create and lock a fresh one beside it. Such a
  // lock is let go and the file opened again (a bounded number of times).
  //
  // `after_open` (tests only) runs after each open of DIR/lock, before it
  // is locked: where another process may remove or replace the file.
  static absl::StatusOr<DirectoryLock> Acquire(
      const std::string& dir, const std::function<void()>& after_open = {});

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
