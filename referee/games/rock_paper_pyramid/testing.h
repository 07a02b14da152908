// Test helpers for Rock, Paper, Pyramid! (the shape of every game's
// testing.h; see referee/games/testing.h).
#ifndef PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_TESTING_H_
#define PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_TESTING_H_

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/rock_paper_pyramid.pb.h"
#include "referee/games/rock_paper_pyramid/board.h"
#include "referee/games/rock_paper_pyramid/game.h"
#include "referee/games/testing.h"

namespace pyramid::rpp::testing {

using namespace ::pyramid::game_testing;  // NOLINT: the shared helpers

inline constexpr v1::RppColour kB = v1::RPP_BLACK;
inline constexpr v1::RppColour kW = v1::RPP_WHITE;
inline constexpr v1::RppColour kC = v1::RPP_CRYSTAL;
inline constexpr v1::RppColour kR = v1::RPP_RED;
inline constexpr v1::RppSize kL = v1::RPP_LARGE;
inline constexpr v1::RppSize kM = v1::RPP_MEDIUM;
inline constexpr v1::RppSize kS = v1::RPP_SMALL;

inline constexpr std::array<v1::RppColour, 4> kAllColours = {kB, kW, kC, kR};
inline constexpr std::array<v1::RppSize, 3> kAllSizes = {kL, kM, kS};

// The game's config: the defaults, or the given options.
v1::GameConfig Config();
v1::GameConfig Config(v1::RppWinnerTakes winner_takes, bool red);

// A new game of `config` for `seats` (always 3) seats from `seed`.
std::unique_ptr<State> NewGame(int seats, const Digest& seed,
                               const v1::GameConfig& config = Config());
// The same from Seed(seed).
std::unique_ptr<State> NewState(const v1::GameConfig& config, uint8_t seed = 0);
// A classic game (no Red) with `winner_takes`.
std::unique_ptr<State> NewClassicState(
    v1::RppWinnerTakes winner_takes = v1::RPP_TAKES_CAPTURED);

v1::RppPiece Piece(v1::RppColour colour, v1::RppSize size);
// "RPP_BLACK/RPP_LARGE".
std::string Name(const v1::RppPiece& piece);
// The action that plays `piece`.
v1::Action Play(const v1::RppPiece& piece);

// Every seat plays its piece of `pieces` (RPP's every decision is all three
// seats at once, so its Act takes the round).
absl::StatusOr<v1::RockPaperPyramidRoundResult> PlayRound(State& state,
                                                          const Played& pieces);
// Every acting seat plays its default action.
void PlayDefaultRound(State& state);

// The game's part of the public view (seat -1) or of `seat`'s observation.
v1::RockPaperPyramidObservation View(const State& state, int seat = -1);
// The game's part of `observation`.
const v1::RockPaperPyramidObservation& Rpp(const v1::Observation& observation);
std::vector<int32_t> Scores(const State& state);
bool HasPiece(const v1::RppSeatView& seat, const v1::RppPiece& piece);

// '>' row captures column, '<' column captures row, 'N' neither, '!' both
// (which the rule forbids).
char Cell(const v1::RppPiece& row, const v1::RppPiece& column);

}  // namespace pyramid::rpp::testing

#endif  // PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_TESTING_H_
