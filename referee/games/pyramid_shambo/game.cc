#include "referee/games/pyramid_shambo/game.h"

#include <algorithm>
#include <cstdint>
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

// The rules page's moves: a challenge (its target's choice, automatic with
// one live target), throws, payments. Every throw counts toward max_throws,
// ties included, and the game ends right after the one that reaches it, so
// a match has at most max_throws throws. A challenge is followed by a throw
// before anything else (the game never ends between them), so there are no
// more challenges than throws; a fee payment follows a decided throw (none
// after the last), so no more fees than throws. The only other moves are
// Knock-Out bonus payments: a knock-out's bonus is paid by the live seats
// but W, and L is out by then, so at most num_seats - 2 of them, and each
// knock-out eliminates a seat, so there are at most num_seats - 1 knock-outs
// ((n - 1)(n - 2) is generous: the k-th knock-out has at most n - k - 1
// payers). A change of provider, a cascade, an overpayment are parts of a
// payment, not moves.
uint64_t MaxMoves(const OptionValues& values, int num_seats) {
  const uint64_t throws = values.at("max_throws");
  const uint64_t n = static_cast<uint64_t>(std::max(num_seats, 2));
  return 3 * throws + (n - 1) * (n - 2);
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
      .score = "pips held at the end (0 once eliminated)",
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
      .max_moves = &MaxMoves,
  };
  return *description;
}

}  // namespace pyramid::shambo
