#include "referee/cli/peer_quota.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

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

// The netlink socket of every lookup (-1: none; opened again at the next),
// kept open so that a lookup works when no descriptor is left; its mutex
// keeps one request and its answer apart from another's.
std::mutex lookup_mutex;
int diag_socket = -1;
uint32_t sequence = 0;

void OpenDiagSocketLocked() {  // With lookup_mutex held.
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

// The uid of the socket whose own end is `peer` and whose other end is
// `local`: the peer's socket (SOCK_DIAG_BY_FAMILY, one exact lookup, not a
// dump). With lookup_mutex held.
std::optional<uid_t> AskKernelLocked(const Endpoint& peer,
                                     const Endpoint& local) {
  OpenDiagSocketLocked();
  if (diag_socket < 0) return std::nullopt;
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
  message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel = {};
  kernel.nl_family = AF_NETLINK;
  if (sendto(diag_socket, &message, sizeof message, MSG_NOSIGNAL,
             reinterpret_cast<const sockaddr*>(&kernel),
             sizeof kernel) != static_cast<ssize_t>(sizeof message)) {
    // Opened afresh next time, in case this one is broken.
    close(diag_socket);
    diag_socket = -1;
    return std::nullopt;
  }
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

}  // namespace

std::optional<uid_t> LoopbackPeerUid(int connection) {
  int protocol = 0;
  socklen_t protocol_size = sizeof protocol;
  if (getsockopt(connection, SOL_SOCKET, SO_PROTOCOL, &protocol,
                 &protocol_size) != 0 ||
      protocol != IPPROTO_TCP) {
    return std::nullopt;
  }
  sockaddr_storage address;
  socklen_t size = sizeof address;
  Endpoint peer, local;
  if (getpeername(connection, reinterpret_cast<sockaddr*>(&address), &size) !=
          0 ||
      !ToEndpoint(address, size, &peer) || !IsLoopback(peer)) {
    return std::nullopt;
  }
  size = sizeof address;
  if (getsockname(connection, reinterpret_cast<sockaddr*>(&address), &size) !=
          0 ||
      !ToEndpoint(address, size, &local) || local.family != peer.family) {
    return std::nullopt;
  }
  std::lock_guard<std::mutex> lock(lookup_mutex);
  return AskKernelLocked(peer, local);
}

void SetPeerQuota(const PeerQuotaSettings& settings) {
  PeerQuotaSettings set = settings;
  if (set.uids > 0 && set.per_uid < 1) set.per_uid = 1;
  if (set.uids == 0) set = PeerQuotaSettings();
  std::vector<Entry> new_entries(static_cast<size_t>(set.uids) * set.per_uid);
  std::vector<int> new_held(set.uids, 0);
  std::vector<int64_t> new_refused(set.uids, 0);
  if (set.uids > 0) {
    std::lock_guard<std::mutex> lock(lookup_mutex);
    OpenDiagSocketLocked();
  }
  {
    std::lock_guard<std::mutex> lock(quota_mutex);
    quota = set;
    entries.swap(new_entries);
    held.swap(new_held);
    refused.swap(new_refused);
    refused_total = 0;
    quota_set.store(set.uids > 0, std::memory_order_release);
  }
  // The old tables are freed here, outside the lock.
}

PeerQuotaSettings CurrentPeerQuota() {
  std::lock_guard<std::mutex> lock(quota_mutex);
  return quota;
}

PeerAdmission AdmitPeer(int connection) {
  if (!quota_set.load(std::memory_order_acquire)) return {};
  const std::optional<uid_t> uid = LoopbackPeerUid(connection);
  if (!uid.has_value()) return {};
  struct stat file;
  if (fstat(connection, &file) != 0) return {};
  std::lock_guard<std::mutex> lock(quota_mutex);
  if (quota.uids == 0 || *uid < quota.first_uid ||
      *uid - quota.first_uid >= quota.uids) {
    return {};
  }
  const size_t index = *uid - quota.first_uid;
  Entry* const own = &entries[index * quota.per_uid];
  int& count = held[index];
  if (count >= quota.per_uid) {
    // At its quota as last counted: those closed since count no more.
    int kept = 0;
    for (int i = 0; i < count; ++i) {
      if (StillOpen(own[i])) own[kept++] = own[i];
    }
    count = kept;
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
  for (size_t i = 0; i < refused.size(); ++i) {
    if (refused[i] > counts.most_refused) {
      counts.most_refused = refused[i];
      counts.most_refused_uid = quota.first_uid + static_cast<uid_t>(i);
    }
  }
  return counts;
}

}  // namespace pyramid
