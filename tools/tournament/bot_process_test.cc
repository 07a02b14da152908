// BotProcess's restart policy on a real process that exits at once: the
// delays double from the initial one, and after the allowed restarts
// NextStart says to give up (InfiniteFuture) while Exited() reports the
// exit once, so a supervisor says "giving up" once and nothing after.
#include "tools/tournament/bot_process.h"

#include <string>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

// Waits until `bot` has exited; returns how Exited() described it.
std::string AwaitExit(BotProcess& bot) {
  for (int i = 0; i < 500; ++i) {
    std::string how = bot.Exited();
    if (!how.empty()) return how;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return "";
}

TEST(BotProcessTest, BacksOffThenGivesUpOnceOnABotThatExitsAtOnce) {
  const TempDir dir("botproc");
  ASSERT_TRUE(dir.ok());
  RestartBackoff backoff;
  backoff.initial = absl::Milliseconds(100);
  backoff.max = absl::Milliseconds(300);
  backoff.max_restarts = 3;
  BotProcess bot("quitter", {"/bin/false"}, {}, dir.File("bot.log"), backoff);
  ASSERT_TRUE(bot.Start().ok());
  const absl::Duration want[] = {absl::Milliseconds(100),
                                 absl::Milliseconds(200),
                                 absl::Milliseconds(300)};
  for (const absl::Duration delay : want) {
    EXPECT_EQ(AwaitExit(bot), "exit status 1");
    const absl::Time now = absl::Now();
    EXPECT_EQ(bot.NextStart(now), now + delay);
    ASSERT_TRUE(bot.Start().ok());
  }
  EXPECT_EQ(AwaitExit(bot), "exit status 1");
  EXPECT_EQ(bot.NextStart(absl::Now()), absl::InfiniteFuture());  // Give up.
  EXPECT_EQ(bot.Exited(), "");  // The exit is reported once, not again.
  EXPECT_EQ(bot.starts(), 4);
}

}  // namespace
}  // namespace pyramid
