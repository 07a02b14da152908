// Flaming Pyramids: the 45 tiles and their fixed ids (rules page, "Tiles").
//
// Ids: yellow 0-9, red 10-19, green 20-29, blue 30-39, each colour by
// ascending weight (2, 4, 6, 10, 20, 30, 40, 60, 100, 120); the Millstone 40;
// green Coal 41, yellow Coal 42; red Blowtorch 43, blue Blowtorch 44.
#ifndef PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_TABLES_H_
#define PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_TABLES_H_

#include <array>
#include <cstdint>
#include <string>

namespace pyramid::fp {

inline constexpr int kNumTiles = 45;
inline constexpr int kNumColours = 4;
inline constexpr int kTilesPerColour = 10;
inline constexpr int kMillstone = 40;
inline constexpr int kCoalGreen = 41;
inline constexpr int kCoalYellow = 42;
inline constexpr int kBlowtorchRed = 43;
inline constexpr int kBlowtorchBlue = 44;

// Weights of one colour's tiles, by index within the colour.
inline constexpr std::array<int, kTilesPerColour> kColourWeights = {
    2, 4, 6, 10, 20, 30, 40, 60, 100, 120};

enum class Material { kStraw, kWood, kStone, kCoal, kBlowtorch };

// Colour bits; the Millstone has all four.
inline constexpr uint8_t kYellow = 1;
inline constexpr uint8_t kRed = 2;
inline constexpr uint8_t kGreen = 4;
inline constexpr uint8_t kBlue = 8;
inline constexpr uint8_t kEveryColour = kYellow | kRed | kGreen | kBlue;

struct TileInfo {
  int weight;
  uint8_t colours;  // A set of colour bits.
  Material material;
};

namespace internal {

constexpr TileInfo MakeTileInfo(int id) {
  if (id < kNumColours * kTilesPerColour) {
    const int weight = kColourWeights[id % kTilesPerColour];
    const uint8_t colour = static_cast<uint8_t>(1 << (id / kTilesPerColour));
    const Material material = weight < 10   ? Material::kStraw
                              : weight < 60 ? Material::kWood
                                            : Material::kStone;
    return {weight, colour, material};
  }
  switch (id) {
    case kMillstone:
      return {200, kEveryColour, Material::kStone};
    case kCoalGreen:
      return {1, kGreen, Material::kCoal};
    case kCoalYellow:
      return {1, kYellow, Material::kCoal};
    case kBlowtorchRed:
      return {7, kRed, Material::kBlowtorch};
    default:
      return {7, kBlue, Material::kBlowtorch};
  }
}

constexpr std::array<TileInfo, kNumTiles> MakeTileTable() {
  std::array<TileInfo, kNumTiles> table{};
  for (int id = 0; id < kNumTiles; ++id) table[id] = MakeTileInfo(id);
  return table;
}

inline constexpr std::array<TileInfo, kNumTiles> kTileTable = MakeTileTable();

}  // namespace internal

// Requires 0 <= id < kNumTiles.
constexpr const TileInfo& Tile(int id) { return internal::kTileTable[id]; }

constexpr bool IsIncendiary(int id) {
  return Tile(id).material == Material::kCoal ||
         Tile(id).material == Material::kBlowtorch;
}

// Whether the two tiles have a colour in common (the Millstone has every
// colour).
constexpr bool ShareColour(int a, int b) {
  return (Tile(a).colours & Tile(b).colours) != 0;
}

// Whether `incendiary` can burn `tile`: Coal burns straw, a Blowtorch straw
// and wood. Stone and incendiaries never burn.
constexpr bool CanBurn(int incendiary, int tile) {
  const Material target = Tile(tile).material;
  switch (Tile(incendiary).material) {
    case Material::kCoal:
      return target == Material::kStraw;
    case Material::kBlowtorch:
      return target == Material::kStraw || target == Material::kWood;
    default:
      return false;
  }
}

// A readable name, e.g. "yellow 20", "Millstone", "green Coal".
std::string TileName(int id);

}  // namespace pyramid::fp

#endif  // PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_TABLES_H_
