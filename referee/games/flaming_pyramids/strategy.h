// The heuristic strategy for Flaming Pyramids (docs/bot-strategies.md).
// Every listed action is tried on a copy of the public table (the rules'
// layout functions, board.h), and the rest of the turn's
// mayhem is played out with the falls chosen to minimise the tiles that go
// under our pile:
//   * placement: fewest tiles coming back to us; among equals, the hand tile
//     that fits the fewest spots now without mayhem (keeping the flexible
//     ones for later);
//   * fall: the direction after which the fewest tiles come back to us.
// Uses only the request; keeps no memory.
#ifndef PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_STRATEGY_H_
#define PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_STRATEGY_H_

#include "referee/games/strategy.h"

namespace pyramid {

class FlamingPyramidsStrategy final : public Strategy {
 public:
  // Requires a flaming_pyramids request.
  v1::Action Choose(const v1::DecisionRequest& request,
                    RandomStream& stream) override;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_STRATEGY_H_
