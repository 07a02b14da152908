// Rock, Paper, Pyramid! (game id "rock_paper_pyramid"): exactly the rules of
// docs/rules/rock_paper_pyramid.md, with the options `winner_takes` and
// `red`. Three seats; every round is one simultaneous decision.
//
// Description() is its GameDescription (referee/games/description.h):
// MakeGame (registry.h) makes it from a config.
#ifndef PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_GAME_H_
#define PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_GAME_H_

#include <cstdint>

#include "referee/games/description.h"

namespace pyramid::rpp {

const GameDescription& Description();

enum class WinnerTakes { kCaptured, kAll };

// The game's options as its rules read them, and the rules version played
// (Game::rules_version).
struct Options {
  WinnerTakes winner_takes = WinnerTakes::kCaptured;
  bool red = false;
  uint32_t rules_version = 0;
};

// `values` (checked by ResolveOptions) and `rules_version` (never 0) as
// Options.
Options ToOptions(const OptionValues& values, uint32_t rules_version);

}  // namespace pyramid::rpp

#endif  // PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_GAME_H_
