// The read and write loops (referee/files/io_loops.h): what a signal, a
// short write, a file size limit, a full device and a file's end leave
// them with. (A regular file's pread is not interrupted by signals, so
// the EINTR case is WriteAll's; the three share one loop.)
#include "referee/files/io_loops.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/forked_child.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string Pattern(size_t size) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(i * 31 % 251);
  return bytes;
}

std::atomic<int> signals_caught{0};
void CatchSignal(int) { ++signals_caught; }

TEST(IoLoopsTest, WriteAllGoesOnAfterSignalsAndShortWrites) {
  // SIGUSR1 without SA_RESTART: a write to a full pipe it interrupts
  // returns EINTR, or the bytes it moved so far.
  struct sigaction action = {};
  action.sa_handler = CatchSignal;
  struct sigaction old;
  ASSERT_EQ(sigaction(SIGUSR1, &action, &old), 0);
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  fcntl(pipe_fds[1], F_SETPIPE_SZ, 4096);
  const std::string data = Pattern(1 << 20);
  IoProgress progress;
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    progress = WriteAll(pipe_fds[1], data);
    writing = false;
    close(pipe_fds[1]);  // What is not written by now never comes.
  });
  std::thread signaller([&, target = writer.native_handle()] {
    while (writing) {
      pthread_kill(target, SIGUSR1);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  });
  std::string got;
  char buffer[1000];
  while (got.size() < data.size()) {
    const ssize_t n = read(pipe_fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got.append(buffer, static_cast<size_t>(n));
  }
  writer.join();
  signaller.join();
  sigaction(SIGUSR1, &old, nullptr);
  close(pipe_fds[0]);
  EXPECT_GT(signals_caught.load(), 0);
  EXPECT_EQ(progress.done, data.size());
  EXPECT_EQ(progress.error, 0);
  EXPECT_TRUE(got == data);
}

// What `write` (WriteAll or PwriteAll on a new file) did under a file size
// limit of 100 bytes, as "done error errno", run in a child (the limit is
// the process's).
std::string UnderASizeLimit(const std::string& path,
                            IoProgress (*write)(int fd)) {
  ForkedChild child([&](int report) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit;
    getrlimit(RLIMIT_FSIZE, &limit);
    limit.rlim_cur = 100;
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(2);
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) _exit(3);
    const IoProgress progress = write(fd);
    const std::string line =
        absl::StrCat(progress.done, " ", progress.error, " ", errno);
    if (::write(report, line.data(), line.size()) !=
        static_cast<ssize_t>(line.size())) {
      _exit(4);
    }
  });
  if (!child.ok()) return "no child";
  std::string line = child.ReadToEnd();
  const ChildEnd end = child.Wait();
  if (end.exit_code != 0) return end.ToString();
  return line;
}

TEST(IoLoopsTest, WriteAllSaysHowMuchItWroteBeforeAnError) {
  TempDir dir("io-loops");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("limited");
  // The first write takes 100 bytes of 300, the next fails.
  EXPECT_EQ(
      UnderASizeLimit(path, [](int fd) { return WriteAll(fd, Pattern(300)); }),
      absl::StrCat("100 ", EFBIG, " ", EFBIG));
  EXPECT_EQ(Slurp(path), Pattern(100));
}

TEST(IoLoopsTest, PwriteAllWritesAtItsOffset) {
  TempDir dir("io-loops");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("at");
  EXPECT_EQ(UnderASizeLimit(
                path, [](int fd) { return PwriteAll(fd, Pattern(300), 60); }),
            absl::StrCat("40 ", EFBIG, " ", EFBIG));
  EXPECT_EQ(Slurp(path), std::string(60, '\0') + Pattern(40));

  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const IoProgress progress = PwriteAll(fd, "abc", 2);
  close(fd);
  EXPECT_EQ(progress.done, 3u);
  EXPECT_EQ(progress.error, 0);
  EXPECT_EQ(Slurp(path),
            std::string(2, '\0') + "abc" + std::string(55, '\0') + Pattern(40));
}

TEST(IoLoopsTest, WriteAllToAFullDeviceSaysWhy) {
  const int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  const IoProgress progress = WriteAll(fd, "bytes");
  const int error = errno;
  close(fd);
  EXPECT_EQ(progress.done, 0u);
  EXPECT_EQ(progress.error, ENOSPC);
  EXPECT_EQ(error, ENOSPC);
  EXPECT_STREQ(WriteStoppedText(progress), std::strerror(ENOSPC));
}

// A write that took no byte has no errno to tell: said so, not "Success".
TEST(IoLoopsTest, AWriteThatTookNothingIsSaidSo) {
  EXPECT_STREQ(WriteStoppedText(IoProgress{.done = 3, .error = 0}),
               "the file took no more bytes");
}

TEST(IoLoopsTest, PreadFullyStopsAtTheFilesEnd) {
  TempDir dir("io-loops");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("text");
  std::ofstream(path, std::ios::binary) << "hello world";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::string buffer(10, '.');

  IoProgress progress = PreadFully(fd, buffer.data(), 5, 6);
  EXPECT_EQ(progress.done, 5u);
  EXPECT_EQ(progress.error, 0);
  EXPECT_EQ(buffer, "world.....");

  buffer.assign(10, '.');
  progress = PreadFully(fd, buffer.data(), 10, 3);  // 8 bytes are left.
  EXPECT_EQ(progress.done, 8u);
  EXPECT_EQ(progress.error, 0);
  EXPECT_EQ(buffer, "lo world..");

  progress = PreadFully(fd, buffer.data(), 4, 20);  // Past the end.
  EXPECT_EQ(progress.done, 0u);
  EXPECT_EQ(progress.error, 0);
  close(fd);
}

TEST(IoLoopsTest, PreadFullyOfAPipeSaysWhy) {
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  char buffer[4];
  const IoProgress progress = PreadFully(pipe_fds[0], buffer, 4, 0);
  const int error = errno;
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  EXPECT_EQ(progress.done, 0u);
  EXPECT_EQ(progress.error, ESPIPE);
  EXPECT_EQ(error, ESPIPE);
}

}  // namespace
}  // namespace pyramid
