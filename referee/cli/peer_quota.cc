#include "referee/cli/peer_quota.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace pyramid {
namespace {

// How long a lookup waits for the kernel's answer, which it queues before
// the request's send returns: a bound, never reached in practice.
constexpr int kLookupMillis = 250;

// One end of a TCP connection, as NETLINK_SOCK_DIAG names it: a v4-mapped
// IPv6 address is the IPv4 one (the kernel looks those up as IPv4).
struct Endpoint {
  int family = AF_UNSPEC;
  uint32_t address[4] = {0, 0, 0, 0};  // Network order.
  uint16_t port = 0;                   // Network order.
};

// `address` as an Endpoint; false unless IPv4 or IPv6.
bool ToEndpoint(const sockaddr_storage& address, socklen_t size,
                Endpoint* endpoint) {
  if (address.ss_family == AF_INET && size >= sizeof(sockaddr_in)) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    endpoint->family = AF_INET;
    endpoint->address[0] = v4.sin_addr.s_addr;
    endpoint->port = v4.sin_port;
    return true;
  }
  if (address.ss_family == AF_INET6 && size >= sizeof(sockaddr_in6)) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    endpoint->port = v6.sin6_port;
    if (IN6_IS_ADDR_V4MAPPED(&v6.sin6_addr)) {
      endpoint->family = AF_INET;
      memcpy(&endpoint->address[0], &v6.sin6_addr.s6_addr[12], 4);
    } else {
      endpoint->family = AF_INET6;
      memcpy(endpoint->address, &v6.sin6_addr, 16);
    }
    return true;
  }
  return false;
}

bool IsLoopback(const Endpoint& endpoint) {
  if (endpoint.family == AF_INET) {
    return (ntohl(endpoint.address[0]) >> 24) == 127;
  }
  in6_addr v6;
  memcpy(&v6, endpoint.address, sizeof v6);
  return IN6_IS_ADDR_LOOPBACK(&v6);
}

// The netlink socket of every lookup (-1: none; opened at the next), kept
// open so that a lookup works when no descriptor is left: never closed
// here, for reopening it under EMFILE would fail and leave none. Its mutex
// keeps one request and its answer apart from another's.
std::mutex lookup_mutex;
int diag_socket = -1;
uint32_t sequence = 0;
// The loopback device's index (0: not known yet; if_nametoindex needs a
// descriptor of its own, so it is asked when the socket is opened, and
// again if that failed).
unsigned loopback_index = 0;
// peer_quota_internal::FailLookups.
std::atomic<bool> fail_lookups{false};

void OpenDiagSocketLocked() {  // With lookup_mutex held.
  if (loopback_index == 0) loopback_index = if_nametoindex("lo");
  if (diag_socket < 0) {
    diag_socket =
        socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  }
}

int64_t MillisLeft(const timespec& deadline) {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (deadline.tv_sec - now.tv_sec) * 1000 +
         (deadline.tv_nsec - now.tv_nsec) / 1000000;
}

// Sends `size` bytes of `message` to the kernel on diag_socket, opening it
// if needed; false if it is not sent. With lookup_mutex held.
bool SendToKernelLocked(const void* message, size_t size) {
  sockaddr_nl kernel = {};
  kernel.nl_family = AF_NETLINK;
  for (int attempt = 0; attempt < 2; ++attempt) {
    OpenDiagSocketLocked();
    if (diag_socket < 0) return false;
    ssize_t sent;
    do {
      sent = sendto(diag_socket, message, size, MSG_NOSIGNAL,
                    reinterpret_cast<const sockaddr*>(&kernel), sizeof kernel);
    } while (sent < 0 && errno == EINTR);
    if (sent == static_cast<ssize_t>(size)) return true;
    // The descriptor is not the netlink socket any more (closed by
    // mistake elsewhere, maybe another file's now, which is not closed
    // here): a new one, once. Any other error (ENOBUFS, ENOMEM) is this
    // request's: the socket is kept.
    if (sent >= 0 || (errno != EBADF && errno != ENOTSOCK)) return false;
    diag_socket = -1;
  }
  return false;
}

// The uid of the socket whose own end is `peer` and whose other end is
// `local`: the peer's socket (SOCK_DIAG_BY_FAMILY, one exact lookup, not a
// dump). With lookup_mutex held.
std::optional<uid_t> AskKernelLocked(const Endpoint& peer,
                                     const Endpoint& local) {
  if (fail_lookups.load(std::memory_order_relaxed)) return std::nullopt;
  OpenDiagSocketLocked();  // And loopback_index.
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message;
  memset(&message, 0, sizeof message);
  message.header.nlmsg_len = sizeof message;
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;
  message.header.nlmsg_seq = ++sequence;
  message.request.sdiag_family = static_cast<uint8_t>(peer.family);
  message.request.sdiag_protocol = IPPROTO_TCP;
  message.request.idiag_states = ~0u;  // Whatever its state.
  message.request.id.idiag_sport = peer.port;
  message.request.id.idiag_dport = local.port;
  memcpy(message.request.id.idiag_src, peer.address, sizeof peer.address);
  memcpy(message.request.id.idiag_dst, local.address, sizeof local.address);
  // The device the lookup matches a socket bound to one (SO_BINDTODEVICE)
  // against: the loopback device, where all of this host's traffic to
  // itself goes. A socket bound to none matches any; with 0 here, one a
  // bot bound to "lo" would not be found.
  message.request.id.idiag_if = loopback_index;
  message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  if (!SendToKernelLocked(&message, sizeof message)) return std::nullopt;
  timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_nsec += kLookupMillis * 1000000L;
  deadline.tv_sec += deadline.tv_nsec / 1000000000L;
  deadline.tv_nsec %= 1000000000L;
  alignas(nlmsghdr) char buffer[8192];
  for (;;) {
    const int64_t left = MillisLeft(deadline);
    if (left <= 0) return std::nullopt;
    pollfd readable = {.fd = diag_socket, .events = POLLIN, .revents = 0};
    const int ready = poll(&readable, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return std::nullopt;
    const ssize_t size = recv(diag_socket, buffer, sizeof buffer, MSG_DONTWAIT);
    if (size < 0) {
      // ENOBUFS: answers were dropped (none of ours is ever that large);
      // EAGAIN, EINTR: poll again.
      if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) continue;
      return std::nullopt;
    }
    int length = static_cast<int>(size);
    for (const nlmsghdr* header = reinterpret_cast<const nlmsghdr*>(buffer);
         NLMSG_OK(header, length); header = NLMSG_NEXT(header, length)) {
      // An answer to an earlier request whose wait ran out: not this one.
      if (header->nlmsg_seq != message.header.nlmsg_seq) continue;
      if (header->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
          header->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) {
        return std::nullopt;  // NLMSG_ERROR (ENOENT: no such socket).
      }
      const auto* found =
          reinterpret_cast<const inet_diag_msg*>(NLMSG_DATA(header));
      return static_cast<uid_t>(found->idiag_uid);
    }
  }
}

// Whether `connection` is a TCP connection whose own end is on loopback:
// then its peer is on this host, whatever its address, and has a socket
// the kernel can name. `peer` and `local` are its two ends then.
bool ToALoopbackListener(int connection, Endpoint* peer, Endpoint* local) {
  int protocol = 0;
  socklen_t protocol_size = sizeof protocol;
  if (getsockopt(connection, SOL_SOCKET, SO_PROTOCOL, &protocol,
                 &protocol_size) != 0 ||
      protocol != IPPROTO_TCP) {
    return false;
  }
  sockaddr_storage address;
  socklen_t size = sizeof address;
  if (getsockname(connection, reinterpret_cast<sockaddr*>(&address), &size) !=
          0 ||
      !ToEndpoint(address, size, local) || !IsLoopback(*local)) {
    return false;
  }
  size = sizeof address;
  // No peer (a listening socket, a connection reset already): its family
  // is AF_UNSPEC, and it has no uid (PeerUid).
  if (getpeername(connection, reinterpret_cast<sockaddr*>(&address), &size) !=
          0 ||
      !ToEndpoint(address, size, peer)) {
    *peer = Endpoint();
  }
  return true;
}

// The uid of the peer of `connection` (ToALoopbackListener's), nullopt if
// the kernel does not say.
std::optional<uid_t> PeerUid(const Endpoint& peer, const Endpoint& local) {
  if (peer.family != local.family) return std::nullopt;
  std::lock_guard<std::mutex> lock(lookup_mutex);
  return AskKernelLocked(peer, local);
}

// A connection counted against its uid's quota: its descriptor and its
// socket's inode, which tell whether the descriptor still is it.
struct Entry {
  int fd = -1;
  ino_t inode = 0;
};

// Whether `entry`'s descriptor is still its socket (not closed, nor given
// to another file since).
bool StillOpen(const Entry& entry) {
  struct stat file;
  return fstat(entry.fd, &file) == 0 && S_ISSOCK(file.st_mode) &&
         file.st_ino == entry.inode;
}

// The quota. `quota_set` says whether one is (AdmitPeer's one load when
// none is); the rest is quota_mutex's.
std::atomic<bool> quota_set{false};
std::mutex quota_mutex;
PeerQuotaSettings quota;
std::vector<Entry> entries;    // quota.per_uid for each uid, in uid order.
std::vector<int> held;         // Entries in use, for each uid.
std::vector<int64_t> refused;  // Refusals, for each uid.
int64_t refused_total = 0;
int64_t refused_uid_unknown = 0;
// When each uid's entries were last checked (at its quota), and whether
// that check freed a place; -1: never since the quota was set.
std::vector<int64_t> last_check;
std::vector<bool> last_check_freed;

int64_t MonotonicNanos() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}
std::atomic<int64_t (*)()> clock_nanos{&MonotonicNanos};

// A connection to a listener of its own, looked up: OK if the kernel says
// this process's uid.
absl::Status CheckLookup() {
  constexpr char kNeeded[] =
      "the per-uid connection quota needs the kernel's sock_diag "
      "(NETLINK_SOCK_DIAG with inet_diag and tcp_diag: modprobe tcp_diag) "
      "to tell the uid at the other end of a loopback connection";
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int server = -1;
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  std::optional<uid_t> uid;
  std::string failed;
  // Blocking sockets: the accept guard leaves the listener's accept4 alone,
  // and the connect returns once the connection waits to be accepted.
  if (listener < 0 || client < 0 ||
      bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) !=
          0 ||
      listen(listener, 1) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size) !=
          0 ||
      connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address) !=
          0 ||
      (server = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC)) < 0) {
    failed = absl::StrCat("cannot make a loopback connection to check it: ",
                          strerror(errno));
  } else {
    uid = LoopbackPeerUid(server);
  }
  for (int fd : {server, client, listener}) {
    if (fd >= 0) close(fd);
  }
  if (!failed.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(kNeeded, "; ", failed));
  }
  if (!uid.has_value()) {
    return absl::FailedPreconditionError(absl::StrCat(
        kNeeded, ", and it did not tell it for one of this process's"));
  }
  if (*uid != geteuid()) {
    return absl::FailedPreconditionError(
        absl::StrCat(kNeeded, ", and it told uid ", *uid, " for one of uid ",
                     geteuid(), "'s"));
  }
  return absl::OkStatus();
}

}  // namespace

std::optional<uid_t> LoopbackPeerUid(int connection) {
  Endpoint peer, local;
  if (!ToALoopbackListener(connection, &peer, &local)) return std::nullopt;
  return PeerUid(peer, local);
}

absl::Status SetPeerQuota(const PeerQuotaSettings& settings) {
  PeerQuotaSettings set = settings;
  if (set.uids > 0 && set.per_uid < 1) set.per_uid = 1;
  if (set.uids == 0) set = PeerQuotaSettings();
  if (set.uids > 0) {
    {
      std::lock_guard<std::mutex> lock(lookup_mutex);
      OpenDiagSocketLocked();
    }
    if (absl::Status s = CheckLookup(); !s.ok()) return s;
  }
  std::vector<Entry> new_entries(static_cast<size_t>(set.uids) * set.per_uid);
  std::vector<int> new_held(set.uids, 0);
  std::vector<int64_t> new_refused(set.uids, 0);
  std::vector<int64_t> new_last_check(set.uids, -1);
  std::vector<bool> new_last_check_freed(set.uids, false);
  {
    std::lock_guard<std::mutex> lock(quota_mutex);
    quota = set;
    entries.swap(new_entries);
    held.swap(new_held);
    refused.swap(new_refused);
    last_check.swap(new_last_check);
    last_check_freed.swap(new_last_check_freed);
    refused_total = 0;
    refused_uid_unknown = 0;
    quota_set.store(set.uids > 0, std::memory_order_release);
  }
  // The old tables are freed here, outside the lock.
  return absl::OkStatus();
}

PeerQuotaSettings CurrentPeerQuota() {
  std::lock_guard<std::mutex> lock(quota_mutex);
  return quota;
}

PeerAdmission AdmitPeer(int connection) {
  if (!quota_set.load(std::memory_order_acquire)) return {};
  Endpoint peer, local;
  if (!ToALoopbackListener(connection, &peer, &local)) return {};
  const std::optional<uid_t> uid = PeerUid(peer, local);
  struct stat file;
  if (!uid.has_value() || fstat(connection, &file) != 0) {
    // On this host, but whose? Refused: a peer whose socket is gone
    // already loses nothing, and a bot must not get past its quota by
    // hiding its uid.
    std::lock_guard<std::mutex> lock(quota_mutex);
    if (quota.uids == 0) return {};
    ++refused_uid_unknown;
    return {.admitted = false, .uid_unknown = true};
  }
  std::lock_guard<std::mutex> lock(quota_mutex);
  if (quota.uids == 0 || *uid < quota.first_uid ||
      *uid - quota.first_uid >= quota.uids) {
    return {};
  }
  const size_t index = *uid - quota.first_uid;
  Entry* const own = &entries[index * quota.per_uid];
  int& count = held[index];
  if (count >= quota.per_uid) {
    // At its quota as last counted: those closed since count no more. At
    // most once per kRescanMillis, unless the last check freed a place
    // (its connections are ending), so that a flood of connections costs
    // a lookup each, not quota.per_uid fstats under the lock.
    const int64_t now = clock_nanos.load(std::memory_order_relaxed)();
    if (last_check[index] < 0 || last_check_freed[index] ||
        now - last_check[index] >= int64_t{kRescanMillis} * 1000000) {
      int kept = 0;
      for (int i = 0; i < count; ++i) {
        if (StillOpen(own[i])) own[kept++] = own[i];
      }
      last_check[index] = now;
      last_check_freed[index] = kept < count;
      count = kept;
    }
  }
  if (count >= quota.per_uid) {
    ++refused[index];
    ++refused_total;
    return {.admitted = false, .counted = false, .uid = *uid};
  }
  own[count++] = {.fd = connection, .inode = file.st_ino};
  return {.admitted = true, .counted = true, .uid = *uid};
}

PeerQuotaRefusals PeerQuotaRefusalCounts() {
  std::lock_guard<std::mutex> lock(quota_mutex);
  PeerQuotaRefusals counts;
  counts.total = refused_total;
  counts.uid_unknown = refused_uid_unknown;
  for (size_t i = 0; i < refused.size(); ++i) {
    if (refused[i] > counts.most_refused) {
      counts.most_refused = refused[i];
      counts.most_refused_uid = quota.first_uid + static_cast<uid_t>(i);
    }
  }
  return counts;
}

namespace peer_quota_internal {
void FailLookups(bool fail) { fail_lookups.store(fail); }
void SetClock(int64_t (*now_nanos)()) {
  clock_nanos.store(now_nanos != nullptr ? now_nanos : &MonotonicNanos);
}
}  // namespace peer_quota_internal

}  // namespace pyramid
