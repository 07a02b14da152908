#include "referee/games/pyramid_scheme.h"

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "pyramid/referee/v1/pyramid_scheme.pb.h"
#include "referee/games/pyramid_scheme_cards.h"
#include "referee/games/pyramid_scheme_state.h"

namespace pyramid {
namespace {

inline constexpr std::string_view kGameId = "pyramid_scheme";
inline constexpr uint32_t kRulesVersion = 1;
inline constexpr uint32_t kOldestRulesVersion = 1;
// Actions are a few small fields (docs/protocol.md, "Action size").
inline constexpr size_t kMaxActionBytes = 128;
inline constexpr int kMinSeats = 2;
inline constexpr int kMaxSeats = 4;

struct Options {
  int max_turns = pss::kDefaultMaxTurns;
};

absl::StatusOr<Options> OptionsFromProto(
    const v1::PyramidSchemeOptions& proto) {
  Options options;
  if (proto.max_turns() > static_cast<uint32_t>(pss::kMaxMaxTurns)) {
    return absl::InvalidArgumentError(
        absl::StrCat("pyramid_scheme: max_turns ", proto.max_turns(),
                     " is above ", pss::kMaxMaxTurns));
  }
  if (proto.max_turns() != 0) {
    options.max_turns = static_cast<int>(proto.max_turns());
  }
  return options;
}

absl::StatusOr<Options> ParseOptions(const v1::GameConfig& config) {
  if (!config.game().empty() && config.game() != kGameId) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pyramid_scheme: config names game \"", config.game(), "\""));
  }
  switch (config.options_case()) {
    case v1::GameConfig::OPTIONS_NOT_SET:
      return Options{};
    case v1::GameConfig::kPyramidScheme:
      return OptionsFromProto(config.pyramid_scheme());
    default:
      return absl::InvalidArgumentError(
          "pyramid_scheme: options belong to another game");
  }
}

class PyramidSchemeGame final : public Game {
 public:
  explicit PyramidSchemeGame(const Options& options) : options_(options) {}

  std::string_view id() const override { return kGameId; }
  uint32_t rules_version() const override { return kRulesVersion; }
  int min_seats() const override { return kMinSeats; }
  int max_seats() const override { return kMaxSeats; }
  size_t max_action_bytes() const override { return kMaxActionBytes; }

  absl::StatusOr<std::unique_ptr<State>> DoNewInitialState(
      int num_seats, RandomStream stream) const override {
    std::unique_ptr<State> state = std::make_unique<pss::PyramidSchemeState>(
        pss::ReferenceEdition(), options_.max_turns, num_seats,
        std::move(stream));
    return state;
  }

 private:
  Options options_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Game>> MakePyramidScheme(
    const v1::GameConfig& config, uint32_t rules_version) {
  if (absl::Status s = CheckRulesVersion(kGameId, rules_version,
                                         kOldestRulesVersion, kRulesVersion);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<Options> options = ParseOptions(config);
  if (!options.ok()) return options.status();
  std::unique_ptr<Game> game = std::make_unique<PyramidSchemeGame>(*options);
  return game;
}

namespace pss {

absl::StatusOr<std::unique_ptr<State>> NewStateForTesting(
    const TestPosition& position, RandomStream stream) {
  absl::StatusOr<std::unique_ptr<PyramidSchemeState>> state =
      PyramidSchemeState::FromPosition(ReferenceEdition(), position,
                                       std::move(stream));
  if (!state.ok()) return state.status();
  return std::unique_ptr<State>(*std::move(state));
}

}  // namespace pss
}  // namespace pyramid
