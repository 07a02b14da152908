// Rock, Paper, Pyramid! (game id "rock_paper_pyramid"): exactly the rules of
// docs/rules/rock_paper_pyramid.md, with the options `winner_takes` and
// `red`. Three seats; every round is one simultaneous decision.
//
// Description() is its GameDescription (referee/games/description.h):
// MakeGame (registry.h) makes it from a config.
#ifndef PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_GAME_H_
#define PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_GAME_H_

#include "referee/games/description.h"

namespace pyramid::rpp {

const GameDescription& Description();

}  // namespace pyramid::rpp

#endif  // PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_GAME_H_
