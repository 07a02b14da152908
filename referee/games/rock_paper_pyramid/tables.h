// Rock, Paper, Pyramid!'s pieces as data: the colours and sizes, their
// points, which beats which, and each (colour, size) kind's index in the
// sorted order pools and actions use (docs/rules/rock_paper_pyramid.md).
#ifndef PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_TABLES_H_
#define PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_TABLES_H_

#include <array>
#include <cstdint>

#include "pyramid/referee/v1/rock_paper_pyramid.pb.h"

namespace pyramid::rpp {

namespace v1 = ::pyramid::referee::v1;

inline constexpr int kNumSeats = 3;
inline constexpr int kClassicRounds = 9;
inline constexpr int kRedRounds = 10;

// The three classic colours and the three sizes, each in sorted order.
inline constexpr std::array<v1::RppColour, 3> kClassicColours = {
    v1::RPP_BLACK, v1::RPP_WHITE, v1::RPP_CRYSTAL};
inline constexpr std::array<v1::RppSize, 3> kSizes = {
    v1::RPP_LARGE, v1::RPP_MEDIUM, v1::RPP_SMALL};

// Every (colour, size) a pool may hold, red included: 4 colours x 3 sizes.
inline constexpr int kNumKinds = 4 * static_cast<int>(kSizes.size());

bool IsKnownColour(v1::RppColour colour);
bool IsKnownSize(v1::RppSize size);
bool IsKnownPiece(const v1::RppPiece& piece);

// Position of a known piece in sorted order: colour first, then size.
int KindIndex(const v1::RppPiece& piece);
// Writes the piece at `index` of that order into `piece` (in place, so
// that a piece inside an arena message costs no temporary and no copy).
void PieceOfKind(int index, v1::RppPiece& piece);
v1::RppPiece MakePiece(v1::RppColour colour, v1::RppSize size);

// Large 3, Medium 2, Small 1.
int32_t Points(v1::RppSize size);

// The colour cycle (Black > White > Crystal > Black; Red beats all three)
// and the size cycle (Large > Medium > Small > Large).
bool BeatsOnColour(v1::RppColour x, v1::RppColour y);
bool BeatsOnSize(v1::RppSize x, v1::RppSize y);

}  // namespace pyramid::rpp

#endif  // PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_TABLES_H_
