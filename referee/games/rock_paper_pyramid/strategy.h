// Rock, Paper, Pyramid!'s heuristic (docs/bot-strategies.md): play the
// piece with the best expected round: each pair of pieces the other two
// seats may still play (every pool is public) resolved by the rules'
// round resolution (board.h), my points less the others' mean.
#ifndef PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_STRATEGY_H_
#define PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_STRATEGY_H_

#include "referee/games/strategy.h"

namespace pyramid {

class RockPaperPyramidStrategy final : public Strategy {
 public:
  // Requires a rock_paper_pyramid request.
  v1::Action Choose(const v1::DecisionRequest& request,
                    RandomStream& stream) override;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_STRATEGY_H_
