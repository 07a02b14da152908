// How one round of Rock, Paper, Pyramid! resolves: which revealed piece
// captures which, and who claims each captured piece (the rules page's
// capture, stand-off and wishbone cases).
#ifndef PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_BOARD_H_
#define PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_BOARD_H_

#include <array>

#include "pyramid/referee/v1/rock_paper_pyramid.pb.h"
#include "referee/games/rock_paper_pyramid/tables.h"

namespace pyramid::rpp {

// The pieces revealed in one round, indexed by seat.
using Played = std::array<v1::RppPiece, kNumSeats>;

// graph[x][y]: seat x's piece captures seat y's piece.
using CaptureGraph = std::array<std::array<bool, kNumSeats>, kNumSeats>;

inline constexpr int kNoClaimant = -1;

// How a round resolved, before scoring.
struct Resolution {
  v1::RppResolution kind = v1::RPP_RESOLUTION_UNSPECIFIED;
  // The seat that takes each seat's piece, or kNoClaimant.
  std::array<int, kNumSeats> claimant_of = {kNoClaimant, kNoClaimant,
                                            kNoClaimant};
};

// True iff `x` captures `y` under the pairwise rule: x beats y on colour or
// on size, and y beats x on neither.
bool Captures(const v1::RppPiece& x, const v1::RppPiece& y);

// The round's resolution for three known pieces.
Resolution Resolve(const Played& played);

}  // namespace pyramid::rpp

#endif  // PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_BOARD_H_
