#include "referee/files/stderr_line.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "tests/forked_child.h"

namespace pyramid {
namespace {

// Runs `body` in a child whose stderr is a pipe that is full (a stalled
// reader) until `body` calls `drain`; what the pipe holds after that is
// `*said`. The child's alarm ends it if a write waits.
ChildEnd WithAFullStderrPipe(
    const std::function<void(const std::function<void()>& drain)>& body,
    std::string* said) {
  ForkedChild child([&body](int report) {
    alarm(20);
    int ends[2];
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) _exit(2);
    const std::string filler(4096, '.');
    while (write(ends[1], filler.data(), filler.size()) > 0) {
    }
    // Blocking again, as a stderr pipe is.
    if (fcntl(ends[1], F_SETFL, 0) != 0) _exit(3);
    if (dup2(ends[1], STDERR_FILENO) != STDERR_FILENO) _exit(4);
    char part[8192];
    body([&] {
      while (read(ends[0], part, sizeof part) > 0) {
      }
    });
    const ssize_t size = read(ends[0], part, sizeof part);
    if (size > 0 && write(report, part, size) != size) _exit(5);
  });
  if (!child.ok()) {
    *said = std::strerror(errno);
    return ChildEnd();
  }
  *said = child.ReadToEnd();
  return child.Wait();
}

TEST(StderrLineTest, AFullPipeTakesNothingAndNeverWaits) {
  std::string said;
  const ChildEnd end = WithAFullStderrPipe(
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
  const ChildEnd end = WithAFullStderrPipe(
      [](const std::function<void()>& drain) {
        drain();
        const std::string line(2 * kMaxStderrLineBytes, 'x');
        if (!WriteStderrLine(line + "\n", StderrWait::kNever)) _exit(6);
      },
      &said);
  EXPECT_EQ(end.exit_code, 0) << end.ToString();
  EXPECT_EQ(said, std::string(kMaxStderrLineBytes - 1, 'x') + "\n");
}

}  // namespace
}  // namespace pyramid
