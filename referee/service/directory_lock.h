// One process at a time per data directory. Two referees on one DATA_DIR
// would both resume its running matches and append to the same logs, and
// both write its registry and transparency log (two tournaments on one
// directory, likewise): a second one must refuse to start instead.
//
// The lock is an flock(2) on DIR/lock, held while the DirectoryLock lives.
// The kernel releases it when the process ends in any way, SIGKILL
// included, and every child the process forked has exec'd or ended (a
// child between fork and exec shares the lock's open file until O_CLOEXEC
// closes it: the tournament runner starts bots so). Such a child holds it
// for moments: a lock waits up to 5 seconds for one whose recorded holder
// has ended, and takes it when the child lets go within that time. Whether
// the holder has ended is known only when it recorded the same pid
// namespace on the same boot as the one waiting (a holder in another
// container sharing the directory, on another host, or before a reboot
// recorded a pid that means nothing here): any other holder is refused at
// once.
//
// The file stays (unless its holder removes it), holding what the last
// exclusive holder recorded, for the message a refused process prints and
// its wait:
//   PID                        its pid, in its own pid namespace
//   boot BOOT_ID pidns DEV:INO /proc/sys/kernel/random/boot_id, and the
//                              st_dev:st_ino of /proc/self/ns/pid
// (the second line is missing when /proc did not tell, and in files written
// before it was added). Shared holders write nothing.
#ifndef PYRAMID_REFEREE_SERVICE_DIRECTORY_LOCK_H_
#define PYRAMID_REFEREE_SERVICE_DIRECTORY_LOCK_H_

#include <functional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace pyramid {

class DirectoryLock {
 public:
  // Locks `dir`, which must exist, exclusively. FAILED_PRECONDITION while
  // another process (or another DirectoryLock of this process) holds it:
  // naming the recorded holder's pid ("(pid N)") when it holds it
  // exclusively, after waiting up to 5 seconds when that pid has ended
  // (see above; then a child of it still holds the lock: "(pid N, which
  // has ended: a process it started holds the lock)"); at once, without a
  // pid, when it is held shared. A pid known to be running here adds how
  // to wait for it, should it be stopping ("(pid N); if it is stopping
  // (SIGTERM), wait for it to exit: `while kill -0 N 2>/dev/null; do sleep
  // 0.2; done`"). Another error when DIR/lock cannot be
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

  // Locks `dir` shared: with other shared holders, against exclusive ones
  // (to read the directory while no one writes it). Opens DIR/lock
  // read-only and writes nothing: NOT_FOUND when there is no DIR/lock (no
  // one has locked `dir`, or its last holder removed the file).
  // FAILED_PRECONDITION while an exclusive holder holds it, with Acquire's
  // message and after Acquire's wait for an ended holder; the lock is on
  // the file DIR/lock names, as Acquire's.
  static absl::StatusOr<DirectoryLock> AcquireShared(const std::string& dir);

  DirectoryLock(DirectoryLock&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)) {}
  DirectoryLock& operator=(DirectoryLock&& other) noexcept;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  // Releases the lock (this holder's part of it, when shared).
  ~DirectoryLock();

 private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_DIRECTORY_LOCK_H_
