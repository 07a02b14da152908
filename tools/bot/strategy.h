// How a reference bot chooses its actions. A strategy sees only what the
// referee sends the seat: its observation and its legal actions (and may
// remember the requests of a match it saw before).
#ifndef PYRAMID_TOOLS_BOT_STRATEGY_H_
#define PYRAMID_TOOLS_BOT_STRATEGY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
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

// The strategy called `name` for `game`:
//   "random"     every game;
//   "heuristic"  the game's heuristic strategy (docs/bot-strategies.md) for
//                pyramid_shambo, flaming_pyramids and pyramid_scheme. With
//                an empty `game` it plays each request by its own game
//                (random for a game without a heuristic), so one bot can
//                serve a stream that mixes games.
// INVALID_ARGUMENT for any other name, or "heuristic" for a named game that
// has none.
absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(const std::string& game,
                                                       const std::string& name);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_BOT_STRATEGY_H_
