// The heuristic strategy for Pyramid Scheme (docs/bot-strategies.md).
//
// It values its own pyramid: 1 per smart-ass, plus for each unflipped
// Victim or Founder a share of what flipping it would bring (1 and its
// reward), halved for every Victim its condition still lacks and nothing
// when its spare capacity cannot hold them; plus progress on the open goals
// (squared, so the goals closest to completion count most); minus a penalty
// when no card could take a Police. Each listed action is scored by how it
// changes that value:
//   * action: place the card that raises it most (completing a condition
//     flips the parent at once), or take the display card worth most in
//     hand; never fill the hand with cards that cannot be placed; arm a
//     bypass when it enables a clearly better placement; spend a reset only
//     when nothing else is worth doing;
//   * flip window: flip the qualifying card with the best reward (never
//     stop while one qualifies);
//   * rewards, Police and discards: the target that leaves the value
//     highest;
//   * end of turn: end it.
// Uses only the request; keeps no memory.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_STRATEGY_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_STRATEGY_H_

#include "referee/games/strategy.h"

namespace pyramid {

class PyramidSchemeStrategy final : public Strategy {
 public:
  // Requires a pyramid_scheme request.
  v1::Action Choose(const v1::DecisionRequest& request,
                    RandomStream& stream) override;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_STRATEGY_H_
