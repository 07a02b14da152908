#include "referee/games/rock_paper_pyramid/game.h"

#include <cstdint>
#include <memory>
#include <utility>

#include "referee/games/game.h"
#include "referee/games/rock_paper_pyramid/state.h"

namespace pyramid::rpp {
namespace {

class RockPaperPyramidGame final : public Game {
 public:
  explicit RockPaperPyramidGame(const Options& options)
      : Game(Description(), options.rules_version), options_(options) {}

  absl::StatusOr<std::unique_ptr<State>> DoNewInitialState(
      int num_seats, RandomStream stream) const override {
    return std::make_unique<RockPaperPyramidState>(options_, stream);
  }

 private:
  Options options_;
};

absl::StatusOr<std::unique_ptr<Game>> Make(const OptionValues& values,
                                           uint32_t rules_version) {
  return std::make_unique<RockPaperPyramidGame>(
      ToOptions(values, rules_version));
}

// Every round is one simultaneous decision of the three seats, each playing
// one piece of its pool, and the game lasts as many rounds as a pool holds
// pieces: 9, 10 with red (rules page, "A round" and "Variant red"). No move
// is ever automatic (every decision has three acting seats).
uint64_t MaxMoves(const OptionValues& values, int /*num_seats*/) {
  return values.at("red") != 0 ? kRedRounds : kClassicRounds;
}

}  // namespace

Options ToOptions(const OptionValues& values, uint32_t rules_version) {
  return Options{.winner_takes = values.at("winner_takes") == v1::RPP_TAKES_ALL
                                     ? WinnerTakes::kAll
                                     : WinnerTakes::kCaptured,
                 .red = values.at("red") != 0,
                 .rules_version = rules_version};
}

const GameDescription& Description() {
  static const auto* const description = new GameDescription{
      .id = "rock_paper_pyramid",
      .title = "Rock, Paper, Pyramid!",
      .score = "points of the pieces it scored (Large 3, Medium 2, Small 1)",
      .min_seats = kNumSeats,
      .max_seats = kNumSeats,
      // An action names one piece (docs/protocol.md, "Action size").
      .max_action_bytes = 64,
      .action_kind = v1::Action::kRockPaperPyramid,
      .rules_versions = {{.version = 1}},
      .options =
          {{.name = "winner_takes",
            .kind = OptionDescription::Kind::kEnum,
            .default_value = v1::RPP_TAKES_CAPTURED,
            .help = "what a claimant scores: 1 = the captured pieces, 2 = "
                    "its own piece too"},
           {.name = "red",
            .kind = OptionDescription::Kind::kBool,
            .help = "adds a Red stack dealt one per seat; 10 rounds, not 9"}},
      .make = &Make,
      .max_moves = &MaxMoves,
  };
  return *description;
}

}  // namespace pyramid::rpp
