// How a bot chooses its actions: the interface every game's strategies
// (referee/games/<game>/strategy.h) implement, and the random strategy all
// games share. A strategy sees only what the referee sends the seat: its
// observation and its legal actions (and may remember the requests of a
// match it saw before). Messages only: no rules engine, no gRPC.
#ifndef PYRAMID_REFEREE_GAMES_STRATEGY_H_
#define PYRAMID_REFEREE_GAMES_STRATEGY_H_

#include <vector>

#include "pyramid/referee/v1/referee_service.pb.h"
#include "referee/crypto/random_stream.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

class Strategy {
 public:
  virtual ~Strategy() = default;
  // A legal action for `request` (never the seed decision, which the bot
  // handles), also when `request.legal_actions_listed()` is false. `stream`
  // is the bot's own randomness.
  virtual v1::Action Choose(const v1::DecisionRequest& request,
                            RandomStream& stream) = 0;
};

// Uniform over the listed legal actions; when the game does not list them,
// the action UnlistedAction builds.
class RandomStrategy final : public Strategy {
 public:
  v1::Action Choose(const v1::DecisionRequest& request,
                    RandomStream& stream) override;
};

// The index of a highest of `scores` (non-empty), ties (within 1e-9)
// broken uniformly with `stream`: how the heuristics choose.
int PickBest(const std::vector<double>& scores, RandomStream& stream);

// A legal action for a decision whose legal actions are not listed. Only
// Pyramid Shambo's payments with very many options are unlisted; for them
// this is `canonical` (the rules page's canonical payment). For any other
// decision it is an empty Action, which no game accepts.
v1::Action UnlistedAction(const v1::DecisionRequest& request);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_STRATEGY_H_
