// Every game the referee knows, by id.
#ifndef PYRAMID_REFEREE_GAMES_REGISTRY_H_
#define PYRAMID_REFEREE_GAMES_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/game.pb.h"
#include "referee/games/game.h"

namespace pyramid {

// The game named by `config.game()`, with `config`'s options validated.
// NOT_FOUND for an unknown game id; INVALID_ARGUMENT for options that are
// not the game's or are out of range.
absl::StatusOr<std::unique_ptr<Game>> MakeGame(const v1::GameConfig& config);

// The ids of every registered game, sorted.
std::vector<std::string> GameIds();

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_REGISTRY_H_
