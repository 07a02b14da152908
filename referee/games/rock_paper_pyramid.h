// Rock, Paper, Pyramid! (game id "rock_paper_pyramid"): exactly the rules of
// docs/rules/rock_paper_pyramid.md, with the options `winner_takes` and
// `red`. Three seats; every round is one simultaneous decision.
#ifndef PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_H_
#define PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_H_

#include <memory>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/game.pb.h"
#include "referee/games/game.h"

namespace pyramid {

// The game for `config` (game "rock_paper_pyramid"); INVALID_ARGUMENT when
// the options are another game's or hold an unknown enum value.
// `rules_version` 0 is the latest; another the game does not implement is
// UNIMPLEMENTED (see CheckRulesVersion).
absl::StatusOr<std::unique_ptr<Game>> MakeRockPaperPyramid(
    const v1::GameConfig& config, uint32_t rules_version = 0);

namespace rpp {

// True iff `x` captures `y` under the pairwise rule: x beats y on colour or
// on size, and y beats x on neither.
bool Captures(const v1::RppPiece& x, const v1::RppPiece& y);

}  // namespace rpp
}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_H_
