// The heuristic strategy for Pyramid Shambo (docs/bot-strategies.md):
//   * challenge: the live opponent with the fewest pips (a win likely knocks
//     it out and brings the Knock-Out bonus), then the one whose colour we
//     hold least of (its removal then costs us least);
//   * throw: a best response to the opponent's past throws (the
//     observation's hands_thrown, smoothed) when that model favours one hand
//     clearly, else uniform;
//   * payment: the listed option after which our holding is worth most,
//     each piece weighted by how likely its colour is to stay in the game
//     (own colour: surely; else by its owner's pips). Unlisted payments
//     (too many options) take `canonical`.
// Uses only the request; keeps no memory.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_STRATEGY_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_STRATEGY_H_

#include "referee/games/strategy.h"

namespace pyramid {

class PyramidShamboStrategy final : public Strategy {
 public:
  // Requires a pyramid_shambo request.
  v1::Action Choose(const v1::DecisionRequest& request,
                    RandomStream& stream) override;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_STRATEGY_H_
