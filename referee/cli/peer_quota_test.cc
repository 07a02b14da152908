#include "referee/cli/peer_quota.h"

#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "gmock/gmock.h"
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

// Sets `settings`, which must succeed.
void SetQuota(const PeerQuotaSettings& settings) {
  const absl::Status set = SetPeerQuota(settings);
  ASSERT_TRUE(set.ok()) << set;
}

// The clock of the checks of a uid's connections, when a test sets it.
int64_t fake_nanos = 0;
int64_t FakeClock() { return fake_nanos; }

class PeerQuotaTest : public testing::Test {
 protected:
  void TearDown() override {
    peer_quota_internal::FailLookups(false);
    peer_quota_internal::SetClock(nullptr);
    SetQuota({});
  }
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
  SetQuota({.first_uid = kOther, .uids = 1, .per_uid = 1});
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

// A connection to a listener off loopback may come from another host: its
// uid is not asked, and the quota admits it uncounted.
TEST_F(PeerQuotaTest, AConnectionToAListenerOffLoopbackIsNotAskedAbout) {
  const uint32_t own = NonLoopbackAddress();
  if (own == 0) GTEST_SKIP() << "this host has no IPv4 address off loopback";
  SetQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 1});
  const sockaddr_in address = V4(own);
  int port;
  const int listener = Listen(reinterpret_cast<const sockaddr*>(&address),
                              sizeof address, &port);
  ASSERT_GE(listener, 0);
  const sockaddr_in to = V4(own, port);
  std::vector<int> fds = {listener};
  for (int i = 0; i < 2; ++i) {
    fds.push_back(Connect(reinterpret_cast<const sockaddr*>(&to), sizeof to));
    fds.push_back(Accept(listener));
    EXPECT_EQ(LoopbackPeerUid(fds.back()), std::nullopt);
    const PeerAdmission admission = AdmitPeer(fds.back());
    EXPECT_TRUE(admission.admitted) << i;
    EXPECT_FALSE(admission.counted) << i;
  }
  CloseAll(fds);
}

// How a hog binds its client sockets before it connects to 127.0.0.1: to
// an address of this host's (host order), or to a device
// (SO_BINDTODEVICE).
struct ClientBinding {
  uint32_t address = INADDR_ANY;
  const char* device = nullptr;
};

// Under a quota of 2 connections for this uid, three clients bound as
// `binding` says connect to a listener on 127.0.0.1: the peer of each is
// the address bound (if one is), its uid is asked and is this one's, the
// first two are admitted and counted, and the third is refused. Where a
// client cannot be bound, `*bind_error` says why (strerror) and nothing
// more is done.
void ConnectAndAdmit(const ClientBinding& binding, std::string* bind_error) {
  SetQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 2});
  int port;
  const int listener = ListenOnLoopback(&port);
  ASSERT_GE(listener, 0);
  std::vector<int> fds = {listener};
  const auto close_all = absl::MakeCleanup([&] { CloseAll(fds); });
  for (int i = 0; i < 3; ++i) {
    const int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    fds.push_back(client);
    const sockaddr_in from = V4(binding.address);
    if ((binding.address != INADDR_ANY &&
         bind(client, reinterpret_cast<const sockaddr*>(&from), sizeof from) !=
             0) ||
        (binding.device != nullptr &&
         setsockopt(client, SOL_SOCKET, SO_BINDTODEVICE, binding.device,
                    strlen(binding.device) + 1) != 0)) {
      *bind_error = strerror(errno);
      return;
    }
    const sockaddr_in to = V4(INADDR_LOOPBACK, port);
    ASSERT_EQ(
        connect(client, reinterpret_cast<const sockaddr*>(&to), sizeof to), 0)
        << strerror(errno);
    fds.push_back(Accept(listener));
    if (binding.address != INADDR_ANY) {
      sockaddr_in peer;
      socklen_t size = sizeof peer;
      ASSERT_EQ(
          getpeername(fds.back(), reinterpret_cast<sockaddr*>(&peer), &size),
          0);
      EXPECT_EQ(ntohl(peer.sin_addr.s_addr), binding.address);
    }
    EXPECT_EQ(LoopbackPeerUid(fds.back()), geteuid()) << i;
    const PeerAdmission admission = AdmitPeer(fds.back());
    EXPECT_EQ(admission.admitted, i < 2) << i;
    EXPECT_EQ(admission.counted, i < 2) << i;
    EXPECT_FALSE(admission.uid_unknown) << i;
  }
  EXPECT_EQ(PeerQuotaRefusalCounts().total, 1);
}

// A bot that binds its socket to another address of this host's before it
// connects to 127.0.0.1: the peer is off loopback, but the listener is on
// it, so the peer is on this host and its uid is asked, and counted.
TEST_F(PeerQuotaTest, APeerBoundToAnAddressOffLoopbackIsCounted) {
  const uint32_t own = NonLoopbackAddress();
  if (own == 0) GTEST_SKIP() << "this host has no IPv4 address off loopback";
  std::string bind_error;
  ASSERT_NO_FATAL_FAILURE(ConnectAndAdmit({.address = own}, &bind_error));
  EXPECT_EQ(bind_error, "");
}

// A bot that binds its socket to the device "lo" (SO_BINDTODEVICE, no
// privilege needed since Linux 5.7): the lookup matches it too.
TEST_F(PeerQuotaTest, APeerBoundToTheLoopbackDeviceIsCounted) {
  std::string bind_error;
  ASSERT_NO_FATAL_FAILURE(ConnectAndAdmit({.device = "lo"}, &bind_error));
  if (!bind_error.empty()) {
    GTEST_SKIP() << "SO_BINDTODEVICE: " << bind_error
                 << " (unprivileged only from Linux 5.7)";
  }
}

// Under a quota, a connection to a loopback listener whose uid the kernel
// does not say is refused (without a quota, admitted): else a bot that hid
// its uid would hold connections past its quota.
TEST_F(PeerQuotaTest, UnderAQuotaAPeerOfUnknownUidIsRefused) {
  SetQuota({.first_uid = geteuid() + 1, .uids = 1, .per_uid = 1});
  int port;
  const int listener = ListenOnLoopback(&port);
  const int client = ConnectToLoopback(port);
  const int server = Accept(listener);
  peer_quota_internal::FailLookups(true);  // As without inet_diag.
  EXPECT_EQ(LoopbackPeerUid(server), std::nullopt);
  PeerAdmission admission = AdmitPeer(server);
  EXPECT_FALSE(admission.admitted);
  EXPECT_FALSE(admission.counted);
  EXPECT_TRUE(admission.uid_unknown);
  PeerQuotaRefusals refusals = PeerQuotaRefusalCounts();
  EXPECT_EQ(refusals.uid_unknown, 1);
  EXPECT_EQ(refusals.total, 0);
  SetQuota({});
  admission = AdmitPeer(server);
  EXPECT_TRUE(admission.admitted);
  EXPECT_FALSE(admission.uid_unknown);
  CloseAll({listener, client, server});
}

// A client gone (reset) before its connection is looked at has no socket
// left to ask about: refused under a quota, which costs it nothing.
TEST_F(PeerQuotaTest, UnderAQuotaAPeerGoneAlreadyIsRefused) {
  SetQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 4});
  int port;
  const int listener = ListenOnLoopback(&port);
  const int client = ConnectToLoopback(port);
  const linger abort = {.l_onoff = 1, .l_linger = 0};
  ASSERT_EQ(setsockopt(client, SOL_SOCKET, SO_LINGER, &abort, sizeof abort), 0);
  close(client);
  const int server = Accept(listener);
  const PeerAdmission admission = AdmitPeer(server);
  EXPECT_FALSE(admission.admitted);
  EXPECT_TRUE(admission.uid_unknown);
  CloseAll({listener, server});
}

// SetPeerQuota checks that the kernel says a loopback peer's uid: it does
// not set a quota that would refuse every connection.
TEST_F(PeerQuotaTest, AQuotaIsSetOnlyWhereTheKernelSaysThePeersUid) {
  peer_quota_internal::FailLookups(true);
  const absl::Status set =
      SetPeerQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 1});
  EXPECT_EQ(set.code(), absl::StatusCode::kFailedPrecondition) << set;
  EXPECT_THAT(set.message(), testing::HasSubstr("sock_diag"));
  EXPECT_EQ(CurrentPeerQuota().uids, 0u);
  // Lifting one needs no lookup.
  EXPECT_TRUE(SetPeerQuota({}).ok());
  peer_quota_internal::FailLookups(false);
  EXPECT_TRUE(
      SetPeerQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 1}).ok());
  EXPECT_EQ(CurrentPeerQuota().uids, 1u);
}

// A uid at its quota has its connections checked for those closed at most
// once per kRescanMillis, unless the last check freed a place: a flood of
// connections over the quota costs no check of every entry each.
TEST_F(PeerQuotaTest, AUidAtItsQuotaIsCheckedAtMostOncePerInterval) {
  fake_nanos = 1'000'000'000;
  peer_quota_internal::SetClock(&FakeClock);
  SetQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 2});
  int port;
  const int listener = ListenOnLoopback(&port);
  std::vector<int> clients, servers;
  const auto next = [&] {
    clients.push_back(ConnectToLoopback(port));
    servers.push_back(Accept(listener));
    return AdmitPeer(servers.back()).admitted;
  };
  EXPECT_TRUE(next());
  EXPECT_TRUE(next());
  EXPECT_FALSE(next());  // Checked: both still open.
  close(servers[0]);
  // Within the interval, not checked again: the place freed is not seen.
  EXPECT_FALSE(next());
  fake_nanos += int64_t{kRescanMillis} * 1'000'000 - 1;
  EXPECT_FALSE(next());
  fake_nanos += 1;
  EXPECT_TRUE(next());  // Checked again: one closed.
  // The last check freed a place: the next is checked at once.
  close(servers[1]);
  EXPECT_TRUE(next());
  // That check freed one too; this one frees none, and the next waits.
  EXPECT_FALSE(next());
  close(servers[5]);
  EXPECT_FALSE(next());
  EXPECT_EQ(PeerQuotaRefusalCounts().total, 5);
  CloseAll(clients);
  for (size_t i = 2; i < servers.size(); ++i) {
    if (i != 5) close(servers[i]);
  }
  close(listener);
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
  // The checks for closed connections are not spaced out by the real
  // clock here (AUidAtItsQuotaIsCheckedAtMostOncePerInterval): each
  // refusal below is kRescanMillis after the last.
  peer_quota_internal::SetClock(&FakeClock);
  const auto later = [] { fake_nanos += int64_t{kRescanMillis} * 1'000'000; };
  SetQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 3});
  int port;
  const int listener = ListenOnLoopback(&port);
  std::vector<int> clients, servers;
  for (int i = 0; i < 5; ++i) {
    clients.push_back(ConnectToLoopback(port));
    servers.push_back(Accept(listener));
  }
  for (int i = 0; i < 5; ++i) {
    later();
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
  later();
  EXPECT_TRUE(AdmitPeer(servers[1]).admitted);
  // Three held again: the next is refused.
  clients.push_back(ConnectToLoopback(port));
  const int over = Accept(listener);
  later();
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
  later();
  EXPECT_TRUE(AdmitPeer(next).admitted);
  CloseAll(clients);
  CloseAll({listener, servers[0], servers[1], admitted, next});
}

TEST_F(PeerQuotaTest, AUidOutsideTheRangeIsNeverCounted) {
  // Not every uid can be below this one: the range starts above it.
  SetQuota({.first_uid = geteuid() + 1, .uids = 4, .per_uid = 1});
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
  SetQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 1});
  int port;
  const int listener = ListenOnLoopback(&port);
  std::vector<int> fds;
  for (int i = 0; i < 2; ++i) {
    fds.push_back(ConnectToLoopback(port));
    fds.push_back(Accept(listener));
  }
  EXPECT_TRUE(AdmitPeer(fds[1]).admitted);
  EXPECT_FALSE(AdmitPeer(fds[3]).admitted);
  SetQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 1});
  EXPECT_EQ(PeerQuotaRefusalCounts().total, 0);
  EXPECT_TRUE(AdmitPeer(fds[3]).admitted);
  SetQuota({});
  EXPECT_EQ(CurrentPeerQuota().uids, 0u);
  EXPECT_FALSE(AdmitPeer(fds[1]).counted);
  fds.push_back(listener);
  CloseAll(fds);
}

}  // namespace
}  // namespace pyramid
