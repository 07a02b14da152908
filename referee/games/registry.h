// Every game the referee knows, by id, and the one way a Game is made.
#ifndef PYRAMID_REFEREE_GAMES_REGISTRY_H_
#define PYRAMID_REFEREE_GAMES_REGISTRY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/game.pb.h"
#include "referee/games/description.h"
#include "referee/games/game.h"

namespace pyramid {

// The description of every registered game, sorted by id.
const std::vector<const GameDescription*>& AllGames();

// The description of game `id`; nullptr for an unknown id.
const GameDescription* FindGame(std::string_view id);

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

// Every game for a help text: id, title, seats, rules versions and each
// option with its range, default and meaning (`replay games`).
std::string GamesHelp();

// The options `config` sets, as one line of protobuf text format ("" when
// they are unset: every option at its default). For reports and pages.
std::string OptionsText(const v1::GameConfig& config);

// The table of docs/log-format.md ("Valid values"): one row per game and
// rules version, in Markdown, written from the descriptions.
std::string ValidValuesTable();

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_REGISTRY_H_
