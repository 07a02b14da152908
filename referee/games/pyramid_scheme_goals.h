// Pyramid Scheme's 18 Goals (rules page, "Goals"): whether a seat's pyramid
// and tokens satisfy each of them.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_GOALS_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_GOALS_H_

#include "referee/games/pyramid_scheme_cards.h"
#include "referee/games/pyramid_scheme_pyramid.h"

namespace pyramid {
namespace pss {

inline constexpr int kNumGoals = 18;

// True iff `pyramid`, with `reset_tokens` held, satisfies goal `goal`
// (0..kNumGoals-1; false for any other id).
bool GoalSatisfied(const Edition& edition, int goal, const Pyramid& pyramid,
                   int reset_tokens);

}  // namespace pss
}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_GOALS_H_
