// What Rock, Paper, Pyramid! shows: everything is public (pools, scores,
// every round), so a seat sees what the public view shows.
#include <optional>

#include "referee/games/rock_paper_pyramid/state.h"

namespace pyramid::rpp {

void RockPaperPyramidState::ViewInto(std::optional<int> /*seat*/,
                                     v1::Observation& observation) const {
  v1::RockPaperPyramidObservation* game =
      observation.mutable_rock_paper_pyramid();
  game->set_rounds_played(static_cast<uint32_t>(RoundsPlayed()));
  game->set_total_rounds(static_cast<uint32_t>(total_rounds_));
  for (int seat = 0; seat < kNumSeats; ++seat) {
    v1::RppSeatView* view = game->add_seats();
    for (int kind = 0; kind < kNumKinds; ++kind) {
      if (pools_[seat][kind]) PieceOfKind(kind, *view->add_pool());
    }
    view->set_score(tallies_[seat].score);
    for (const v1::RppPiece& piece : tallies_[seat].scored) {
      *view->add_scored() = piece;
    }
  }
  for (int index = 0; index < RoundsPlayed(); ++index) {
    AddRound(index, *game->add_history());
  }
}

}  // namespace pyramid::rpp
