// A game's declarative description: everything about a game that is not its
// rules. Each game defines exactly one (in its game.cc); the registry, the
// option validation, `replay games` and the tables of docs/log-format.md all
// read it, so every default, range and seat count is written once.
#ifndef PYRAMID_REFEREE_GAMES_DESCRIPTION_H_
#define PYRAMID_REFEREE_GAMES_DESCRIPTION_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pyramid/referee/v1/game.pb.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

class Game;

// One field of a game's options message (proto/pyramid/referee/v1/).
struct OptionDescription {
  enum class Kind {
    kBool,  // A proto bool; the default is false.
    kUint,  // A proto uint32 in [min, max].
    kEnum,  // A proto enum; a value it does not define is refused.
  };
  // The field's name in the options message.
  std::string_view name;
  Kind kind = Kind::kBool;
  // kUint: the accepted values, inclusive.
  uint32_t min = 0;
  uint32_t max = 0;
  // kUint and kEnum: the value an unset field means: an absent `optional`
  // field, or 0 in a field without presence (proto3 cannot tell 0 from
  // unset there, so 0 always means the default, whatever `min` says).
  uint32_t default_value = 0;
  // One line for help texts and the docs' table.
  std::string_view help;
};

// A rules version a build implements, oldest first.
struct RulesVersionDescription {
  uint32_t version = 0;
  // What this version changed; empty for a game's first version.
  std::string_view change = {};
};

// A game's options after validation: every option of the description, by
// name, with its default applied (bools as 0 or 1, enums by number).
using OptionValues = std::map<std::string, uint32_t, std::less<>>;

struct GameDescription {
  // The game id of its rules page, e.g. "rock_paper_pyramid".
  std::string_view id;
  // The game's name as people write it, e.g. "Rock, Paper, Pyramid!".
  std::string_view title;
  // What a seat's Outcome score counts, as the game's rules page says it
  // (e.g. "tiles held at the end (fewer is better)"), for people reading
  // a match's outcome.
  std::string_view score;
  int min_seats = 0;
  int max_seats = 0;
  // The most bytes a seat's serialized action may take (Game::
  // max_action_bytes).
  size_t max_action_bytes = 0;
  // The field of v1::Action this game's actions fill (named as the game
  // is): State::ValidateAction refuses any other.
  v1::Action::KindCase action_kind = v1::Action::KIND_NOT_SET;
  // Every rules version this build implements, oldest first; the last is
  // the one a referee writes.
  std::vector<RulesVersionDescription> rules_versions;
  // The fields of the game's options message, in field-number order.
  std::vector<OptionDescription> options;
  // Makes the game once MakeGame has checked the id, the rules version
  // (never 0 here) and the options against this description.
  absl::StatusOr<std::unique_ptr<Game>> (*make)(
      const OptionValues& options, uint32_t rules_version) = nullptr;
  // The most moves a match of the game can make under `options` (resolved:
  // ResolveOptions' values, every default applied) for `num_seats` seats
  // (in [min_seats, max_seats]), whatever its seats choose and under every
  // rules version this build implements. A move is one transition of the
  // game's State (State::Apply): a decision the referee asked after the
  // seed decision, or a move it applied without asking (a sole legal
  // action); in a log, one Applied record each (docs/log-format.md). The
  // seed decision is no move. Decision ids count from the seed's 0 without
  // gaps and each asked decision is a move (automatic moves take no id;
  // one a forfeit cut short was a move its default action could have
  // made), so no decision a Watch stream opens is numbered beyond it. The
  // bound comes from the rules page alone, never from a seat's choice: a
  // bound too small would make an honest match look like a referee gone
  // astray (tools/tournament/referee_link.h), so each game says why its
  // bound holds, and its random_test plays matches against it.
  uint64_t (*max_moves)(const OptionValues& options, int num_seats) = nullptr;

  uint32_t oldest_rules_version() const;
  uint32_t latest_rules_version() const;
};

// The options `config` gives a game described by `description`, checked
// and with every default applied. INVALID_ARGUMENT (the message starts
// with the game id) when `config` names another game, holds another game's
// options, or an option is out of range or an undefined enum value.
absl::StatusOr<OptionValues> ResolveOptions(const GameDescription& description,
                                            const v1::GameConfig& config);

// INVALID_ARGUMENT "<game id>: `why`": how a game refuses an action, a
// config or a test position (State::Refuse is this for a state's game).
absl::Status RefuseAction(const GameDescription& game, std::string_view why);

// One line per option for help texts, e.g. "max_turns (1 to 100000,
// unset = 500): the game ends when seat turn number max_turns ends".
std::vector<std::string> OptionHelp(const GameDescription& description);

// The seat counts a game takes, as messages name them: "3" for a game of
// exactly three seats, "2 to 10" for a range.
std::string SeatCounts(const GameDescription& description);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_DESCRIPTION_H_
