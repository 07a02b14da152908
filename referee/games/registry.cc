#include "referee/games/registry.h"

#include <map>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "referee/games/flaming_pyramids.h"
#include "referee/games/pyramid_scheme.h"
#include "referee/games/pyramid_shambo.h"
#include "referee/games/rock_paper_pyramid.h"

namespace pyramid {
namespace {

using Factory = absl::StatusOr<std::unique_ptr<Game>> (*)(
    const v1::GameConfig&, uint32_t rules_version);

// One line per game, keyed by its id.
const std::map<std::string, Factory, std::less<>>& Factories() {
  static const auto* const factories =
      new std::map<std::string, Factory, std::less<>>{
          {"flaming_pyramids", &MakeFlamingPyramids},
          {"pyramid_scheme", &MakePyramidScheme},
          {"pyramid_shambo", &MakePyramidShambo},
          {"rock_paper_pyramid", &MakeRockPaperPyramid},
      };
  return *factories;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Game>> MakeGame(const v1::GameConfig& config,
                                               uint32_t rules_version) {
  auto it = Factories().find(config.game());
  if (it == Factories().end()) {
    return absl::NotFoundError(
        absl::StrCat("unknown game \"", config.game(), "\""));
  }
  return it->second(config, rules_version);
}

std::vector<std::string> GameIds() {
  std::vector<std::string> ids;
  for (const auto& [id, factory] : Factories()) ids.push_back(id);
  return ids;
}

}  // namespace pyramid
