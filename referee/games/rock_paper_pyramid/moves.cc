// A round of Rock, Paper, Pyramid!: the three pieces leave their pools,
// the round resolves (board.h) and the claimants score.
#include <string>
#include <utility>

#include "referee/games/rock_paper_pyramid/state.h"

namespace pyramid::rpp {

void RockPaperPyramidState::Score(int seat, const v1::RppPiece& piece) {
  tallies_[seat].score += Points(piece.size());
  tallies_[seat].scored.push_back(piece);
}

// Captured pieces first, in captured-seat order; then, with winner_takes =
// ALL, each claimant's own piece, in seat order.
void RockPaperPyramidState::ScoreRound(
    const Played& played, const Resolution& resolution,
    v1::RockPaperPyramidRoundResult& result) {
  if (resolution.kind != v1::RPP_CAPTURES) return;
  std::array<bool, kNumSeats> is_claimant = {};
  for (int seat = 0; seat < kNumSeats; ++seat) {
    const int claimant = resolution.claimant_of[seat];
    if (claimant == kNoClaimant) continue;
    is_claimant[claimant] = true;
    v1::RppCapture* capture = result.add_captures();
    capture->set_claimant(static_cast<uint32_t>(claimant));
    capture->set_captured(static_cast<uint32_t>(seat));
    *capture->mutable_piece() = played[seat];
    Score(claimant, played[seat]);
  }
  if (options_.winner_takes != WinnerTakes::kAll) return;
  for (int seat = 0; seat < kNumSeats; ++seat) {
    if (!is_claimant[seat]) continue;
    result.add_kept(static_cast<uint32_t>(seat));
    Score(seat, played[seat]);
  }
}

void RockPaperPyramidState::DoApply(absl::Span<const SeatAction> actions,
                                    v1::Result& result) {
  Played played;
  for (const SeatAction& action : actions) {
    played[action.seat] = action.action.rock_paper_pyramid().piece();
    pools_[action.seat][KindIndex(played[action.seat])] = false;
  }
  const Resolution resolution = Resolve(played);
  v1::RockPaperPyramidRoundResult& round = *result.mutable_rock_paper_pyramid();
  round.set_round(static_cast<uint32_t>(RoundsPlayed() + 1));
  for (const v1::RppPiece& piece : played) *round.add_played() = piece;
  round.set_resolution(resolution.kind);
  ScoreRound(played, resolution, round);
  for (const Tally& tally : tallies_) round.add_scores(tally.score);
  history_.push_back(round.SerializeAsString());
}

}  // namespace pyramid::rpp
