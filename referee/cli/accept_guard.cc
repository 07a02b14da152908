#include "referee/cli/accept_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "referee/cli/peer_quota.h"
#include "referee/files/stderr_line.h"

namespace pyramid {
namespace {

// -1 until InstallAcceptGuard: accept4 is the system call's, unchanged.
std::atomic<int> ceiling{-1};
std::atomic<rlim_t> file_limit{0};
std::atomic<int64_t> total_over_ceiling{0};
std::atomic<int64_t> total_no_descriptor{0};
std::atomic<int64_t> total_over_quota{0};
std::atomic<int64_t> total_uid_unknown{0};

// The reserve descriptor, on /dev/null (-1: none, opened again at the next
// call). Its mutex also keeps two threads' tricks apart.
std::mutex reserve_mutex;
int reserve_fd = -1;

// Connections reset in one call at most, however fast they come: the
// caller's thread (a gRPC poller) has other work. More than a listen queue
// holds (net.core.somaxconn, which gRPC takes as its backlog): gRPC's
// poller is edge-triggered, so connections left queued after a call wait
// for the next one to arrive; a call that stops at this count has seen
// more arrive during it than the queue holds, and each of those arrivals
// wakes the listener again, so none is left waiting.
std::atomic<int> max_resets_per_call{4096 + 64};
constexpr int kReportEverySeconds = 10;

int SystemAccept4(int fd, sockaddr* addr, socklen_t* addrlen, int flags) {
  return static_cast<int>(syscall(SYS_accept4, fd, addr, addrlen, flags));
}

// Closes a connection with a reset (SO_LINGER 0), so that its client
// learns at once, and no TIME_WAIT stays behind here.
void Reset(int connection) {
  const linger abort = {.l_onoff = 1, .l_linger = 0};
  setsockopt(connection, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
  close(connection);
}

void OpenReserve() {  // With reserve_mutex held.
  if (reserve_fd < 0) reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

// The line on stderr, at most once per kReportEverySeconds: the resets
// since the last line said. Written with write(2), no allocation, never
// waiting where stderr allows it (WriteStderrLine): a line stderr cannot take
// at once is not said, and its resets wait for the next line.
std::mutex report_mutex;
bool tried = false;       // A line was due (and written or not) before.
timespec last_try = {};   // When the last line was due.
bool said = false;        // A line was written before.
timespec last_said = {};  // When the last line was written.
int64_t pending_over_ceiling = 0, pending_no_descriptor = 0,
        pending_over_quota = 0, pending_uid_unknown = 0;

enum class Cause { kOverCeiling, kNoDescriptor, kOverQuota, kUidUnknown };

double SecondsBetween(const timespec& start, const timespec& end) {
  return static_cast<double>(end.tv_sec - start.tv_sec) +
         (end.tv_nsec - start.tv_nsec) / 1e9;
}

// Appends `clause` to the `size` bytes of `causes` (of `capacity`), after
// "; " if it is not the first.
void AppendCause(const char* clause, char* causes, size_t capacity) {
  if (clause[0] == '\0') return;
  const size_t size = strlen(causes);
  snprintf(causes + size, capacity - size, "%s%s", size > 0 ? "; " : "",
           clause);
}

// Writes the line for the resets not yet said, if there are any and either
// `now` is at least kReportEverySeconds after the last line was due or
// `force`. Takes report_mutex; writes after letting it go (WriteStderrLine,
// `may_wait`), and if stderr does not take the line, gives its counts back
// for the next.
void Report(const timespec& now, bool force, bool may_wait) {
  char line[1024];
  int size = 0;
  int64_t over = 0, none = 0, quota = 0, unknown = 0;
  const int guard_ceiling = ceiling.load(std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(report_mutex);
    over = pending_over_ceiling;
    none = pending_no_descriptor;
    quota = pending_over_quota;
    unknown = pending_uid_unknown;
    if (over + none + quota + unknown == 0) return;
    if (tried && SecondsBetween(last_try, now) < kReportEverySeconds &&
        !force) {
      return;
    }
    char when[64] = "", why_over[256] = "", why_none[128] = "",
         why_quota[160] = "", why_unknown[160] = "";
    if (said) {
      snprintf(when, sizeof when, " in the last %.0f s",
               SecondsBetween(last_said, now));
    }
    if (over > 0) {
      snprintf(
          why_over, sizeof why_over,
          "%lld given a file descriptor at or above %d: the open-file "
          "limit %llu keeps the last %llu for the process's own files",
          static_cast<long long>(over), guard_ceiling,
          static_cast<unsigned long long>(file_limit.load()),
          static_cast<unsigned long long>(file_limit.load() - guard_ceiling));
    }
    if (none > 0) {
      snprintf(why_none, sizeof why_none,
               "%lld when no descriptor was left at all (EMFILE or ENFILE)",
               static_cast<long long>(none));
    }
    if (quota > 0) {
      // (Lock order: report_mutex, then the quota's; AdmitPeer never takes
      // report_mutex.)
      const PeerQuotaRefusals refusals = PeerQuotaRefusalCounts();
      snprintf(why_quota, sizeof why_quota,
               "%lld from a local uid holding its quota of %d connections: "
               "uid %u the most, %lld since the quota was set",
               static_cast<long long>(quota), CurrentPeerQuota().per_uid,
               static_cast<unsigned>(refusals.most_refused_uid),
               static_cast<long long>(refusals.most_refused));
    }
    if (unknown > 0) {
      snprintf(why_unknown, sizeof why_unknown,
               "%lld to a loopback listener from a peer whose uid the "
               "kernel did not say (sock_diag), refused under the quota",
               static_cast<long long>(unknown));
    }
    char causes[sizeof why_over + sizeof why_none + sizeof why_quota +
                sizeof why_unknown + 8] = "";
    for (const char* clause : {why_over, why_none, why_quota, why_unknown}) {
      AppendCause(clause, causes, sizeof causes);
    }
    const int64_t resets = over + none + quota + unknown;
    size =
        snprintf(line, sizeof line,
                 "%s: reset %lld connection%s%s (%s); at most one such "
                 "line per %d s\n",
                 program_invocation_short_name, static_cast<long long>(resets),
                 resets == 1 ? "" : "s", when, causes, kReportEverySeconds);
    tried = true;
    last_try = now;
    pending_over_ceiling = pending_no_descriptor = pending_over_quota =
        pending_uid_unknown = 0;
  }
  if (size <= 0) return;
  if (WriteStderrLine(
          std::string_view(line, std::min<size_t>(size, sizeof line - 1)),
          may_wait ? StderrWait::kIfNeeded : StderrWait::kNever)) {
    std::lock_guard<std::mutex> lock(report_mutex);
    said = true;
    last_said = now;
  } else {
    // Said by the next line stderr takes, kReportEverySeconds after this
    // one was due (or at the end).
    std::lock_guard<std::mutex> lock(report_mutex);
    pending_over_ceiling += over;
    pending_no_descriptor += none;
    pending_over_quota += quota;
    pending_uid_unknown += unknown;
  }
}

timespec Now() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now;
}

void Note(Cause cause) {
  std::atomic<int64_t>& total =
      cause == Cause::kOverCeiling    ? total_over_ceiling
      : cause == Cause::kNoDescriptor ? total_no_descriptor
      : cause == Cause::kOverQuota    ? total_over_quota
                                      : total_uid_unknown;
  total.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(report_mutex);
    ++(cause == Cause::kOverCeiling    ? pending_over_ceiling
       : cause == Cause::kNoDescriptor ? pending_no_descriptor
       : cause == Cause::kOverQuota    ? pending_over_quota
                                       : pending_uid_unknown);
  }
  Report(Now(), /*force=*/false, /*may_wait=*/false);
}

// EMFILE or ENFILE: frees the reserve descriptor, accepts the pending
// connection into it and resets it, then opens the reserve again. False
// when there is no reserve, or another thread took its descriptor first.
bool ResetWithReserve(int fd, int flags) {
  std::lock_guard<std::mutex> lock(reserve_mutex);
  if (reserve_fd < 0) {
    OpenReserve();
    return false;
  }
  close(reserve_fd);
  reserve_fd = -1;
  const int connection = SystemAccept4(fd, nullptr, nullptr, flags);
  const int error = errno;
  if (connection >= 0) Reset(connection);
  OpenReserve();
  if (connection >= 0) return true;
  // Another error (the queue emptied meanwhile: EAGAIN) ends the drain.
  errno = error;
  return false;
}

}  // namespace

int ListenQueueLength() {
  int length = 4096;  // Linux's default since 5.4.
  if (FILE* file = fopen("/proc/sys/net/core/somaxconn", "re")) {
    int read = 0;
    if (fscanf(file, "%d", &read) == 1 && read > 0) length = read;
    fclose(file);
  }
  return std::min(length, INT_MAX - 64);
}

int AcceptReserve(rlim_t limit) {
  const rlim_t reserve = std::min(std::max<rlim_t>(64, limit / 8), limit / 2);
  return static_cast<int>(std::min<rlim_t>(reserve, INT_MAX));
}

AcceptGuardSettings InstallAcceptGuard() {
  AcceptGuardSettings settings;
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return settings;
  settings.previous_limit = limit.rlim_cur;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  settings.limit = limit.rlim_cur;
  max_resets_per_call.store(ListenQueueLength() + 64);
  const rlim_t usable = std::min<rlim_t>(limit.rlim_cur, INT_MAX);
  settings.reserve = AcceptReserve(usable);
  settings.ceiling = static_cast<int>(usable) - settings.reserve;
  accept_guard_internal::Enable(settings.ceiling, settings.limit);
  return settings;
}

void FlushAcceptGuardReport(bool final) {
  Report(Now(), final, /*may_wait=*/true);
}

AcceptGuardCounts AcceptGuardTotals() {
  return {.over_ceiling = total_over_ceiling.load(),
          .no_descriptor = total_no_descriptor.load(),
          .over_quota = total_over_quota.load(),
          .uid_unknown = total_uid_unknown.load()};
}

namespace accept_guard_internal {
void Enable(int new_ceiling, rlim_t limit) {
  {
    std::lock_guard<std::mutex> lock(reserve_mutex);
    OpenReserve();
  }
  PrepareStderrLines();
  {
    std::lock_guard<std::mutex> lock(report_mutex);
    tried = said = false;
    pending_over_ceiling = pending_no_descriptor = pending_over_quota =
        pending_uid_unknown = 0;
  }
  file_limit.store(limit);
  ceiling.store(new_ceiling);
}
}  // namespace accept_guard_internal

}  // namespace pyramid

// The definition gRPC's calls bind to (accept_guard.h).
extern "C" int accept4(int fd, sockaddr* addr, socklen_t* addrlen, int flags) {
  using namespace pyramid;  // NOLINT: the file's own namespace.
  const int guard_ceiling = ceiling.load(std::memory_order_relaxed);
  if (guard_ceiling < 0) return SystemAccept4(fd, addr, addrlen, flags);
  // A blocking socket would block the drain below: left alone.
  const int socket_flags = fcntl(fd, F_GETFL);
  if (socket_flags == -1 || (socket_flags & O_NONBLOCK) == 0) {
    return SystemAccept4(fd, addr, addrlen, flags);
  }
  const socklen_t capacity = addrlen != nullptr ? *addrlen : 0;
  const int max_resets = max_resets_per_call.load(std::memory_order_relaxed);
  for (int resets = 0; resets < max_resets; ++resets) {
    if (addrlen != nullptr) *addrlen = capacity;
    const int connection = SystemAccept4(fd, addr, addrlen, flags);
    if (connection >= guard_ceiling) {
      Reset(connection);
      Note(Cause::kOverCeiling);
      continue;
    }
    if (connection >= 0) {
      // Below the ceiling, but its peer's uid may hold its quota already,
      // or, under a quota, not be known.
      const PeerAdmission admission = AdmitPeer(connection);
      if (admission.admitted) return connection;
      Reset(connection);
      Note(admission.uid_unknown ? Cause::kUidUnknown : Cause::kOverQuota);
      continue;
    }
    switch (errno) {
      case EMFILE:
      case ENFILE:
        if (!ResetWithReserve(fd, flags)) {
          // No reserve (a connection still queued waits for the next one
          // to wake the listener), or the queue is empty now.
          errno = EAGAIN;
          return -1;
        }
        Note(Cause::kNoDescriptor);
        continue;
      // The pending connection's own errors, to be treated like EAGAIN
      // (accept(2)): that connection is gone, the next may be fine.
      case ENETDOWN:
      case EPROTO:
      case ENOPROTOOPT:
      case EHOSTDOWN:
      case ENONET:
      case EHOSTUNREACH:
      case EOPNOTSUPP:
      case ENETUNREACH:
      case EPERM:         // A firewall rule refused it.
      case ECONNABORTED:  // Its client gave up.
        continue;
      // No memory for the connection now: wait for the next one rather
      // than stop listening.
      case ENOMEM:
      case ENOBUFS:
        errno = EAGAIN;
        return -1;
      default:  // EAGAIN, EINTR, and the caller's mistakes.
        return -1;
    }
  }
  errno = EAGAIN;
  return -1;
}
