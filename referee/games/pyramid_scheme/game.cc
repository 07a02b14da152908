#include "referee/games/pyramid_scheme/game.h"

#include <memory>
#include <utility>

#include "referee/games/pyramid_scheme/state.h"
#include "referee/games/pyramid_scheme/tables.h"

namespace pyramid::scheme {
namespace {

class PyramidSchemeGame final : public Game {
 public:
  explicit PyramidSchemeGame(const Options& options)
      : Game(Description(), options.rules_version), options_(options) {}

  absl::StatusOr<std::unique_ptr<State>> DoNewInitialState(
      int num_seats, RandomStream stream) const override {
    return std::make_unique<PyramidSchemeState>(ReferenceEdition(), options_,
                                                num_seats, std::move(stream));
  }

 private:
  Options options_;
};

absl::StatusOr<std::unique_ptr<Game>> Make(const OptionValues& values,
                                           uint32_t rules_version) {
  return std::make_unique<PyramidSchemeGame>(ToOptions(values, rules_version));
}

}  // namespace

Options ToOptions(const OptionValues& values, uint32_t rules_version) {
  return Options{.max_turns = static_cast<int>(values.at("max_turns")),
                 .rules_version = rules_version};
}

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
