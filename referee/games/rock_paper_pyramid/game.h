// Rock, Paper, Pyramid! (game id "rock_paper_pyramid"): exactly the rules of
// docs/rules/rock_paper_pyramid.md, with the options `winner_takes` and
// `red`. Three seats; every round is one simultaneous decision.
#ifndef PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_GAME_H_
#define PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_GAME_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/game.pb.h"
#include "referee/games/description.h"
#include "referee/games/game.h"

namespace pyramid {

// The game for `config` (game "rock_paper_pyramid" or unnamed), as MakeGame
// makes it: INVALID_ARGUMENT when the options are another game's or hold
// an unknown enum value; UNIMPLEMENTED for a rules version this build does
// not implement (0 is the latest).
absl::StatusOr<std::unique_ptr<Game>> MakeRockPaperPyramid(
    const v1::GameConfig& config, uint32_t rules_version = 0);

namespace rpp {

// Seats, rules versions and options (description.h).
const GameDescription& Description();

}  // namespace rpp
}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_GAME_H_
