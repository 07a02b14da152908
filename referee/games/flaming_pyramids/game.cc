#include "referee/games/flaming_pyramids/game.h"

#include <cstdint>
#include <memory>
#include <utility>

#include "referee/games/flaming_pyramids/state.h"
#include "referee/games/flaming_pyramids/tables.h"

namespace pyramid::fp {
namespace {

class FlamingPyramidsGame final : public Game {
 public:
  explicit FlamingPyramidsGame(const Options& options)
      : Game(Description(), options.rules_version), options_(options) {}

  absl::StatusOr<std::unique_ptr<State>> DoNewInitialState(
      int num_seats, RandomStream stream) const override {
    return std::make_unique<FlamingPyramidsState>(options_, num_seats, stream);
  }

 private:
  Options options_;
};

absl::StatusOr<std::unique_ptr<Game>> Make(const OptionValues& values,
                                           uint32_t rules_version) {
  return std::make_unique<FlamingPyramidsGame>(
      ToOptions(values, rules_version));
}

// A turn is one placement (automatic with one legal tile and spot), then
// the falls of its mayhem, the only other moves (each asked of the
// chooser: free air, or a collapse's fall, in either rules version); the
// game ends after max_turns completed turns, so at most max_turns
// placements. A fall moves one tile down one row and nothing moves a tile
// up: the sum of the rows of the tiles on the table drops by one per fall,
// never rises but by a placement, and is never negative, so the falls are
// at most the sum of the placements' rows. A turn begins on a table without
// free air (mayhem ends only then), where every tile above row 0 rests on a
// tile of the row below; a placement on row r >= 1 needs both its supports,
// so the table holds a tile on each row below r - 1 and two on row r - 1:
// r + 1 <= 44 tiles besides the one placed. Each placement thus adds at
// most 43 falls; counted generously as kNumTiles - 1 (44), a turn makes at
// most kNumTiles (45) moves.
uint64_t MaxMoves(const OptionValues& values, int /*num_seats*/) {
  return uint64_t{values.at("max_turns")} * (1 + (kNumTiles - 1));
}

}  // namespace

Options ToOptions(const OptionValues& values, uint32_t rules_version) {
  return Options{.curse = values.at("curse") != 0,
                 .max_turns = static_cast<int>(values.at("max_turns")),
                 .rules_version = rules_version};
}

const GameDescription& Description() {
  static const auto* const description = new GameDescription{
      .id = "flaming_pyramids",
      .title = "Flaming Pyramids",
      .score = "tiles held at the end (fewer is better)",
      .min_seats = 2,
      .max_seats = 6,
      // Actions are a few small fields (docs/protocol.md, "Action size").
      .max_action_bytes = 64,
      .action_kind = v1::Action::kFlamingPyramids,
      .rules_versions =
          {{.version = 1},
           {.version = 2,
            .change = "a collapse's supports go under the receiver's pile "
                      "when it happens, before its fall is asked "
                      "(docs/rules/flaming_pyramids.md)"}},
      .options = {{.name = "curse",
                   .kind = OptionDescription::Kind::kBool,
                   .help = "rules check 5: a mini-pyramid of one weight goes "
                           "under the previous seat's pile"},
                  {.name = "max_turns",
                   .kind = OptionDescription::Kind::kUint,
                   .min = 1,
                   .max = kMaxMaxTurns,
                   .default_value = kDefaultMaxTurns,
                   .help = "the game ends after this many completed turns"}},
      .make = &Make,
      .max_moves = &MaxMoves,
  };
  return *description;
}

}  // namespace pyramid::fp
