#include "tools/bot/strategy.h"

#include <algorithm>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/games/flaming_pyramids/strategy.h"
#include "referee/games/pyramid_scheme/strategy.h"
#include "referee/games/pyramid_shambo/strategy.h"
#include "referee/games/rock_paper_pyramid/strategy.h"

namespace pyramid {
namespace {

template <typename GameStrategy>
std::unique_ptr<Strategy> Make() {
  return std::make_unique<GameStrategy>();
}

// Each game's heuristic, by game id (sorted): one line per game.
struct HeuristicOfGame {
  std::string_view game;
  std::unique_ptr<Strategy> (*make)();
};
constexpr HeuristicOfGame kHeuristics[] = {
    {"flaming_pyramids", &Make<FlamingPyramidsStrategy>},
    {"pyramid_scheme", &Make<PyramidSchemeStrategy>},
    {"pyramid_shambo", &Make<PyramidShamboStrategy>},
    {"rock_paper_pyramid", &Make<RockPaperPyramidStrategy>},
};

// Plays each request with the heuristic of its game.
class HeuristicStrategy final : public Strategy {
 public:
  HeuristicStrategy() {
    for (const HeuristicOfGame& entry : kHeuristics) {
      games_.emplace_back(entry.game, entry.make());
    }
  }

  v1::Action Choose(const v1::DecisionRequest& request,
                    RandomStream& stream) override {
    for (const auto& [game, strategy] : games_) {
      if (request.game() == game) return strategy->Choose(request, stream);
    }
    return random_.Choose(request, stream);
  }

 private:
  std::vector<std::pair<std::string_view, std::unique_ptr<Strategy>>> games_;
  RandomStrategy random_;
};

}  // namespace

const std::vector<std::string>& BotGames() {
  static const auto* const games = [] {
    auto* ids = new std::vector<std::string>;
    for (const HeuristicOfGame& entry : kHeuristics) {
      ids->emplace_back(entry.game);
    }
    return ids;
  }();
  return *games;
}

absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(
    const std::string& game, const std::string& name) {
  if (name == "random") return std::make_unique<RandomStrategy>();
  if (name == "heuristic" &&
      (game.empty() || std::find(BotGames().begin(), BotGames().end(), game) !=
                           BotGames().end())) {
    return std::make_unique<HeuristicStrategy>();
  }
  if (name == "heuristic") {
    return absl::InvalidArgumentError(absl::StrCat(
        "no heuristic strategy for game \"", game, "\" (there is one for ",
        absl::StrJoin(BotGames(), ", "), "); random plays every game"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown strategy \"", name,
                   "\": the strategies are random and heuristic"));
}

}  // namespace pyramid
