#include "referee/games/pyramid_scheme/game.h"

#include <memory>
#include <utility>

#include "referee/games/pyramid_scheme/state.h"
#include "referee/games/pyramid_scheme/tables.h"

namespace pyramid::scheme {
namespace {

class PyramidSchemeGame final : public Game {
 public:
  PyramidSchemeGame(int max_turns, uint32_t rules_version)
      : Game(Description(), rules_version), max_turns_(max_turns) {}

  absl::StatusOr<std::unique_ptr<State>> DoNewInitialState(
      int num_seats, RandomStream stream) const override {
    return std::make_unique<PyramidSchemeState>(ReferenceEdition(), max_turns_,
                                                num_seats, std::move(stream));
  }

 private:
  int max_turns_;
};

absl::StatusOr<std::unique_ptr<Game>> Make(const OptionValues& values,
                                           uint32_t rules_version) {
  return std::make_unique<PyramidSchemeGame>(
      static_cast<int>(values.at("max_turns")), rules_version);
}

}  // namespace

const GameDescription& Description() {
  static const auto* const description = new GameDescription{
      .id = "pyramid_scheme",
      .title = "Pyramid Scheme",
      .min_seats = 2,
      .max_seats = 4,
      // Actions are a few small fields (docs/protocol.md, "Action size").
      .max_action_bytes = 128,
      .action_kind = v1::Action::kPyramidScheme,
      .rules_versions = {{.version = 1}},
      .options = {{.name = "max_turns",
                   .kind = OptionDescription::Kind::kUint,
                   .min = 1,
                   .max = kMaxMaxTurns,
                   .default_value = kDefaultMaxTurns,
                   .help = "the game ends when seat turn number max_turns "
                           "ends"}},
      .make = &Make,
  };
  return *description;
}

}  // namespace pyramid::scheme
