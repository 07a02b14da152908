// A round of Rock, Paper, Pyramid!: the three pieces leave their pools,
// the round resolves (board.h) and the claimants score; its result.
#include <string>
#include <utility>

#include "referee/games/rock_paper_pyramid/state.h"

namespace pyramid::rpp {

void RockPaperPyramidState::Score(int seat, const v1::RppPiece& piece) {
  tallies_[seat].score += Points(piece.size());
  tallies_[seat].scored.push_back(piece);
}

template <typename Visit>
void RockPaperPyramidState::ForEachScored(const Resolution& resolution,
                                          Visit visit) const {
  if (resolution.kind != v1::RPP_CAPTURES) return;
  std::array<bool, kNumSeats> is_claimant = {};
  for (int seat = 0; seat < kNumSeats; ++seat) {
    const int claimant = resolution.claimant_of[seat];
    if (claimant == kNoClaimant) continue;
    is_claimant[claimant] = true;
    visit(claimant, seat, /*kept=*/false);
  }
  if (options_.winner_takes != WinnerTakes::kAll) return;
  for (int seat = 0; seat < kNumSeats; ++seat) {
    if (is_claimant[seat]) visit(seat, seat, /*kept=*/true);
  }
}

void RockPaperPyramidState::AddRound(
    int index, v1::RockPaperPyramidRoundResult& result) const {
  const Round& round = history_[index];
  result.set_round(static_cast<uint32_t>(index + 1));
  for (int8_t kind : round.played) PieceOfKind(kind, *result.add_played());
  result.set_resolution(round.resolution.kind);
  ForEachScored(round.resolution, [&](int scorer, int seat, bool kept) {
    if (kept) {
      result.add_kept(static_cast<uint32_t>(seat));
      return;
    }
    v1::RppCapture* capture = result.add_captures();
    capture->set_claimant(static_cast<uint32_t>(scorer));
    capture->set_captured(static_cast<uint32_t>(seat));
    PieceOfKind(round.played[seat], *capture->mutable_piece());
  });
  for (int32_t score : round.scores) result.add_scores(score);
}

void RockPaperPyramidState::DoApply(absl::Span<const SeatAction> actions,
                                    v1::Result& result) {
  Played played;
  Round& round = history_.emplace_back();
  for (const SeatAction& action : actions) {
    played[action.seat] = action.action.rock_paper_pyramid().piece();
    const int kind = KindIndex(played[action.seat]);
    pools_[action.seat][kind] = false;
    round.played[action.seat] = static_cast<int8_t>(kind);
  }
  round.resolution = Resolve(played);
  ForEachScored(round.resolution, [&](int scorer, int seat, bool) {
    Score(scorer, played[seat]);
  });
  for (int seat = 0; seat < kNumSeats; ++seat) {
    round.scores[seat] = tallies_[seat].score;
  }
  AddRound(RoundsPlayed() - 1, *result.mutable_rock_paper_pyramid());
}

}  // namespace pyramid::rpp
