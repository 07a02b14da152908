// Connections per local user: the uid at the other end of an accepted
// loopback TCP connection, and a quota of connections per uid for a range
// of uids, for the accept guard (accept_guard.h) to reset the connections
// over it.
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
// which needs no privilege and whose answer comes at once. A connection
// from elsewhere than loopback, or whose lookup fails (its client already
// gone, the kernel without inet_diag), has no known uid: admitted, not
// counted. A connection of a uid outside the range is admitted, not
// counted.
//
// Admitted connections are tracked by descriptor and socket inode, not told
// when they close (gRPC closes them): a uid at its quota has its entries
// checked first (fstat), and those whose descriptor is closed, or is
// another file now, no longer count.
#ifndef PYRAMID_REFEREE_CLI_PEER_QUOTA_H_
#define PYRAMID_REFEREE_CLI_PEER_QUOTA_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace pyramid {

// The uid owning the socket at the other end of `connection`, a connected
// TCP socket, when that end is on a loopback address (127.0.0.0/8, ::1,
// ::ffff:127.0.0.0/104); nullopt when it is not, when `connection` is no
// TCP socket, or when the kernel does not say (within 250 ms; it answers
// at once). Thread-safe; keeps one netlink socket open for all calls.
std::optional<uid_t> LoopbackPeerUid(int connection);

struct PeerQuotaSettings {
  uid_t first_uid = 0;
  uint32_t uids = 0;  // Limited: first_uid to first_uid + uids - 1; 0: none.
  int per_uid = 0;    // Connections each may hold at once, at least 1.
};

// Limits the uids of `settings` to `per_uid` connections each from now on
// (forgetting the connections admitted before), or, with no uids, lifts
// the quota. Opens the netlink socket now, before descriptors may run out.
// Call before the listener starts; safe with connections arriving.
void SetPeerQuota(const PeerQuotaSettings& settings);

// The quota set (uids 0: none).
PeerQuotaSettings CurrentPeerQuota();

// What AdmitPeer decided about a connection.
struct PeerAdmission {
  bool admitted = true;
  bool counted = false;  // It counts against `uid`'s quota now.
  uid_t uid = 0;         // Its peer's uid, when counted or refused.
};

// Admits `connection` (just accepted, not yet used) or refuses it: refused
// when its peer's uid is limited and holds its quota of connections still
// open; the caller closes it then. Admitted, and counted, when that uid is
// under its quota; admitted, not counted, when no quota is set (one atomic
// load), the uid is unknown or not limited. Thread-safe.
PeerAdmission AdmitPeer(int connection);

// Connections refused since SetPeerQuota: in all, and the uid refused the
// most, with its count (0 and 0 when none was).
struct PeerQuotaRefusals {
  int64_t total = 0;
  uid_t most_refused_uid = 0;
  int64_t most_refused = 0;
};
PeerQuotaRefusals PeerQuotaRefusalCounts();

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_PEER_QUOTA_H_
