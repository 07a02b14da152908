// The reference bot's strategies by name (referee/games/strategy.h is the
// interface; each game's strategies are in referee/games/<game>/).
#ifndef PYRAMID_TOOLS_BOT_STRATEGY_H_
#define PYRAMID_TOOLS_BOT_STRATEGY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "referee/games/strategy.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

// The ids of the games the bot plays, sorted: every game the referee knows
// (GameIds(), referee/games/registry.h, which the bot does not link; its
// test checks that the two agree), each with a heuristic strategy.
const std::vector<std::string>& BotGames();

// The strategy called `name` for `game`:
//   "random"     every game;
//   "heuristic"  the game's heuristic strategy (docs/bot-strategies.md).
//                With an empty `game` it plays each request by its own
//                game, so one bot can serve a stream that mixes games.
// INVALID_ARGUMENT for any other name or game, with a message that names
// the strategies there are (and never an empty game).
absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(const std::string& game,
                                                       const std::string& name);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_BOT_STRATEGY_H_
