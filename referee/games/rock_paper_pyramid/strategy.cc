#include "referee/games/rock_paper_pyramid/strategy.h"

#include <array>
#include <vector>

#include "pyramid/referee/v1/rock_paper_pyramid.pb.h"
#include "referee/games/rock_paper_pyramid/board.h"

namespace pyramid {
namespace {

// My points minus the mean of the others' from one round of `played`
// (seat `me`'s piece among them), as the round resolves (board.h).
double RoundGain(const rpp::Played& played, int me) {
  const rpp::Resolution resolution = rpp::Resolve(played);
  if (resolution.kind != v1::RPP_CAPTURES) return 0;
  std::array<double, rpp::kNumSeats> points = {};
  for (int seat = 0; seat < rpp::kNumSeats; ++seat) {
    const int claimant = resolution.claimant_of[seat];
    if (claimant != rpp::kNoClaimant) {
      points[claimant] += rpp::Points(played[seat].size());
    }
  }
  double others = 0;
  for (int seat = 0; seat < rpp::kNumSeats; ++seat) {
    if (seat != me) others += points[seat];
  }
  return points[me] - others / (rpp::kNumSeats - 1);
}

// The mean RoundGain of `mine` over every pair of pieces the other two
// seats may still play.
double ExpectedGain(const v1::RockPaperPyramidObservation& view, int me,
                    const v1::RppPiece& mine) {
  const int first = (me + 1) % rpp::kNumSeats;
  const int second = (me + 2) % rpp::kNumSeats;
  rpp::Played played;
  played[me] = mine;
  double total = 0;
  int rounds = 0;
  for (const v1::RppPiece& a : view.seats(first).pool()) {
    for (const v1::RppPiece& b : view.seats(second).pool()) {
      played[first] = a;
      played[second] = b;
      total += RoundGain(played, me);
      ++rounds;
    }
  }
  return rounds == 0 ? 0 : total / rounds;
}

}  // namespace

v1::Action RockPaperPyramidStrategy::Choose(const v1::DecisionRequest& request,
                                            RandomStream& stream) {
  if (request.legal_actions().empty()) return UnlistedAction(request);
  const v1::RockPaperPyramidObservation& view =
      request.observation().rock_paper_pyramid();
  const int seat = static_cast<int>(request.seat());
  std::vector<double> scores;
  for (const v1::Action& action : request.legal_actions()) {
    const v1::RppPiece& mine = action.rock_paper_pyramid().piece();
    scores.push_back(ExpectedGain(view, seat, mine));
  }
  return request.legal_actions(PickBest(scores, stream));
}

}  // namespace pyramid
