#include "referee/service/messages.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/stalled_stderr.h"

namespace pyramid {
namespace {

TEST(MessagesTest, AnEmbeddersSinkTakesThem) {
  std::string taken;
  Say([&taken](std::string_view message) { taken = message; }, "a message");
  EXPECT_EQ(taken, "a message");
}

// What clients can make the referee say is given at most so many times
// per window; the rest counted, and the count said before the next message
// of a later window.
TEST(MessagesTest, ALimitedSinkHoldsBackBeyondItsBudget) {
  std::vector<std::string> taken;
  const MessageSink sink = LimitedSink(
      [&taken](std::string_view message) { taken.emplace_back(message); },
      /*lines=*/2, /*window=*/absl::Milliseconds(50));
  for (int i = 0; i < 5; ++i) Say(sink, "a log is gone");
  ASSERT_EQ(taken.size(), 2u);
  absl::SleepFor(absl::Milliseconds(60));  // The next window.
  Say(sink, "another");
  ASSERT_EQ(taken.size(), 4u);
  EXPECT_EQ(taken[2], "3 more such messages not said (at most 2 per 50ms)");
  EXPECT_EQ(taken[3], "another");
}

// Messages held back with nothing after them are counted when the sink
// goes (a referee's service stopping), not lost.
TEST(MessagesTest, ALimitedSinkSaysWhatItHeldBackWhenItGoes) {
  std::vector<std::string> taken;
  {
    MessageSink sink = LimitedSink(
        [&taken](std::string_view message) { taken.emplace_back(message); },
        /*lines=*/1, /*window=*/absl::Hours(1));
    const MessageSink copy = sink;
    for (int i = 0; i < 3; ++i) Say(copy, "a log is gone");
    ASSERT_EQ(taken.size(), 1u);
  }
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(taken[1], "2 more such messages not said (at most 1 per 1h)");
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
