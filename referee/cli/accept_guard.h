// A listener that outlives a moment without file descriptors, and a reserve
// of descriptors that connections cannot take: for the referee, whose
// clients may be anyone.
//
// gRPC 1.51's listener (tcp_server_posix.cc) stops accepting for good on
// any accept4 error but EAGAIN, ECONNABORTED and EINTR: after one EMFILE
// ("Failed accept4: Too many open files") the server never takes a
// connection again, though descriptors free up, and every new client hangs
// until a restart. Nor does gRPC offer a connection limit or an accept
// hook. So accept_guard.cc defines accept4 itself: in an executable, that
// definition comes first in the dynamic linker's lookup order, before
// libc's, and gRPC's calls bind to it (it makes the real system call).
// Once InstallAcceptGuard has run, on a nonblocking listening socket (as
// gRPC's is) it
//  - resets (closes with SO_LINGER 0: the client sees a reset, not a hang)
//    every connection whose descriptor is at or above the ceiling, so that
//    the descriptors above it stay for the program's own files (logs, the
//    journal, the databases): descriptors are handed out lowest first, so
//    a connection given descriptor N means N others are open;
//  - resets every connection (below the ceiling) from a local uid that
//    holds its quota of connections already, when a quota is set
//    (peer_quota.h; the tournament runner sets one under --bot_uids, each
//    bot a uid of its own): so that one local user holding connections up
//    to the ceiling cannot have every other one's reset; and, while the
//    quota is set, every connection to a loopback listener whose peer's
//    uid the kernel does not say (no bot gets past its quota by hiding
//    its uid);
//  - on EMFILE or ENFILE, closes a descriptor it holds in reserve (on
//    /dev/null), accepts the pending connection into it, resets it and
//    opens the reserve again (the trick of libuv, nginx and muduo);
//  - passes over the errors of one pending connection that accept4's
//    manual says to treat like EAGAIN (ENETDOWN, EPROTO, ...);
//  - and so drains the listen queue until the kernel says EAGAIN (or, on
//    ENOMEM and ENOBUFS, says EAGAIN itself; or it has reset more in this
//    call than the queue holds), on which gRPC waits for the next
//    connection as usual.
// Each reset is counted; one line on stderr says so, at most one per 10 s:
// a reset within 10 s of the last line waits for the next line, which the
// next reset after those 10 s writes, or FlushAcceptGuardReport. A line is
// never waited for: one that stderr cannot take at once (a pipe or socket
// whose reader stalled, full; a stopped terminal) is not written, and its
// resets wait for the next line, 10 s later, as if it had been. So a
// stalled stderr blocks neither the thread that accepts (a gRPC poller)
// nor the one that flushes (the referee's, between its waits for SIGTERM).
// It is written by WriteStderrLine (referee/files/stderr_line.h, prepared
// by InstallAcceptGuard for when no descriptor is left); a pipe or
// terminal that /proc cannot open again (another user's: `sudo -u USER
// referee 2>&1 | collector`, a container's runtime) gets its lines from
// FlushAcceptGuardReport alone, which may wait for it there, never from
// the thread that accepts.
// A blocking socket, and every call before InstallAcceptGuard, get the
// system call unchanged.
//
// The guard must be linked into the executable itself (an object library:
// nothing references accept_guard.cc's accept4, so a static library would
// drop it), which must export accept4 (-Wl,--export-dynamic-symbol; the
// CMake target pyramid_accept_guard says both).
#ifndef PYRAMID_REFEREE_CLI_ACCEPT_GUARD_H_
#define PYRAMID_REFEREE_CLI_ACCEPT_GUARD_H_

#include <sys/resource.h>

#include <cstdint>

namespace pyramid {

// What InstallAcceptGuard settled.
struct AcceptGuardSettings {
  rlim_t previous_limit = 0;  // The soft RLIMIT_NOFILE the process had.
  rlim_t limit = 0;           // The soft limit now (raised to the hard one).
  int reserve = 0;            // Descriptors kept for the program's files.
  int ceiling = 0;  // Connections get descriptors below this: limit-reserve.
};

// Descriptors kept from connections under an open-file limit of `limit`:
// max(64, limit / 8), but at most half of it.
int AcceptReserve(rlim_t limit);

// Raises the soft open-file limit to the hard one (as Go's runtime does),
// opens the reserve descriptor and turns the guard on with the ceiling
// limit - AcceptReserve(limit). Call once, in main(), before any listener
// starts.
AcceptGuardSettings InstallAcceptGuard();

// The length of a listen queue (net.core.somaxconn; 4096 if unreadable).
int ListenQueueLength();

// Writes the line for the resets not yet said, if any: when the 10 s since
// the last line have passed, or whatever the time if `final` (at the
// program's end). The referee calls it every 10 s, so that a burst of
// resets is said in full within 10 s of its end. Never waits for stderr
// (a line it cannot take at once is left for the next call), but for a
// pipe or terminal /proc cannot open again, which it writes as usual: call
// it from a thread that may wait (the referee's HeldBackReporter).
void FlushAcceptGuardReport(bool final);

// Connections reset since the start, by cause.
struct AcceptGuardCounts {
  int64_t over_ceiling = 0;   // Descriptor at or above the ceiling.
  int64_t no_descriptor = 0;  // EMFILE or ENFILE: the reserve's trick.
  int64_t over_quota = 0;     // Its peer's uid at its quota (peer_quota.h).
  int64_t uid_unknown = 0;    // Under a quota, its peer's uid not said.
};
AcceptGuardCounts AcceptGuardTotals();

namespace accept_guard_internal {
// For the test: the guard with this ceiling and the limit it names in its
// messages, opening the reserve if it has none (and the description of its
// own of descriptor 2 if it needs one); the report starts afresh (the next
// reset is said at once).
void Enable(int ceiling, rlim_t limit);
}  // namespace accept_guard_internal

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_ACCEPT_GUARD_H_
