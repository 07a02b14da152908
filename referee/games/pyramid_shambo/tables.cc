#include "referee/games/pyramid_shambo/tables.h"

#include <array>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace pyramid::shambo {
namespace {

inline constexpr std::array<std::string_view, kMaxSeats> kColourNames = {
    "red",   "yellow", "green",  "blue", "black",
    "white", "orange", "purple", "cyan", "clear"};
inline constexpr std::array<std::string_view, kNumSizes> kSizeNames = {
    "Small", "Medium", "Large"};

}  // namespace

std::string ColourName(int colour) {
  if (colour < 0 || colour >= kMaxSeats) return "?";
  return std::string(kColourNames[colour]);
}

std::string PieceName(const Piece& piece) {
  if (piece.size < 1 || piece.size > kNumSizes) return "?";
  return absl::StrCat(ColourName(piece.colour), " ",
                      std::string(kSizeNames[piece.size - 1]));
}

bool IsKnownHand(v1::ShamboHand hand) {
  return hand >= v1::SHAMBO_ROCK && hand <= v1::SHAMBO_SCISSORS;
}

// Rock beats Scissors, Scissors beats Paper, Paper beats Rock.
bool Beats(v1::ShamboHand x, v1::ShamboHand y) {
  return (x == v1::SHAMBO_ROCK && y == v1::SHAMBO_SCISSORS) ||
         (x == v1::SHAMBO_SCISSORS && y == v1::SHAMBO_PAPER) ||
         (x == v1::SHAMBO_PAPER && y == v1::SHAMBO_ROCK);
}

const char* HandName(v1::ShamboHand hand) {
  switch (hand) {
    case v1::SHAMBO_ROCK:
      return "Rock";
    case v1::SHAMBO_PAPER:
      return "Paper";
    case v1::SHAMBO_SCISSORS:
      return "Scissors";
    default:
      return "?";
  }
}

}  // namespace pyramid::shambo
