#include "referee/service/messages.h"

#include <functional>
#include <string>

#include "gtest/gtest.h"
#include "tests/stalled_stderr.h"

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
  std::string said;
  const ChildEnd end = WithAStalledStderr(
      [](const std::function<void()>& drain) {
        Say(nullptr, "match 1: broke");
        Say(nullptr, "match 2: broke");
        drain();
        Say(nullptr, "match 3: broke");
      },
      &said);
  EXPECT_EQ(end.exit_code, 0)
      << end.ToString() << " (SIGALRM: a message waited for stderr)";
  EXPECT_EQ(said,
            "referee: 2 messages not written: stderr did not take them at "
            "once\nreferee: match 3: broke\n");
}

}  // namespace
}  // namespace pyramid
