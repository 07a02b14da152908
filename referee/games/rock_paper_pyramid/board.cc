#include "referee/games/rock_paper_pyramid/board.h"

namespace pyramid::rpp {
namespace {

CaptureGraph BuildCaptureGraph(const Played& played) {
  CaptureGraph graph = {};
  for (int x = 0; x < kNumSeats; ++x) {
    for (int y = 0; y < kNumSeats; ++y) {
      graph[x][y] = x != y && Captures(played[x], played[y]);
    }
  }
  return graph;
}

bool IsCaptured(const CaptureGraph& graph, int seat) {
  for (int x = 0; x < kNumSeats; ++x) {
    if (graph[x][seat]) return true;
  }
  return false;
}

// Whether `from` reaches `to` along capture edges, directly or through one
// intermediate piece (which is then captured, by `from`). With three pieces
// no longer simple path exists.
bool Reaches(const CaptureGraph& graph, int from, int to) {
  if (graph[from][to]) return true;
  for (int mid = 0; mid < kNumSeats; ++mid) {
    if (graph[from][mid] && graph[mid][to]) return true;
  }
  return false;
}

// The rules page's three-way resolution. Every captured piece has at least
// one claimant whenever some piece is uncaptured: its captor is uncaptured,
// or is captured by the third piece, which then must be uncaptured (the
// capture relation is antisymmetric).
}  // namespace

Resolution Resolve(const Played& played) {
  const CaptureGraph graph = BuildCaptureGraph(played);
  std::array<bool, kNumSeats> captured = {};
  int num_captured = 0;
  for (int seat = 0; seat < kNumSeats; ++seat) {
    captured[seat] = IsCaptured(graph, seat);
    num_captured += captured[seat] ? 1 : 0;
  }
  Resolution resolution;
  if (num_captured == 0) {
    resolution.kind = v1::RPP_WASHOUT;
    return resolution;
  }
  if (num_captured == kNumSeats) {
    resolution.kind = v1::RPP_STANDOFF;
    return resolution;
  }
  for (int piece = 0; piece < kNumSeats; ++piece) {
    if (!captured[piece]) continue;
    int claimants = 0;
    for (int seat = 0; seat < kNumSeats; ++seat) {
      if (captured[seat] || !Reaches(graph, seat, piece)) continue;
      ++claimants;
      resolution.claimant_of[piece] = seat;
    }
    if (claimants >= 2) return Resolution{.kind = v1::RPP_WISHBONE};
  }
  resolution.kind = v1::RPP_CAPTURES;
  return resolution;
}

bool Captures(const v1::RppPiece& x, const v1::RppPiece& y) {
  const bool x_beats_y =
      BeatsOnColour(x.colour(), y.colour()) || BeatsOnSize(x.size(), y.size());
  const bool y_beats_x =
      BeatsOnColour(y.colour(), x.colour()) || BeatsOnSize(y.size(), x.size());
  return x_beats_y && !y_beats_x;
}

}  // namespace pyramid::rpp
