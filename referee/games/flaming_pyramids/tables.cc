#include "referee/games/flaming_pyramids/tables.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace pyramid::fp {

std::string TileName(int id) {
  static constexpr const char* kColourNames[] = {"yellow", "red", "green",
                                                 "blue"};
  if (id < 0 || id >= kNumTiles) return absl::StrCat("tile ", id);
  if (id < kNumColours * kTilesPerColour) {
    return absl::StrCat(kColourNames[id / kTilesPerColour], " ",
                        Tile(id).weight);
  }
  switch (id) {
    case kMillstone:
      return "Millstone";
    case kCoalGreen:
      return "green Coal";
    case kCoalYellow:
      return "yellow Coal";
    case kBlowtorchRed:
      return "red Blowtorch";
    default:
      return "blue Blowtorch";
  }
}

}  // namespace pyramid::fp
