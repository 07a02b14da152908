// Pyramid Shambo's pieces and hands as data: the seats' colours, the three
// piece sizes and their names, and the three hands with which beats which
// (docs/rules/pyramid_shambo.md).
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_TABLES_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_TABLES_H_

#include <string>

#include "pyramid/referee/v1/pyramid_shambo.pb.h"

namespace pyramid::shambo {

namespace v1 = ::pyramid::referee::v1;

inline constexpr int kMaxSeats = 10;
inline constexpr int kNumSizes = 3;  // Small, Medium, Large: 1, 2, 3 pips.

// A piece: `colour` is the seat that started with it (0..9), `size` its
// pips (1..3).
struct Piece {
  int colour = 0;
  int size = 1;
  friend bool operator==(const Piece&, const Piece&) = default;
};

// "red Small", "clear Large": for messages.
std::string PieceName(const Piece& piece);
// The seat's colour name: "red", "yellow", ..., "clear".
std::string ColourName(int colour);

bool IsKnownHand(v1::ShamboHand hand);

// Rock beats Scissors, Scissors beats Paper, Paper beats Rock.
bool Beats(v1::ShamboHand x, v1::ShamboHand y);

// "Rock", "Paper" or "Scissors"; "?" for another value.
const char* HandName(v1::ShamboHand hand);

}  // namespace pyramid::shambo

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_TABLES_H_
