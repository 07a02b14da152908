#include "referee/service/messages.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "tests/forked_child.h"

namespace pyramid {
namespace {

TEST(MessagesTest, AnEmbeddersSinkTakesThem) {
  std::string taken;
  Say([&taken](std::string_view message) { taken = message; }, "a message");
  EXPECT_EQ(taken, "a message");
}

// A stderr nobody reads (a pipe, full: a stalled log collector) does not
// stop the thread that says something (one serving a match or a client):
// the message is counted, and the count said before the next message
// stderr takes. Before, the write waited for the reader for good. In a
// child whose stderr is the pipe; its alarm ends it if it waits.
TEST(MessagesTest, AStalledStderrCountsMessagesInsteadOfWaiting) {
  ForkedChild child([](int report) {
    alarm(20);
    int ends[2];
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) _exit(2);
    const std::string filler(4096, '.');
    while (write(ends[1], filler.data(), filler.size()) > 0) {
    }
    // Blocking again, as a stderr pipe is.
    if (fcntl(ends[1], F_SETFL, 0) != 0) _exit(3);
    if (dup2(ends[1], STDERR_FILENO) != STDERR_FILENO) _exit(4);
    Say(nullptr, "match 1: broke");
    Say(nullptr, "match 2: broke");
    char part[8192];
    while (read(ends[0], part, sizeof part) > 0) {
    }
    Say(nullptr, "match 3: broke");
    const ssize_t size = read(ends[0], part, sizeof part);
    if (size > 0 && write(report, part, size) != size) _exit(5);
  });
  ASSERT_TRUE(child.ok()) << std::strerror(errno);
  const std::string said = child.ReadToEnd();
  const ChildEnd end = child.Wait();
  EXPECT_EQ(end.exit_code, 0)
      << end.ToString() << " (SIGALRM: a message waited for stderr)";
  EXPECT_EQ(said,
            "referee: 2 messages not written: stderr did not take them at "
            "once\nreferee: match 3: broke\n");
}

}  // namespace
}  // namespace pyramid
