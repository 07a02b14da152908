#include "referee/games/rock_paper_pyramid/tables.h"

namespace pyramid::rpp {

bool IsKnownColour(v1::RppColour colour) {
  return colour >= v1::RPP_BLACK && colour <= v1::RPP_RED;
}

bool IsKnownSize(v1::RppSize size) {
  return size >= v1::RPP_LARGE && size <= v1::RPP_SMALL;
}

bool IsKnownPiece(const v1::RppPiece& piece) {
  return IsKnownColour(piece.colour()) && IsKnownSize(piece.size());
}

// Position of a known piece in sorted order: colour first, then size.
int KindIndex(const v1::RppPiece& piece) {
  return (piece.colour() - v1::RPP_BLACK) * static_cast<int>(kSizes.size()) +
         (piece.size() - v1::RPP_LARGE);
}

void PieceOfKind(int index, v1::RppPiece& piece) {
  const int sizes = static_cast<int>(kSizes.size());
  piece.set_colour(static_cast<v1::RppColour>(v1::RPP_BLACK + index / sizes));
  piece.set_size(static_cast<v1::RppSize>(v1::RPP_LARGE + index % sizes));
}

v1::RppPiece MakePiece(v1::RppColour colour, v1::RppSize size) {
  v1::RppPiece piece;
  piece.set_colour(colour);
  piece.set_size(size);
  return piece;
}

int32_t Points(v1::RppSize size) {
  switch (size) {
    case v1::RPP_LARGE:
      return 3;
    case v1::RPP_MEDIUM:
      return 2;
    case v1::RPP_SMALL:
      return 1;
    default:
      return 0;
  }
}

bool BeatsOnColour(v1::RppColour x, v1::RppColour y) {
  switch (x) {
    case v1::RPP_BLACK:
      return y == v1::RPP_WHITE;
    case v1::RPP_WHITE:
      return y == v1::RPP_CRYSTAL;
    case v1::RPP_CRYSTAL:
      return y == v1::RPP_BLACK;
    case v1::RPP_RED:
      return y == v1::RPP_BLACK || y == v1::RPP_WHITE || y == v1::RPP_CRYSTAL;
    default:
      return false;
  }
}

bool BeatsOnSize(v1::RppSize x, v1::RppSize y) {
  return (x == v1::RPP_LARGE && y == v1::RPP_MEDIUM) ||
         (x == v1::RPP_MEDIUM && y == v1::RPP_SMALL) ||
         (x == v1::RPP_SMALL && y == v1::RPP_LARGE);
}
}  // namespace pyramid::rpp
