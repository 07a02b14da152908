// The bounds a running referee's match is held to (remote_match_bounds.h):
// each game's bound on its moves under its options and seats, the events
// one Watch stream carries, and the silence a decision's clocks allow.
// What a referee beyond them costs the runner is in referee_link_test.cc.
#include "tools/tournament/remote_match_bounds.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "referee/games/description.h"
#include "referee/games/registry.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// A game config of `game` with no options set.
v1::GameConfig Game(const std::string& game) {
  v1::GameConfig config;
  config.set_game(game);
  return config;
}

TEST(RemoteMatchBoundsTest, TheGamesBoundTheirMoves) {
  EXPECT_EQ(MaxMoves(Game("rock_paper_pyramid"), 3), 9u);
  v1::GameConfig game = Game("rock_paper_pyramid");
  game.mutable_rock_paper_pyramid()->set_red(true);
  EXPECT_EQ(MaxMoves(game, 3), 10u);
  // A challenge, a throw and a fee per throw; 9 knock-outs of 8 bonus
  // payments at most.
  EXPECT_EQ(MaxMoves(Game("pyramid_shambo"), 10), 3u * 10000 + 9 * 8);
  game = Game("pyramid_shambo");
  game.mutable_pyramid_shambo()->set_max_throws(4294967295u);
  EXPECT_EQ(MaxMoves(game, 2), uint64_t{3} * 4294967295u);
  // A placement and 44 falls at most per turn.
  EXPECT_EQ(MaxMoves(Game("flaming_pyramids"), 4), 2000u * 45);
  game = Game("flaming_pyramids");
  game.mutable_flaming_pyramids()->set_max_turns(7);
  EXPECT_EQ(MaxMoves(game, 2), 7u * 45);
  // Three per turn, and what the game's cards and tokens allow besides: 64
  // stops, 68 flips, 32 rewards that ask, 16 tokens, 18 Police.
  EXPECT_EQ(MaxMoves(Game("pyramid_scheme"), 4), 3u * 500 + 198);
  // Unknown: no bound; nor for seats or options the referee refuses.
  EXPECT_EQ(MaxMoves(Game("tic_tac_toe"), 2), std::nullopt);
  EXPECT_EQ(MaxMoves(Game("pyramid_shambo"), 0), std::nullopt);
  EXPECT_EQ(MaxMoves(Game("pyramid_shambo"), 11), std::nullopt);
  game = Game("flaming_pyramids");
  game.mutable_flaming_pyramids()->set_max_turns(100001);
  EXPECT_EQ(MaxMoves(game, 2), std::nullopt);
  // Every game the referee plays has one: a game added without one would
  // leave its matches unbounded (and the silence limit open to a claimed
  // decision number).
  for (const GameDescription* description : AllGames()) {
    EXPECT_NE(
        MaxMoves(Game(std::string(description->id)), description->max_seats),
        std::nullopt)
        << description->id;
  }
}

TEST(RemoteMatchBoundsTest, TheEventsOfOneStreamAreBounded) {
  // Per decision (the seed's and one per move) its opening, a commit and a
  // fault per seat, the move; the match, its snapshot and the outcome; and
  // as many snapshots again.
  EXPECT_EQ(MaxWatchEvents(9, 3), 2u * (10 * 8 + 3));
  EXPECT_EQ(MaxWatchEvents(0, 2), 2u * (6 + 3));
  EXPECT_EQ(MaxWatchEvents(std::numeric_limits<uint64_t>::max(), 10),
            std::numeric_limits<uint64_t>::max());
}

TEST(RemoteMatchBoundsTest, TheSilenceLimitIsADecisionsWholeTime) {
  constexpr absl::Duration kMargin = absl::Seconds(60);
  v1::ClockSettings clocks;
  clocks.set_commit_timeout_ms(2000);
  clocks.set_reveal_timeout_ms(3000);
  EXPECT_EQ(SilenceLimit(clocks, 0, kMargin),
            absl::Milliseconds(5000) + kMargin);
  // The seed decision's deadline, when longer, is the commit phase's.
  clocks.set_seed_timeout_ms(30000);
  EXPECT_EQ(SilenceLimit(clocks, 0, kMargin),
            absl::Milliseconds(33000) + kMargin);
  // A bank and what it may have earned by decision 9.
  clocks.set_time_bank_ms(10000);
  clocks.set_time_bank_increment_ms(100);
  EXPECT_EQ(SilenceLimit(clocks, 9, kMargin),
            absl::Milliseconds(33000 + 10000 + 10 * 100) + kMargin);
  // A decision number without end does not wrap round to a short limit.
  EXPECT_GT(SilenceLimit(clocks, std::numeric_limits<uint64_t>::max(), kMargin),
            absl::Hours(24 * 365 * 1000));
  // A phase without a deadline: a seat may take as long as it likes.
  for (int phase = 0; phase < 2; ++phase) {
    v1::ClockSettings open;
    open.set_commit_timeout_ms(50);
    open.set_reveal_timeout_ms(50);
    if (phase == 0) open.set_commit_timeout_ms(0);
    if (phase == 1) open.set_reveal_timeout_ms(0);
    EXPECT_EQ(SilenceLimit(open, 0, kMargin), absl::InfiniteDuration())
        << open.ShortDebugString();
  }
  EXPECT_EQ(SilenceLimit(v1::ClockSettings(), 0, kMargin),
            absl::InfiniteDuration());
}

}  // namespace
}  // namespace pyramid
