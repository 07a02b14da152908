// How a reference bot chooses its actions. A strategy sees only what the
// referee sends the seat: its observation and its legal actions.
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
  // An action for `request` (never the seed decision, which the bot handles).
  // `stream` is the bot's own randomness.
  virtual v1::Action Choose(const v1::DecisionRequest& request,
                            RandomStream& stream) = 0;
};

// Uniform over the listed legal actions.
class RandomStrategy final : public Strategy {
 public:
  v1::Action Choose(const v1::DecisionRequest& request,
                    RandomStream& stream) override;
};

// The strategy called `name` for `game` ("random" works for every game).
absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(const std::string& game,
                                                       const std::string& name);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_BOT_STRATEGY_H_
