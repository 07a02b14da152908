// Connections per local user: the uid at the other end of an accepted TCP
// connection to a loopback listener, and a quota of connections per uid for
// a range of uids, for the accept guard (accept_guard.h) to reset the
// connections over it.
//
// The accept guard's ceiling keeps descriptors for the program's own files,
// but connections below it are first come, first served: one client that
// holds connections up to the ceiling has every later one reset. The
// tournament runner under --bot_uids runs each bot as a uid of its own on
// this host; its embedded referee listens on loopback, where the kernel
// knows which uid owns the socket at the other end. So each bot may hold a
// share of the budget, and one bot filling its share leaves the others'
// (tools/tournament/tournament_main.cc sets the share; docs/tournament.md,
// "Hosting bots you do not trust").
//
// The uid is the kernel's record for the peer's socket (its creator's
// fsuid), asked with NETLINK_SOCK_DIAG: an exact lookup of one socket,
// which needs no privilege and whose answer comes at once. It is asked for
// every connection whose LOCAL end is on loopback, whatever the peer's
// address: only this host's sockets reach a loopback address, and a bot may
// bind its socket to another address of the host's (or to the device "lo")
// before it connects to 127.0.0.1. A connection to a listener on another
// address is not asked about (its peer may be on another host): admitted,
// not counted. When a quota is set, a connection to a loopback listener
// whose uid the kernel does not say (its client already gone, the kernel
// without inet_diag, no netlink socket) is refused: not knowing its uid
// must not let a bot past its quota. A connection of a uid outside the
// range is admitted, not counted.
//
// Admitted connections are tracked by descriptor and socket inode, not told
// when they close (gRPC closes them): a uid at its quota has its entries
// checked (fstat), and those whose descriptor is closed, or is another file
// now, no longer count. So that a uid flooding connections at its quota
// costs one lookup each, not a check of all its entries, they are checked
// at most once per kRescanMillis, or again at once when the last check
// freed a place: a connection that closed frees its place within that
// time.
#ifndef PYRAMID_REFEREE_CLI_PEER_QUOTA_H_
#define PYRAMID_REFEREE_CLI_PEER_QUOTA_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>

#include "absl/status/status.h"

namespace pyramid {

// How often a uid at its quota has its connections checked for those
// closed, at most (unless the last check freed a place).
inline constexpr int kRescanMillis = 5;

// The uid owning the socket at the other end of `connection`, a connected
// TCP socket whose own (local) end is on a loopback address (127.0.0.0/8,
// ::1, ::ffff:127.0.0.0/104), whatever the other end's address; nullopt
// when its local end is not, when `connection` is no TCP socket, or when
// the kernel does not say (within 250 ms; it answers at once). Thread-safe;
// keeps one netlink socket open for all calls.
std::optional<uid_t> LoopbackPeerUid(int connection);

struct PeerQuotaSettings {
  uid_t first_uid = 0;
  uint32_t uids = 0;  // Limited: first_uid to first_uid + uids - 1; 0: none.
  int per_uid = 0;    // Connections each may hold at once, at least 1.
};

// Limits the uids of `settings` to `per_uid` connections each from now on
// (forgetting the connections admitted before), or, with no uids, lifts
// the quota. Opens the netlink socket now, before descriptors may run out,
// and checks that the kernel says the uid of a loopback connection's peer
// (one to a listener of its own, whose peer is this process's: geteuid()).
// FAILED_PRECONDITION, the quota left as it was, when it does not (a kernel
// without sock_diag's inet_diag and tcp_diag): with the quota set, every
// connection to a loopback listener would be refused. Call before the
// listener starts; safe with connections arriving.
absl::Status SetPeerQuota(const PeerQuotaSettings& settings);

// The quota set (uids 0: none).
PeerQuotaSettings CurrentPeerQuota();

// What AdmitPeer decided about a connection.
struct PeerAdmission {
  bool admitted = true;
  bool counted = false;      // It counts against `uid`'s quota now.
  bool uid_unknown = false;  // Refused: the kernel did not say its uid.
  uid_t uid = 0;             // Its peer's uid, when counted or over quota.
};

// Admits `connection` (just accepted, not yet used) or refuses it: refused
// when a quota is set and its local end is on loopback but the kernel does
// not say its peer's uid, or when that uid is limited and holds its quota
// of connections still open; the caller closes it then. Admitted, and
// counted, when that uid is under its quota; admitted, not counted, when
// no quota is set (one atomic load), its local end is not on loopback or
// the uid is not limited. Thread-safe.
PeerAdmission AdmitPeer(int connection);

// Connections refused since SetPeerQuota: over their uid's quota, in all,
// and the uid refused the most, with its count (0 and 0 when none was);
// and those refused because the kernel did not say their uid.
struct PeerQuotaRefusals {
  int64_t total = 0;
  uid_t most_refused_uid = 0;
  int64_t most_refused = 0;
  int64_t uid_unknown = 0;
};
PeerQuotaRefusals PeerQuotaRefusalCounts();

namespace peer_quota_internal {
// For the tests: while `fail`, every lookup of a peer's uid fails, as on a
// kernel without inet_diag.
void FailLookups(bool fail);
// For the tests: the monotonic clock, in nanoseconds, that spaces out the
// checks of a uid's connections (nullptr: CLOCK_MONOTONIC's).
void SetClock(int64_t (*now_nanos)());
}  // namespace peer_quota_internal

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_PEER_QUOTA_H_
