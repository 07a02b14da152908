#include "referee/cli/peer_quota.h"

#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace pyramid {
namespace {

// A listening socket of `family` (AF_INET or AF_INET6) bound to `address`
// (a sockaddr_in or sockaddr_in6 whose port is 0); its port in `*port`, -1
// when it cannot be made (no IPv6 on this host).
int Listen(const sockaddr* address, socklen_t size, int* port) {
  const int fd = socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (address->sa_family == AF_INET6) {
    const int both = 0;  // A v4-mapped address too.
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &both, sizeof both);
  }
  sockaddr_storage bound;
  socklen_t bound_size = sizeof bound;
  if (bind(fd, address, size) != 0 || listen(fd, 64) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &bound_size) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(bound.ss_family == AF_INET
                    ? reinterpret_cast<sockaddr_in&>(bound).sin_port
                    : reinterpret_cast<sockaddr_in6&>(bound).sin6_port);
  return fd;
}

sockaddr_in V4(uint32_t host_order_address, int port = 0) {
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(host_order_address);
  address.sin_port = htons(port);
  return address;
}

// A listener on 127.0.0.1.
int ListenOnLoopback(int* port) {
  const sockaddr_in address = V4(INADDR_LOOPBACK);
  return Listen(reinterpret_cast<const sockaddr*>(&address), sizeof address,
                port);
}

// A client connected to `address` (a sockaddr_in or sockaddr_in6).
int Connect(const sockaddr* address, socklen_t size) {
  const int fd = socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_EQ(connect(fd, address, size), 0) << strerror(errno);
  return fd;
}

int ConnectToLoopback(int port) {
  const sockaddr_in address = V4(INADDR_LOOPBACK, port);
  return Connect(reinterpret_cast<const sockaddr*>(&address), sizeof address);
}

int Accept(int listener) {
  const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  EXPECT_GE(fd, 0) << strerror(errno);
  return fd;
}

// Closes every descriptor of `fds`.
void CloseAll(const std::vector<int>& fds) {
  for (int fd : fds) close(fd);
}

class PeerQuotaTest : public testing::Test {
 protected:
  void TearDown() override { SetPeerQuota({}); }
};

TEST_F(PeerQuotaTest, TheUidOfALoopbackPeerIsItsSocketsOwner) {
  int port;
  const int listener = ListenOnLoopback(&port);
  ASSERT_GE(listener, 0);
  const int client = ConnectToLoopback(port);
  const int server = Accept(listener);
  EXPECT_EQ(LoopbackPeerUid(server), geteuid());
  // Either end: the client's peer is the accepted socket, this uid's too.
  EXPECT_EQ(LoopbackPeerUid(client), geteuid());
  CloseAll({listener, client, server});
}

TEST_F(PeerQuotaTest, TheUidIsThePeersNotTheAcceptedSockets) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (setfsuid)";
  // A socket takes its owner from the creating thread's fsuid: the client
  // is another uid's, the accepted socket root's.
  constexpr uid_t kOther = 4123457;
  int port;
  const int listener = ListenOnLoopback(&port);
  setfsuid(kOther);
  const int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  setfsuid(0);
  const sockaddr_in address = V4(INADDR_LOOPBACK, port);
  ASSERT_EQ(connect(client, reinterpret_cast<const sockaddr*>(&address),
                    sizeof address),
            0);
  const int server = Accept(listener);
  EXPECT_EQ(LoopbackPeerUid(server), kOther);
  EXPECT_EQ(LoopbackPeerUid(client), 0u);
  SetPeerQuota({.first_uid = kOther, .uids = 1, .per_uid = 1});
  const PeerAdmission admission = AdmitPeer(server);
  EXPECT_TRUE(admission.counted);
  EXPECT_EQ(admission.uid, kOther);
  CloseAll({listener, client, server});
}

TEST_F(PeerQuotaTest, AV4MappedPeerIsLookedUpAsIpv4) {
  sockaddr_in6 address = {};
  address.sin6_family = AF_INET6;
  address.sin6_addr.s6_addr[10] = address.sin6_addr.s6_addr[11] = 0xff;
  address.sin6_addr.s6_addr[12] = 127;
  address.sin6_addr.s6_addr[15] = 1;  // ::ffff:127.0.0.1
  int port;
  const int listener = Listen(reinterpret_cast<const sockaddr*>(&address),
                              sizeof address, &port);
  if (listener < 0) GTEST_SKIP() << "no IPv6 socket on this host";
  // An IPv4 client: the IPv6 listener sees its address v4-mapped.
  const int client = ConnectToLoopback(port);
  const int server = Accept(listener);
  sockaddr_storage peer;
  socklen_t size = sizeof peer;
  ASSERT_EQ(getpeername(server, reinterpret_cast<sockaddr*>(&peer), &size), 0);
  ASSERT_EQ(peer.ss_family, AF_INET6);
  EXPECT_EQ(LoopbackPeerUid(server), geteuid());
  CloseAll({listener, client, server});
}

TEST_F(PeerQuotaTest, AnIpv6LoopbackPeerIsLookedUp) {
  sockaddr_in6 address = {};
  address.sin6_family = AF_INET6;
  address.sin6_addr = in6addr_loopback;
  int port;
  const int listener = Listen(reinterpret_cast<const sockaddr*>(&address),
                              sizeof address, &port);
  if (listener < 0) GTEST_SKIP() << "no ::1 on this host";
  address.sin6_port = htons(port);
  const int client =
      Connect(reinterpret_cast<const sockaddr*>(&address), sizeof address);
  const int server = Accept(listener);
  EXPECT_EQ(LoopbackPeerUid(server), geteuid());
  CloseAll({listener, client, server});
}

TEST_F(PeerQuotaTest, NoUidForWhatIsNotALoopbackTcpConnection) {
  // A UDP socket "connected" to a loopback port, a Unix socket, a listening
  // socket (no peer), a file, a closed descriptor.
  const int udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  const sockaddr_in somewhere = V4(INADDR_LOOPBACK, 9);
  ASSERT_EQ(connect(udp, reinterpret_cast<const sockaddr*>(&somewhere),
                    sizeof somewhere),
            0);
  EXPECT_EQ(LoopbackPeerUid(udp), std::nullopt);
  int pair[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  EXPECT_EQ(LoopbackPeerUid(pair[0]), std::nullopt);
  int port;
  const int listener = ListenOnLoopback(&port);
  EXPECT_EQ(LoopbackPeerUid(listener), std::nullopt);
  const int file = open("/dev/null", O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(LoopbackPeerUid(file), std::nullopt);
  CloseAll({udp, pair[0], pair[1], listener, file});
  EXPECT_EQ(LoopbackPeerUid(file), std::nullopt);
}

// A non-loopback address of this host's (host order), or 0 if it has none.
uint32_t NonLoopbackAddress() {
  ifaddrs* all = nullptr;
  if (getifaddrs(&all) != 0) return 0;
  uint32_t found = 0;
  for (const ifaddrs* i = all; i != nullptr && found == 0; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    const uint32_t address = ntohl(
        reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr);
    if ((address >> 24) != 127) found = address;
  }
  freeifaddrs(all);
  return found;
}

TEST_F(PeerQuotaTest, NoUidForAPeerOffLoopback) {
  const uint32_t own = NonLoopbackAddress();
  if (own == 0) GTEST_SKIP() << "this host has no IPv4 address off loopback";
  const sockaddr_in address = V4(own);
  int port;
  const int listener = Listen(reinterpret_cast<const sockaddr*>(&address),
                              sizeof address, &port);
  ASSERT_GE(listener, 0);
  const sockaddr_in to = V4(own, port);
  const int client = Connect(reinterpret_cast<const sockaddr*>(&to), sizeof to);
  const int server = Accept(listener);
  // On this host, but not from loopback: the kernel could say, but a peer
  // elsewhere would have no uid here, and the quota does not ask.
  EXPECT_EQ(LoopbackPeerUid(server), std::nullopt);
  CloseAll({listener, client, server});
}

TEST_F(PeerQuotaTest, WithoutAQuotaEveryConnectionIsAdmittedUncounted) {
  int port;
  const int listener = ListenOnLoopback(&port);
  const int client = ConnectToLoopback(port);
  const int server = Accept(listener);
  const PeerAdmission admission = AdmitPeer(server);
  EXPECT_TRUE(admission.admitted);
  EXPECT_FALSE(admission.counted);
  EXPECT_EQ(CurrentPeerQuota().uids, 0u);
  CloseAll({listener, client, server});
}

TEST_F(PeerQuotaTest, AUidHoldsItsQuotaAndAClosedConnectionFreesAPlace) {
  SetPeerQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 3});
  int port;
  const int listener = ListenOnLoopback(&port);
  std::vector<int> clients, servers;
  for (int i = 0; i < 5; ++i) {
    clients.push_back(ConnectToLoopback(port));
    servers.push_back(Accept(listener));
  }
  for (int i = 0; i < 5; ++i) {
    const PeerAdmission admission = AdmitPeer(servers[i]);
    EXPECT_EQ(admission.admitted, i < 3) << i;
    EXPECT_EQ(admission.counted, i < 3) << i;
    EXPECT_EQ(admission.uid, geteuid()) << i;
  }
  PeerQuotaRefusals refusals = PeerQuotaRefusalCounts();
  EXPECT_EQ(refusals.total, 2);
  EXPECT_EQ(refusals.most_refused_uid, geteuid());
  EXPECT_EQ(refusals.most_refused, 2);
  // The refused ones are closed by the caller; one admitted ends too.
  close(servers[3]);
  close(servers[4]);
  close(servers[1]);
  clients.push_back(ConnectToLoopback(port));
  // Its descriptor is likely servers[1]'s again: another socket now.
  servers[1] = Accept(listener);
  EXPECT_TRUE(AdmitPeer(servers[1]).admitted);
  // Three held again: the next is refused.
  clients.push_back(ConnectToLoopback(port));
  const int over = Accept(listener);
  EXPECT_FALSE(AdmitPeer(over).admitted);
  EXPECT_EQ(PeerQuotaRefusalCounts().total, 3);
  close(over);
  // A descriptor given to another file since counts no more either.
  const int admitted = servers[2];
  const int other = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_EQ(dup2(other, admitted), admitted);
  close(other);
  clients.push_back(ConnectToLoopback(port));
  const int next = Accept(listener);
  EXPECT_TRUE(AdmitPeer(next).admitted);
  CloseAll(clients);
  CloseAll({listener, servers[0], servers[1], admitted, next});
}

TEST_F(PeerQuotaTest, AUidOutsideTheRangeIsNeverCounted) {
  // Not every uid can be below this one: the range starts above it.
  SetPeerQuota({.first_uid = geteuid() + 1, .uids = 4, .per_uid = 1});
  int port;
  const int listener = ListenOnLoopback(&port);
  std::vector<int> fds;
  for (int i = 0; i < 3; ++i) {
    fds.push_back(ConnectToLoopback(port));
    fds.push_back(Accept(listener));
    const PeerAdmission admission = AdmitPeer(fds.back());
    EXPECT_TRUE(admission.admitted) << i;
    EXPECT_FALSE(admission.counted) << i;
  }
  EXPECT_EQ(PeerQuotaRefusalCounts().total, 0);
  fds.push_back(listener);
  CloseAll(fds);
}

TEST_F(PeerQuotaTest, SettingAQuotaAgainForgetsTheConnectionsCounted) {
  SetPeerQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 1});
  int port;
  const int listener = ListenOnLoopback(&port);
  std::vector<int> fds;
  for (int i = 0; i < 2; ++i) {
    fds.push_back(ConnectToLoopback(port));
    fds.push_back(Accept(listener));
  }
  EXPECT_TRUE(AdmitPeer(fds[1]).admitted);
  EXPECT_FALSE(AdmitPeer(fds[3]).admitted);
  SetPeerQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 1});
  EXPECT_EQ(PeerQuotaRefusalCounts().total, 0);
  EXPECT_TRUE(AdmitPeer(fds[3]).admitted);
  SetPeerQuota({});
  EXPECT_EQ(CurrentPeerQuota().uids, 0u);
  EXPECT_FALSE(AdmitPeer(fds[1]).counted);
  fds.push_back(listener);
  CloseAll(fds);
}

}  // namespace
}  // namespace pyramid
