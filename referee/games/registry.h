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
// `rules_version` 0 is the game's latest rules; an older one the game still
// implements makes the game as that version defines it (to verify the logs
// written under it); another is UNIMPLEMENTED.
absl::StatusOr<std::unique_ptr<Game>> MakeGame(const v1::GameConfig& config,
                                               uint32_t rules_version = 0);

// The ids of every registered game, sorted.
std::vector<std::string> GameIds();

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_REGISTRY_H_
