#include "referee/games/flaming_pyramids/game.h"

#include <memory>
#include <utility>

#include "referee/games/flaming_pyramids/state.h"

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
  };
  return *description;
}

}  // namespace pyramid::fp
