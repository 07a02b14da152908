#include "tools/bot/strategy.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "tools/bot/flaming_strategy.h"
#include "tools/bot/scheme_strategy.h"
#include "tools/bot/shambo_strategy.h"

namespace pyramid {
namespace {

constexpr char kShambo[] = "pyramid_shambo";
constexpr char kFlaming[] = "flaming_pyramids";
constexpr char kScheme[] = "pyramid_scheme";

// Plays each request with the heuristic of its game.
class HeuristicStrategy final : public Strategy {
 public:
  v1::Action Choose(const v1::DecisionRequest& request,
                    RandomStream& stream) override {
    if (request.game() == kShambo) return shambo_.Choose(request, stream);
    if (request.game() == kFlaming) return flaming_.Choose(request, stream);
    if (request.game() == kScheme) return scheme_.Choose(request, stream);
    return random_.Choose(request, stream);
  }

 private:
  ShamboStrategy shambo_;
  FlamingStrategy flaming_;
  SchemeStrategy scheme_;
  RandomStrategy random_;
};

}  // namespace

int PickBest(const std::vector<double>& scores, RandomStream& stream) {
  constexpr double kEpsilon = 1e-9;
  const double best = *std::max_element(scores.begin(), scores.end());
  std::vector<int> tied;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (scores[i] >= best - kEpsilon) tied.push_back(static_cast<int>(i));
  }
  return tied[stream.Uniform(tied.size())];
}

v1::Action UnlistedAction(const v1::DecisionRequest& request) {
  v1::Action action;
  if (request.game() == kShambo &&
      request.observation().pyramid_shambo().phase() ==
          v1::SHAMBO_PHASE_PAYMENT) {
    action.mutable_pyramid_shambo()->set_canonical(true);
  }
  return action;
}

v1::Action RandomStrategy::Choose(const v1::DecisionRequest& request,
                                  RandomStream& stream) {
  if (!request.legal_actions_listed()) return UnlistedAction(request);
  if (request.legal_actions().empty()) return v1::Action();
  return request.legal_actions(
      static_cast<int>(stream.Uniform(request.legal_actions_size())));
}

absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(
    const std::string& game, const std::string& name) {
  if (name == "random") return std::make_unique<RandomStrategy>();
  if (name == "heuristic" && (game.empty() || game == kShambo ||
                              game == kFlaming || game == kScheme)) {
    return std::make_unique<HeuristicStrategy>();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown strategy \"", name, "\" for game \"", game, "\""));
}

}  // namespace pyramid
