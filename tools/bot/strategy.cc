#include "tools/bot/strategy.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "referee/games/flaming_pyramids/strategy.h"
#include "referee/games/pyramid_scheme/strategy.h"
#include "referee/games/pyramid_shambo/strategy.h"
#include "referee/games/rock_paper_pyramid/strategy.h"

namespace pyramid {
namespace {

constexpr char kShambo[] = "pyramid_shambo";
constexpr char kFlaming[] = "flaming_pyramids";
constexpr char kScheme[] = "pyramid_scheme";
constexpr char kRpp[] = "rock_paper_pyramid";

// Plays each request with the heuristic of its game.
class HeuristicStrategy final : public Strategy {
 public:
  v1::Action Choose(const v1::DecisionRequest& request,
                    RandomStream& stream) override {
    if (request.game() == kShambo) return shambo_.Choose(request, stream);
    if (request.game() == kFlaming) return flaming_.Choose(request, stream);
    if (request.game() == kScheme) return scheme_.Choose(request, stream);
    if (request.game() == kRpp) return rpp_.Choose(request, stream);
    return random_.Choose(request, stream);
  }

 private:
  PyramidShamboStrategy shambo_;
  FlamingPyramidsStrategy flaming_;
  PyramidSchemeStrategy scheme_;
  RockPaperPyramidStrategy rpp_;
  RandomStrategy random_;
};

}  // namespace

const std::vector<std::string>& BotGames() {
  static const auto* const games =
      new std::vector<std::string>{kFlaming, kScheme, kShambo, kRpp};
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
    return absl::InvalidArgumentError(
        absl::StrCat("no heuristic strategy for game \"", game,
                     "\" (there is one for ", kRpp, ", ", kShambo, ", ",
                     kFlaming, " and ", kScheme, "); random plays every game"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown strategy \"", name,
                   "\": the strategies are random and heuristic"));
}

}  // namespace pyramid
