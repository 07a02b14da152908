#include "referee/games/pyramid_shambo/game.h"

#include <memory>
#include <utility>

#include "referee/games/pyramid_shambo/state.h"

namespace pyramid::shambo {
namespace {

class PyramidShamboGame final : public Game {
 public:
  explicit PyramidShamboGame(const Options& options)
      : Game(Description(), options.rules_version), options_(options) {}

  absl::StatusOr<std::unique_ptr<State>> DoNewInitialState(
      int num_seats, RandomStream stream) const override {
    return std::make_unique<PyramidShamboState>(options_, num_seats, stream);
  }

 private:
  Options options_;
};

absl::StatusOr<std::unique_ptr<Game>> Make(const OptionValues& values,
                                           uint32_t rules_version) {
  return std::make_unique<PyramidShamboGame>(ToOptions(values, rules_version));
}

}  // namespace

Options ToOptions(const OptionValues& values, uint32_t rules_version) {
  return Options{.max_throws = values.at("max_throws"),
                 .rules_version = rules_version};
}

const GameDescription& Description() {
  static const auto* const description = new GameDescription{
      .id = "pyramid_shambo",
      .title = "Pyramid Shambo",
      .min_seats = 2,
      .max_seats = kMaxSeats,
      // A payment lists pieces; every piece of a 10-seat game fits
      // (docs/protocol.md, "Action size").
      .max_action_bytes = 1024,
      .action_kind = v1::Action::kPyramidShambo,
      .rules_versions = {{.version = 1}},
      .options = {{.name = "max_throws",
                   .kind = OptionDescription::Kind::kUint,
                   .min = 1,
                   .max = UINT32_MAX,
                   .default_value = kDefaultMaxThrows,
                   .help = "the game ends right after this many throws "
                           "(ties included)"}},
      .make = &Make,
  };
  return *description;
}

}  // namespace pyramid::shambo
