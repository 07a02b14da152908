#include "referee/games/strategy.h"

#include <algorithm>

namespace pyramid {
namespace {

constexpr char kShambo[] = "pyramid_shambo";

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

}  // namespace pyramid
