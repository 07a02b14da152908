#include "referee/files/stderr_line.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/forked_child.h"
#include "tests/stalled_stderr.h"

namespace pyramid {
namespace {

TEST(StderrLineTest, AFullPipeTakesNothingAndNeverWaits) {
  std::string said;
  const ChildEnd end = WithAStalledStderr(
      [](const std::function<void()>& drain) {
        PrepareStderrLines();
        for (StderrWait wait : {StderrWait::kNever, StderrWait::kIfNeeded}) {
          if (WriteStderrLine("not taken\n", wait)) _exit(6);
        }
        drain();
        if (!WriteStderrLine("taken\n", StderrWait::kNever)) _exit(7);
      },
      &said);
  EXPECT_EQ(end.exit_code, 0)
      << end.ToString() << " (SIGALRM: a write waited; 6: a line was taken)";
  EXPECT_EQ(said, "taken\n");
}

// A line longer than a pipe takes whole is cut, and still ends a line.
TEST(StderrLineTest, ALongLineIsCutToWhatAPipeTakesWhole) {
  std::string said;
  const ChildEnd end = WithAStalledStderr(
      [](const std::function<void()>& drain) {
        drain();
        std::string line(2 * kMaxStderrLineBytes, 'x');
        line.push_back('\n');
        if (!WriteStderrLine(line, StderrWait::kNever)) _exit(6);
      },
      &said);
  EXPECT_EQ(end.exit_code, 0) << end.ToString();
  std::string cut(kMaxStderrLineBytes - 1, 'x');
  cut.push_back('\n');
  EXPECT_EQ(said, cut);
}

// A line that may wait, to a full pipe that /proc cannot open again (no
// descriptor left), waits in its write; a line that must not wait, written
// meanwhile by another thread, is not held up behind it.
TEST(StderrLineTest, ALineThatWaitsHoldsUpNoLineThatMustNot) {
  std::string said;
  const ChildEnd end = WithAStalledStderr(
      [](const std::function<void()>& drain) {
        // The thread runs before the descriptors go: a sanitizer's runtime
        // opens files as a thread starts.
        std::atomic<bool> running{false}, go{false};
        std::thread waits([&running, &go] {
          running.store(true);
          while (!go.load()) std::this_thread::yield();
          if (!WriteStderrLine("waited\n", StderrWait::kIfNeeded)) _exit(7);
        });
        while (!running.load()) std::this_thread::yield();
        const struct rlimit none = {0, 0};
        if (setrlimit(RLIMIT_NOFILE, &none) != 0) _exit(6);
        go.store(true);
        // Time for it to be in its write (if not yet, the line below is
        // written first, and the test shows nothing, never a failure).
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        if (WriteStderrLine("not taken\n", StderrWait::kNever)) _exit(8);
        drain();
        waits.join();
      },
      &said);
  EXPECT_EQ(end.exit_code, 0)
      << end.ToString() << " (SIGALRM: the line that must not wait waited) "
      << said;
  // The waited line went as the pipe was drained: into what the drain
  // read, or after it.
  EXPECT_TRUE(said.empty() || said == "waited\n") << said;
}

// A socket whose buffer takes only the start of a line (Linux sends a
// stream socket's write in parts of half its buffer, and takes a part
// while the buffer is not yet full): that line counts as not written, and
// the next begins with a newline that ends it. The reader gets lines, each
// a whole one written or the start of one, never the start of one run into
// the next; and as many whole ones as WriteStderrLine said it wrote.
TEST(StderrLineTest, TheStartOfALineASocketTookIsEndedByTheNextLine) {
  ForkedChild child([](int report) {
    alarm(20);
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
      _exit(2);
    }
    const int smallest = 1;  // The kernel takes its least, about 4.5 KiB.
    if (setsockopt(ends[1], SOL_SOCKET, SO_SNDBUF, &smallest,
                   sizeof smallest) != 0 ||
        dup2(ends[1], STDERR_FILENO) != STDERR_FILENO) {
      _exit(3);
    }
    int taken = 0;
    for (int i = 0; i < 4; ++i) {
      const std::string line = "line " + std::to_string(i) + " " +
                               std::string(i == 0 ? 2000 : 4000, 'x') + "\n";
      taken += WriteStderrLine(line, StderrWait::kNever) ? 1 : 0;
    }
    std::string said;
    char part[8192];
    ssize_t size;
    while ((size = recv(ends[0], part, sizeof part, MSG_DONTWAIT)) > 0) {
      said.append(part, size);
    }
    if (WriteStderrLine("last\n", StderrWait::kNever)) ++taken;
    while ((size = recv(ends[0], part, sizeof part, MSG_DONTWAIT)) > 0) {
      said.append(part, size);
    }
    if (write(report, said.data(), said.size()) !=
        static_cast<ssize_t>(said.size())) {
      _exit(4);
    }
    _exit(10 + taken);
  });
  ASSERT_TRUE(child.ok());
  const std::string said = child.ReadToEnd();
  const ChildEnd end = child.Wait();
  ASSERT_GE(end.exit_code, 10) << end.ToString();
  const int taken = end.exit_code - 10;
  std::vector<std::string> written = {"last"};
  for (int i = 0; i < 4; ++i) {
    written.push_back("line " + std::to_string(i) + " " +
                      std::string(i == 0 ? 2000 : 4000, 'x'));
  }
  ASSERT_FALSE(said.empty());
  EXPECT_EQ(said.back(), '\n');
  int whole = 0;
  size_t from = 0;
  for (size_t to; (to = said.find('\n', from)) != std::string::npos;
       from = to + 1) {
    const std::string line = said.substr(from, to - from);
    bool known = false;
    for (const std::string& w : written) {
      if (w == line) ++whole;
      known = known || w.compare(0, line.size(), line) == 0;
    }
    EXPECT_TRUE(known) << "a line run into another: " << line.substr(0, 80)
                       << "..." << line.substr(line.size() - 20);
  }
  EXPECT_EQ(whole, taken);
  EXPECT_TRUE(said.ends_with("last\n"));
}

}  // namespace
}  // namespace pyramid
