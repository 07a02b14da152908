#include "referee/service/directory_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "referee/core/log_sink.h"

namespace pyramid {
namespace {

// How many times a lock opens DIR/lock again when the file it locked was
// removed or replaced meanwhile (each time another process did so between
// an open and a flock: never more than a few in practice).
constexpr int kMaxAttempts = 100;

// How long a lock waits for a lock whose recorded holder has ended: a child
// it started between fork and exec still holds the lock's open file
// (O_CLOEXEC closes it only at the exec), for moments.
constexpr absl::Duration kDeadHolderWait = absl::Seconds(5);

// The small /proc file at `path` (core's ReadFileToString, bounded), or ""
// when it cannot be read: its process gone, or no /proc.
std::string ProcFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path, 4096);
  return text.ok() ? *std::move(text) : "";
}

// What identifies this process's pid namespace on this boot, as the lock
// file's second line records it ("boot BOOT_ID pidns DEV:INO"), or "" when
// /proc does not tell. Two processes with one identity see the same pids.
std::string Identity() {
  const std::string boot_id(
      absl::StripAsciiWhitespace(ProcFile("/proc/sys/kernel/random/boot_id")));
  struct stat ns;
  if (boot_id.empty() || stat("/proc/self/ns/pid", &ns) != 0) return "";
  return absl::StrCat("boot ", boot_id, " pidns ", ns.st_dev, ":", ns.st_ino);
}

// What the lock file says of its last exclusive holder.
struct Holder {
  std::string pid;       // The first line; "" when unreadable.
  std::string identity;  // The second line (Identity()); "" when none.
};

Holder HolderOf(int fd) {
  char buffer[256] = {};
  const ssize_t n = pread(fd, buffer, sizeof(buffer) - 1, 0);
  if (n <= 0) return {};
  const std::vector<absl::string_view> lines =
      absl::StrSplit(absl::string_view(buffer, n), '\n');
  Holder holder;
  holder.pid = std::string(absl::StripAsciiWhitespace(lines[0]));
  if (lines.size() > 1) {
    holder.identity = std::string(absl::StripAsciiWhitespace(lines[1]));
  }
  return holder;
}

// Whether process `pid` has exited, reaped or not: a zombie (Z) or one
// being removed (X) holds nothing of its own any more, though kill(pid, 0)
// still finds it. The state is the field after the parenthesised command
// name, which may itself hold ')': the last one ends it.
bool Exited(int pid) {
  const std::string stat = ProcFile(absl::StrCat("/proc/", pid, "/stat"));
  const size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos || name_end + 2 >= stat.size()) {
    return false;  // Unreadable: taken as alive, as before this was read.
  }
  const char state = stat[name_end + 2];
  return state == 'Z' || state == 'X';
}

// What is known of the process `holder` names.
enum class HolderState {
  kUnknown,  // No pid, or one recorded where it names another process.
  kRunning,  // Found, not a zombie (or its state unreadable).
  kEnded,
};

// The state of `holder`'s process. Known only for a holder that recorded
// `identity` (non-empty), the caller's: a pid recorded in another pid
// namespace, on another boot or host, names another process here, or none.
HolderState StateOf(const Holder& holder, const std::string& identity) {
  if (identity.empty() || holder.identity != identity) {
    return HolderState::kUnknown;
  }
  int pid = 0;
  if (!absl::SimpleAtoi(holder.pid, &pid) || pid <= 0) {
    return HolderState::kUnknown;
  }
  if (kill(pid, 0) != 0 && errno == ESRCH) return HolderState::kEnded;
  // Found (or EPERM: found, another user's).
  return Exited(pid) ? HolderState::kEnded : HolderState::kRunning;
}

// The refusal of a lock on `dir` that another process holds. A running
// holder may be one stopping (a referee's SIGTERM takes seconds): the
// refusal says how to wait for it.
absl::Status InUse(const std::string& dir, const Holder& holder,
                   bool held_shared, HolderState state) {
  std::string who;
  if (held_shared) {
    // Shared holders record nothing: the pid in the file is an earlier
    // exclusive holder's.
    who = " (held shared: a process reads it)";
  } else if (state == HolderState::kEnded) {
    who = absl::StrCat(" (pid ", holder.pid,
                       ", which has ended: a process it started holds the "
                       "lock)");
  } else if (state == HolderState::kRunning) {
    who = absl::StrCat(" (pid ", holder.pid,
                       "); if it is stopping (SIGTERM), wait for it to exit: "
                       "`while kill -0 ",
                       holder.pid, " 2>/dev/null; do sleep 0.2; done`");
  } else if (!holder.pid.empty()) {
    who = absl::StrCat(" (pid ", holder.pid, ")");
  }
  return absl::FailedPreconditionError(
      absl::StrCat(dir, " is in use by another process", who));
}

// Acquire and AcquireShared: the open file description of DIR/lock, locked.
absl::StatusOr<int> Lock(const std::string& dir, bool shared,
                         const std::function<void()>& after_open) {
  const std::string path = dir + "/lock";
  const std::string identity = Identity();
  const absl::Time give_up = absl::Now() + kDeadHolderWait;
  for (int attempt = 0;; ++attempt) {
    if (attempt == kMaxAttempts) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot lock ", path, ": it was removed or replaced ",
                       kMaxAttempts, " times while being locked"));
    }
    const int fd = shared
                       ? open(path.c_str(), O_RDONLY | O_CLOEXEC)
                       : open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (shared && errno == ENOENT) {
        return absl::NotFoundError(absl::StrCat(
            "cannot lock ", path, ": there is none (", dir,
            " has never been locked, or its last holder removed it)"));
      }
      return absl::FailedPreconditionError(
          absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
    }
    if (after_open) after_open();
    int error = 0;
    while (flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      error = errno;
      break;
    }
    if (error == EWOULDBLOCK) {
      // Held exclusively, by the holder the file records (or a child it
      // forked), unless shared holders (who record nothing) refuse an
      // exclusive lock: then a shared lock is granted.
      const bool held_shared = !shared && flock(fd, LOCK_SH | LOCK_NB) == 0;
      const Holder holder = HolderOf(fd);
      close(fd);
      const HolderState state =
          held_shared ? HolderState::kUnknown : StateOf(holder, identity);
      if (state == HolderState::kEnded && absl::Now() < give_up) {
        // A holder that ended, killed perhaps, while a child it had just
        // forked was yet to exec: the child lets go at its exec or exit.
        absl::SleepFor(absl::Milliseconds(10));
        --attempt;  // Not a file removed or replaced.
        continue;
      }
      return InUse(dir, holder, held_shared, state);
    }
    if (error != 0) {
      close(fd);
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
      // Removed: created again (or, shared, found missing).
      if (error == ENOENT) continue;
      return absl::FailedPreconditionError(
          absl::StrCat("cannot stat ", path, ": ", std::strerror(error)));
    }
    if (locked.st_dev != named.st_dev || locked.st_ino != named.st_ino) {
      close(fd);
      continue;  // Replaced: lock the new one.
    }
    if (!shared) {
      // Only an exclusive holder writes: its pid and identity, for the
      // message (and the wait) of a refused lock; the lock holds without
      // them. Written over the old ones, then cut to length: a reader never
      // finds the file empty, and lines past the second are not read.
      std::string record = absl::StrCat(getpid(), "\n");
      if (!identity.empty()) absl::StrAppend(&record, identity, "\n");
      const bool written = pwrite(fd, record.data(), record.size(), 0) ==
                               static_cast<ssize_t>(record.size()) &&
                           ftruncate(fd, record.size()) == 0;
      static_cast<void>(written);
    }
    return fd;
  }
}

}  // namespace

absl::StatusOr<DirectoryLock> DirectoryLock::Acquire(
    const std::string& dir, const std::function<void()>& after_open) {
  absl::StatusOr<int> fd = Lock(dir, /*shared=*/false, after_open);
  if (!fd.ok()) return fd.status();
  return DirectoryLock(*fd);
}

absl::StatusOr<DirectoryLock> DirectoryLock::AcquireShared(
    const std::string& dir) {
  absl::StatusOr<int> fd = Lock(dir, /*shared=*/true, {});
  if (!fd.ok()) return fd.status();
  return DirectoryLock(*fd);
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
