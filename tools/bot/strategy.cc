#include "tools/bot/strategy.h"

#include "absl/strings/str_cat.h"

namespace pyramid {

v1::Action RandomStrategy::Choose(const v1::DecisionRequest& request,
                                  RandomStream& stream) {
  if (request.legal_actions().empty()) return v1::Action();
  return request.legal_actions(
      static_cast<int>(stream.Uniform(request.legal_actions_size())));
}

absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(
    const std::string& game, const std::string& name) {
  if (name == "random") return std::make_unique<RandomStrategy>();
  return absl::InvalidArgumentError(
      absl::StrCat("unknown strategy \"", name, "\" for game \"", game, "\""));
}

}  // namespace pyramid
