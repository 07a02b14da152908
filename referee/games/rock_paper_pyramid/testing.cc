#include "referee/games/rock_paper_pyramid/testing.h"

#include <algorithm>
#include <utility>

#include "gtest/gtest.h"
#include "referee/games/rock_paper_pyramid/board.h"
#include "referee/games/rock_paper_pyramid/tables.h"

namespace pyramid::rpp::testing {

v1::RppPiece Piece(v1::RppColour colour, v1::RppSize size) {
  return MakePiece(colour, size);
}

std::string Name(const v1::RppPiece& piece) {
  return v1::RppColour_Name(piece.colour()) + "/" +
         v1::RppSize_Name(piece.size());
}

v1::Action Play(const v1::RppPiece& piece) {
  v1::Action action;
  *action.mutable_rock_paper_pyramid()->mutable_piece() = piece;
  return action;
}

v1::GameConfig Config(v1::RppWinnerTakes winner_takes, bool red) {
  v1::GameConfig config;
  config.set_game("rock_paper_pyramid");
  config.mutable_rock_paper_pyramid()->set_winner_takes(winner_takes);
  config.mutable_rock_paper_pyramid()->set_red(red);
  return config;
}

std::unique_ptr<State> NewState(const v1::GameConfig& config, uint8_t seed) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGameOf(Description(), config);
  EXPECT_TRUE(game.ok()) << game.status();
  if (!game.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<State>> state =
      (*game)->NewInitialState(3, RandomStream(Seed(seed)));
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return nullptr;
  return *std::move(state);
}

std::unique_ptr<State> NewClassicState(v1::RppWinnerTakes winner_takes) {
  return NewState(Config(winner_takes, /*red=*/false));
}

absl::StatusOr<v1::RockPaperPyramidRoundResult> PlayRound(
    State& state, const Played& pieces) {
  std::vector<SeatAction> actions;
  for (int seat = 0; seat < 3; ++seat) {
    actions.push_back({seat, Play(pieces[seat])});
  }
  return GamePart(state.Apply(actions), &v1::Result::rock_paper_pyramid);
}

void PlayDefaultRound(State& state) {
  std::vector<SeatAction> actions;
  for (int seat : state.ActingSeats()) {
    actions.push_back({seat, state.DefaultAction(seat)});
  }
  EXPECT_TRUE(state.Apply(actions).ok());
}

const v1::RockPaperPyramidObservation& Rpp(const v1::Observation& o) {
  return o.rock_paper_pyramid();
}

v1::RockPaperPyramidObservation View(const State& state, int seat) {
  return (seat < 0 ? state.PublicView() : state.ObservationFor(seat))
      .rock_paper_pyramid();
}

std::vector<int32_t> Scores(const State& state) {
  std::vector<int32_t> scores;
  const v1::RockPaperPyramidObservation view = View(state);
  for (const v1::RppSeatView& seat : view.seats()) {
    scores.push_back(seat.score());
  }
  return scores;
}

bool HasPiece(const v1::RppSeatView& seat, const v1::RppPiece& piece) {
  return std::any_of(
      seat.pool().begin(), seat.pool().end(), [&](const v1::RppPiece& p) {
        return p.colour() == piece.colour() && p.size() == piece.size();
      });
}

// '>' row captures column, '<' column captures row, 'N' neither, '!' both
// (which the rule forbids).
char Cell(const v1::RppPiece& row, const v1::RppPiece& column) {
  const bool forward = Captures(row, column);
  const bool backward = Captures(column, row);
  if (forward && backward) return '!';
  if (forward) return '>';
  if (backward) return '<';
  return 'N';
}

// ---------------------------------------------------------------------------
// Pairwise capture: the designer's table.

v1::GameConfig Config() { return Config(v1::RPP_TAKES_CAPTURED, false); }

std::unique_ptr<State> NewGame(int seats, const Digest& seed,
                               const v1::GameConfig& config) {
  return game_testing::NewGame(config, seats, seed);
}

}  // namespace pyramid::rpp::testing
