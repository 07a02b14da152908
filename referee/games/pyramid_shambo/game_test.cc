// Pyramid Shambo's game: setup, seat counts and options. Part of the
// scenario tests of docs/rules/pyramid_shambo.md. Each builds its position,
// applies the moves through the public Apply (automatic moves as the referee
// applies them) and checks the holdings piece by piece.
//
// Piece names: colour letter + pips; r y g b k w o p c x are seats 0..9,
// so "y3" is seat 1's Large and "r1" seat 0's Small. Holdings are listed in
// (size, colour) order.
#include "referee/games/pyramid_shambo/game.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/pyramid_shambo.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/game.h"
#include "referee/games/pyramid_shambo/testing.h"

namespace pyramid::shambo::testing {
namespace {

// ---------------------------------------------------------------------------
// Players and pieces; options.

TEST(ShamboSetupTest, EachSeatStartsWithItsOwnTrio) {
  std::unique_ptr<Game> game = GameOf();
  for (int seats = 2; seats <= 10; ++seats) {
    std::unique_ptr<State> state =
        Ok(game->NewInitialState(seats, RandomStream(Seed(seats))));
    ASSERT_NE(state, nullptr);
    const v1::PyramidShamboObservation view = View(*state);
    ASSERT_EQ(view.seats_size(), seats);
    for (int seat = 0; seat < seats; ++seat) {
      EXPECT_EQ(Names(view.seats(seat).holding()), Names(Trio(seat)));
      EXPECT_EQ(view.seats(seat).pips(), 6u);
      EXPECT_TRUE(view.seats(seat).live());
    }
  }
}

TEST(ShamboSetupTest, FirstPlayerIsUniformSeatsFromTheStream) {
  std::unique_ptr<Game> game = GameOf();
  for (int seats = 2; seats <= 10; ++seats) {
    for (uint8_t seed = 0; seed < 8; ++seed) {
      RandomStream expected(Seed(seed));
      const uint32_t first = static_cast<uint32_t>(expected.Uniform(seats));
      std::unique_ptr<State> state =
          Ok(game->NewInitialState(seats, RandomStream(Seed(seed))));
      const v1::PyramidShamboObservation view = View(*state);
      EXPECT_EQ(view.first_player(), first);
      EXPECT_EQ(view.active(), first);
      EXPECT_EQ(view.phase(), v1::SHAMBO_PHASE_CHALLENGE);
      EXPECT_THAT(state->ActingSeats(), ElementsAre(first));
    }
  }
}

TEST(ShamboSetupTest, SeatCountsTwoToTen) {
  std::unique_ptr<Game> game = GameOf();
  EXPECT_EQ(game->min_seats(), 2);
  EXPECT_EQ(game->max_seats(), 10);
  EXPECT_EQ(game->id(), "pyramid_shambo");
  EXPECT_EQ(game->rules_version(), 1u);
  for (int seats : {0, 1, 11}) {
    EXPECT_EQ(
        game->NewInitialState(seats, RandomStream(Seed(0))).status().code(),
        absl::StatusCode::kInvalidArgument);
  }
}

TEST(ShamboOptionsTest, DefaultsAndRange) {
  v1::GameConfig config;
  config.set_game("pyramid_shambo");
  std::unique_ptr<State> state =
      Ok(GameOf(config)->NewInitialState(3, RandomStream(Seed(0))));
  EXPECT_EQ(View(*state).max_throws(), 10000u);

  config.mutable_pyramid_shambo();  // Present but empty: still the default.
  state = Ok(GameOf(config)->NewInitialState(3, RandomStream(Seed(0))));
  EXPECT_EQ(View(*state).max_throws(), 10000u);

  config.mutable_pyramid_shambo()->set_max_throws(1);
  state = Ok(GameOf(config)->NewInitialState(3, RandomStream(Seed(0))));
  EXPECT_EQ(View(*state).max_throws(), 1u);

  config.mutable_pyramid_shambo()->set_max_throws(0);
  EXPECT_EQ(MakeGameOf(Description(), config).status().code(),
            absl::StatusCode::kInvalidArgument);

  v1::GameConfig other;
  other.set_game("pyramid_shambo");
  other.mutable_rock_paper_pyramid();
  EXPECT_EQ(MakeGameOf(Description(), other).status().code(),
            absl::StatusCode::kInvalidArgument);
  other.Clear();
  other.set_game("rock_paper_pyramid");
  EXPECT_EQ(MakeGameOf(Description(), other).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------------------
// Turn structure: challenge and throw.

}  // namespace
}  // namespace pyramid::shambo::testing
