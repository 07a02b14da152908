#include "referee/cli/accept_guard.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/cli/peer_quota.h"
#include "tests/forked_child.h"

namespace pyramid {
namespace {

using ::testing::HasSubstr;

using Accept4 = int (*)(int, sockaddr*, socklen_t*, int);

// accept4 as a shared library finds it (gRPC's libgrpc.so): the global
// lookup, which must find the guard's, not libc's.
Accept4 GlobalAccept4() {
  return reinterpret_cast<Accept4>(dlsym(RTLD_DEFAULT, "accept4"));
}

// A nonblocking (unless `blocking`) listening socket on 127.0.0.1; its port
// in `*port`.
int Listen(int* port, bool blocking = false) {
  const int fd =
      socket(AF_INET, SOCK_STREAM | (blocking ? 0 : SOCK_NONBLOCK), 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  EXPECT_EQ(listen(fd, 64), 0);
  socklen_t size = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  *port = ntohs(address.sin_port);
  return fd;
}

// A client connected to `port` (in the listen queue, not yet accepted).
int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address),
            0)
      << strerror(errno);
  return fd;
}

// Whether the server reset `client`'s connection (waits up to 2 s).
bool WasReset(int client) {
  pollfd ready = {.fd = client, .events = POLLIN, .revents = 0};
  if (poll(&ready, 1, 2000) != 1) return false;
  char byte;
  return recv(client, &byte, 1, MSG_DONTWAIT) < 0 && errno == ECONNRESET;
}

// Whether `client` and `server` talk (the connection was kept).
bool Talks(int client, int server) {
  char byte = 'x';
  if (send(client, &byte, 1, 0) != 1) return false;
  pollfd ready = {.fd = server, .events = POLLIN, .revents = 0};
  return poll(&ready, 1, 2000) == 1 && recv(server, &byte, 1, 0) == 1;
}

// The lowest free descriptor: the next one open() gets.
int LowestFree() {
  const int fd = open("/dev/null", O_RDONLY);
  close(fd);
  return fd;
}

TEST(AcceptGuardTest, SharedLibrariesCallTheGuard) {
  ASSERT_NE(GlobalAccept4(), nullptr);
  EXPECT_EQ(GlobalAccept4(), &accept4)
      << "accept4 of the global lookup (libgrpc.so's) is not the guard's: "
         "is it linked into the executable, and exported?";
}

TEST(AcceptGuardTest, ReservesAnEighthAndAtLeast64) {
  EXPECT_EQ(AcceptReserve(256), 64);
  EXPECT_EQ(AcceptReserve(1024), 128);
  EXPECT_EQ(AcceptReserve(1 << 20), 1 << 17);
  EXPECT_EQ(AcceptReserve(100), 50);  // At most half.
}

TEST(AcceptGuardTest, ResetsConnectionsOverTheCeilingAndDrainsTheQueue) {
  accept_guard_internal::Enable(INT_MAX, 1 << 20);  // Opens the reserve.
  int port;
  const int listener = Listen(&port);
  std::vector<int> clients;
  for (int i = 0; i < 6; ++i) clients.push_back(Connect(port));
  testing::internal::CaptureStderr();  // (Before LowestFree: it opens one.)
  const int first = LowestFree();
  accept_guard_internal::Enable(first + 2, 1 << 20);
  const AcceptGuardCounts before = AcceptGuardTotals();
  const Accept4 accept = GlobalAccept4();
  const int a = accept(listener, nullptr, nullptr, SOCK_NONBLOCK);
  const int b = accept(listener, nullptr, nullptr, SOCK_NONBLOCK);
  EXPECT_EQ(a, first);
  EXPECT_EQ(b, first + 1);
  // The four others are reset, and the queue drained: EAGAIN.
  errno = 0;
  EXPECT_EQ(accept(listener, nullptr, nullptr, SOCK_NONBLOCK), -1);
  EXPECT_EQ(errno, EAGAIN);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(AcceptGuardTotals().over_ceiling - before.over_ceiling, 4);
  EXPECT_TRUE(Talks(clients[0], a));
  EXPECT_TRUE(Talks(clients[1], b));
  for (int i = 2; i < 6; ++i) EXPECT_TRUE(WasReset(clients[i])) << i;
  // One line for the first reset; the rest wait for the next 10 s.
  EXPECT_THAT(said,
              HasSubstr(absl::StrCat(
                  "accept_guard_test: reset 1 connection (1 given a file "
                  "descriptor at or above ",
                  first + 2, ": the open-file limit 1048576 keeps the last ",
                  (1 << 20) - first - 2,
                  " for the process's own files); at most one such line per "
                  "10 s\n")));
  EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
  // The three held back are said by a flush: not within the 10 s (the
  // referee's every 10 s), at once at the end.
  testing::internal::CaptureStderr();
  FlushAcceptGuardReport(/*final=*/false);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  testing::internal::CaptureStderr();
  FlushAcceptGuardReport(/*final=*/true);
  EXPECT_THAT(testing::internal::GetCapturedStderr(),
              HasSubstr("accept_guard_test: reset 3 connections in the last "));
  testing::internal::CaptureStderr();
  FlushAcceptGuardReport(/*final=*/true);  // Nothing more to say.
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  for (int fd : clients) close(fd);
  close(a);
  close(b);
  close(listener);
}

// In a ForkedChild: copies what is in the pipe `from` (its stderr's, read
// without waiting) to `report`, for the test to read.
void ForwardStderr(int from, int report) {
  fcntl(from, F_SETFL, O_NONBLOCK);
  char part[4096];
  const ssize_t size = read(from, part, sizeof part);
  if (size > 0 && write(report, part, size) != size) _exit(9);
}

// For the tests of the report on a stderr that the thread that accepts may
// not write: a connection to a listener of its own, which the guard resets
// in a ForkedChild whose stderr is the pipe `stderr_pipe`.
class StderrReportRig {
 public:
  StderrReportRig() = default;
  StderrReportRig(const StderrReportRig&) = delete;
  StderrReportRig& operator=(const StderrReportRig&) = delete;
  ~StderrReportRig() {
    for (int fd : {stderr_pipe[0], stderr_pipe[1], client, listener}) {
      if (fd >= 0) close(fd);
    }
  }

  // The listener, the client's connection to it and the pipe.
  void Open() {
    int port;
    listener = Listen(&port);
    client = Connect(port);
    ASSERT_EQ(pipe2(stderr_pipe, O_CLOEXEC), 0);
  }

  // Runs in a ForkedChild whose stderr is the pipe (its alarm ends it if it
  // waits): `before`, then the guard's reset of the client's connection
  // (every connection over its ceiling), then `after`, then the final flush;
  // `*end` is how it ended (2 or 3: the stderr or the reset failed; a code
  // of `before` or `after`) and `*said` what it wrote to its stderr last.
  void ResetInAChild(const std::function<void()>& before,
                     const std::function<void()>& after, ChildEnd* end,
                     std::string* said) {
    ForkedChild child([&](int report) {
      alarm(60);  // A report that waits on the pipe ends here.
      if (dup2(stderr_pipe[1], STDERR_FILENO) != STDERR_FILENO) _exit(2);
      before();
      accept_guard_internal::Enable(0, 1 << 20);  // Every connection over it.
      if (GlobalAccept4()(listener, nullptr, nullptr, SOCK_NONBLOCK) != -1) {
        _exit(3);
      }
      after();
      FlushAcceptGuardReport(/*final=*/true);
      ForwardStderr(stderr_pipe[0], report);
    });
    ASSERT_TRUE(child.ok()) << std::strerror(errno);
    close(stderr_pipe[1]);
    stderr_pipe[1] = -1;
    *said = child.ReadToEnd();
    *end = child.Wait();
  }

  int listener = -1;
  int client = -1;
  int stderr_pipe[2] = {-1, -1};
};

// A stderr nobody reads (a pipe, full: a stalled log collector) makes the
// report neither block the thread that accepts nor the flush (the
// referee's main thread, which must go on to take SIGTERM): the line is
// not written, and its count is said by the next line once the pipe has
// room. Before, the write waited for the reader for good. In a child, whose
// stderr is the pipe; the child's alarm ends it if it waits.
TEST(AcceptGuardTest, AFullStderrMakesTheReportWaitNeverAndSayItLater) {
  StderrReportRig rig;
  ASSERT_NO_FATAL_FAILURE(rig.Open());
  // Full: written without blocking until the pipe takes no more, then
  // blocking again, as a stderr pipe is.
  const int flags = fcntl(rig.stderr_pipe[1], F_GETFL);
  ASSERT_EQ(fcntl(rig.stderr_pipe[1], F_SETFL, flags | O_NONBLOCK), 0);
  const std::string filler(4096, '.');
  while (write(rig.stderr_pipe[1], filler.data(), filler.size()) > 0) {
  }
  ASSERT_EQ(errno, EAGAIN);
  ASSERT_EQ(fcntl(rig.stderr_pipe[1], F_SETFL, flags), 0);

  ChildEnd end;
  std::string said;
  // The reset's line is due at once, and the final flush's whatever the
  // time: neither may wait.
  ASSERT_NO_FATAL_FAILURE(rig.ResetInAChild(
      [] {},
      [&] {
        FlushAcceptGuardReport(/*final=*/true);
        // Room again (the filler read): the count not said is said by
        // the final flush.
        fcntl(rig.stderr_pipe[0], F_SETFL, O_NONBLOCK);
        char part[4096];
        while (read(rig.stderr_pipe[0], part, sizeof part) > 0) {
        }
      },
      &end, &said));
  EXPECT_EQ(end.exit_code, 0)
      << end.ToString() << " (SIGALRM: the report waited for stderr)";
  EXPECT_THAT(said, HasSubstr("accept_guard_test: reset 1 connection (1 "
                              "given a file descriptor at or above 0"));
  EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
  EXPECT_TRUE(WasReset(rig.client));
}

// A stderr pipe /proc cannot open again (another user's: the process runs
// as uid 65534 here, the pipe is root's), so that no write to it is known
// not to wait: the thread that accepts never writes the line (it might
// wait there), the flush does. As root, in a child.
TEST(AcceptGuardTest, AStderrOfAnotherUserIsWrittenByTheFlushAlone) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root, to run the child as 65534";
  StderrReportRig rig;
  ASSERT_NO_FATAL_FAILURE(rig.Open());
  ChildEnd end;
  std::string said;
  ASSERT_NO_FATAL_FAILURE(rig.ResetInAChild(
      [] {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(4);
        if (open("/proc/self/fd/2", O_WRONLY | O_CLOEXEC) >= 0) _exit(5);
      },
      [&] {
        // Nothing said by the thread that accepted, though the pipe has
        // room.
        fcntl(rig.stderr_pipe[0], F_SETFL, O_NONBLOCK);
        char part[4096];
        if (read(rig.stderr_pipe[0], part, sizeof part) > 0) _exit(6);
      },
      &end, &said));
  EXPECT_EQ(end.exit_code, 0)
      << end.ToString() << " (6: the thread that accepted wrote)";
  EXPECT_THAT(said, HasSubstr("accept_guard_test: reset 1 connection (1 "
                              "given a file descriptor at or above 0"));
  EXPECT_TRUE(WasReset(rig.client));
}

TEST(AcceptGuardTest, TheListenQueueLengthIsTheKernels) {
  int expected = 4096;
  FILE* file = fopen("/proc/sys/net/core/somaxconn", "re");
  if (file != nullptr) {
    ASSERT_EQ(fscanf(file, "%d", &expected), 1);
    fclose(file);
  }
  EXPECT_EQ(ListenQueueLength(), expected);
}

TEST(AcceptGuardTest, OutOfDescriptorsResetsWithTheReserveAndRecovers) {
  accept_guard_internal::Enable(INT_MAX, 1 << 20);
  int port;
  const int listener = Listen(&port);
  std::vector<int> clients;
  for (int i = 0; i < 3; ++i) clients.push_back(Connect(port));
  rlimit limit;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  rlimit low = limit;
  low.rlim_cur = LowestFree() + 8;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<int> fillers;
  for (int fd; (fd = open("/dev/null", O_RDONLY)) >= 0;) fillers.push_back(fd);
  ASSERT_EQ(errno, EMFILE);
  const AcceptGuardCounts before = AcceptGuardTotals();
  errno = 0;
  // Without the guard: -1, EMFILE (on which gRPC 1.51 stops listening).
  EXPECT_EQ(GlobalAccept4()(listener, nullptr, nullptr, SOCK_NONBLOCK), -1);
  EXPECT_EQ(errno, EAGAIN);
  EXPECT_EQ(AcceptGuardTotals().no_descriptor - before.no_descriptor, 3);
  for (int fd : fillers) close(fd);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &limit), 0);
  for (int client : clients) EXPECT_TRUE(WasReset(client));
  // With descriptors free again, a connection is accepted as usual.
  const int late = Connect(port);
  const int accepted =
      GlobalAccept4()(listener, nullptr, nullptr, SOCK_NONBLOCK);
  EXPECT_GE(accepted, 0);
  EXPECT_TRUE(Talks(late, accepted));
  for (int fd : clients) close(fd);
  close(late);
  close(accepted);
  close(listener);
}

// The clock of the quota's checks for closed connections (peer_quota.h),
// moved on by the test instead of waiting.
int64_t fake_nanos = 0;
int64_t FakeClock() { return fake_nanos; }

// A local uid at its quota of connections (peer_quota.h): its next ones
// are reset though descriptors below the ceiling are free, counted and said
// apart from the others; one of its own closed lets the next in.
TEST(AcceptGuardTest, ResetsTheConnectionsOfAUidAtItsQuota) {
  accept_guard_internal::Enable(INT_MAX, 1 << 20);  // The report afresh.
  peer_quota_internal::SetClock(&FakeClock);
  ASSERT_TRUE(
      SetPeerQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 2}).ok());
  int port;
  const int listener = Listen(&port);
  std::vector<int> clients;
  for (int i = 0; i < 4; ++i) clients.push_back(Connect(port));
  const AcceptGuardCounts before = AcceptGuardTotals();
  testing::internal::CaptureStderr();
  const Accept4 accept = GlobalAccept4();
  const int a = accept(listener, nullptr, nullptr, SOCK_NONBLOCK);
  const int b = accept(listener, nullptr, nullptr, SOCK_NONBLOCK);
  EXPECT_GE(a, 0);
  EXPECT_GE(b, 0);
  // The two others are reset, and the queue drained: EAGAIN.
  errno = 0;
  EXPECT_EQ(accept(listener, nullptr, nullptr, SOCK_NONBLOCK), -1);
  EXPECT_EQ(errno, EAGAIN);
  const std::string said = testing::internal::GetCapturedStderr();
  const AcceptGuardCounts after = AcceptGuardTotals();
  EXPECT_EQ(after.over_quota - before.over_quota, 2);
  EXPECT_EQ(after.over_ceiling, before.over_ceiling);
  EXPECT_EQ(after.no_descriptor, before.no_descriptor);
  EXPECT_EQ(after.uid_unknown, before.uid_unknown);
  EXPECT_TRUE(Talks(clients[0], a));
  EXPECT_TRUE(Talks(clients[1], b));
  EXPECT_TRUE(WasReset(clients[2]));
  EXPECT_TRUE(WasReset(clients[3]));
  EXPECT_EQ(said, absl::StrCat("accept_guard_test: reset 1 connection (1 from "
                               "a local uid holding its quota of 2 "
                               "connections: uid ",
                               geteuid(),
                               " the most, 1 since the quota was set); at "
                               "most one such line per 10 s\n"));
  // One of the two ends: the next is admitted (once the quota checks the
  // uid's connections again, kRescanMillis after the last check).
  close(a);
  fake_nanos += int64_t{kRescanMillis} * 1'000'000;
  const int late = Connect(port);
  const int accepted = accept(listener, nullptr, nullptr, SOCK_NONBLOCK);
  EXPECT_GE(accepted, 0);
  EXPECT_TRUE(Talks(late, accepted));
  testing::internal::CaptureStderr();
  FlushAcceptGuardReport(/*final=*/true);
  EXPECT_THAT(
      testing::internal::GetCapturedStderr(),
      HasSubstr(absl::StrCat("the most, 2 since the quota was set); ")));
  ASSERT_TRUE(SetPeerQuota({}).ok());
  peer_quota_internal::SetClock(nullptr);
  for (int fd : clients) close(fd);
  close(late);
  close(accepted);
  close(b);
  close(listener);
}

// Under a quota, a connection to a loopback listener whose peer's uid the
// kernel does not say is reset (else a bot hiding its uid would get past
// its quota), counted and said apart from those over the quota.
TEST(AcceptGuardTest, ResetsUnderAQuotaTheConnectionsOfAnUnknownUid) {
  accept_guard_internal::Enable(INT_MAX, 1 << 20);  // The report afresh.
  ASSERT_TRUE(
      SetPeerQuota({.first_uid = geteuid(), .uids = 1, .per_uid = 1}).ok());
  int port;
  const int listener = Listen(&port);
  const int client = Connect(port);
  const AcceptGuardCounts before = AcceptGuardTotals();
  peer_quota_internal::FailLookups(true);  // As without inet_diag.
  testing::internal::CaptureStderr();
  errno = 0;
  EXPECT_EQ(GlobalAccept4()(listener, nullptr, nullptr, SOCK_NONBLOCK), -1);
  EXPECT_EQ(errno, EAGAIN);
  const std::string said = testing::internal::GetCapturedStderr();
  peer_quota_internal::FailLookups(false);
  const AcceptGuardCounts after = AcceptGuardTotals();
  EXPECT_EQ(after.uid_unknown - before.uid_unknown, 1);
  EXPECT_EQ(after.over_quota, before.over_quota);
  EXPECT_TRUE(WasReset(client));
  EXPECT_EQ(said,
            "accept_guard_test: reset 1 connection (1 to a loopback listener "
            "from a peer whose uid the kernel did not say (sock_diag), "
            "refused under the quota); at most one such line per 10 s\n");
  // The lookups back: the next is admitted.
  const int late = Connect(port);
  const int accepted =
      GlobalAccept4()(listener, nullptr, nullptr, SOCK_NONBLOCK);
  EXPECT_GE(accepted, 0);
  EXPECT_TRUE(Talks(late, accepted));
  ASSERT_TRUE(SetPeerQuota({}).ok());
  close(client);
  close(late);
  close(accepted);
  close(listener);
}

TEST(AcceptGuardTest, LeavesBlockingSocketsAlone) {
  accept_guard_internal::Enable(0, 1 << 20);  // Every descriptor over it.
  int port;
  const int listener = Listen(&port, /*blocking=*/true);
  const int client = Connect(port);
  const int accepted = GlobalAccept4()(listener, nullptr, nullptr, 0);
  EXPECT_GE(accepted, 0);
  EXPECT_TRUE(Talks(client, accepted));
  close(client);
  close(accepted);
  close(listener);
}

}  // namespace
}  // namespace pyramid
